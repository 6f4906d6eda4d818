#include "evolve/attempt_history.hpp"

#include "ir/error.hpp"

#include <fmt/format.h>

namespace tv {

void AttemptHistory::record(std::uint64_t parent, PreviousAttempt attempt) {
  auto& q = by_parent_[parent];
  q.push_back(std::move(attempt));
  while (q.size() > per_parent_)
    q.pop_front();
}

std::vector<PreviousAttempt> AttemptHistory::of(std::uint64_t parent) const {
  const auto it = by_parent_.find(parent);
  if (it == by_parent_.end()) return {};
  return {it->second.begin(), it->second.end()};
}

nlohmann::json AttemptHistory::to_json() const {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [parent, q] : by_parent_) {
    nlohmann::json list = nlohmann::json::array();
    for (const auto& a : q)
      list.push_back({{"op", a.op}, {"stage", a.stage}, {"outcome", a.outcome}});
    j[std::to_string(parent)] = list;
  }
  return j;
}

AttemptHistory AttemptHistory::from_json(const nlohmann::json& j, std::size_t per_parent) {
  AttemptHistory h(per_parent);
  if (!j.is_object()) throw InputError("attempt history: expected an object");
  for (const auto& [key, list] : j.items()) {
    std::uint64_t parent = 0;
    try {
      std::size_t used = 0;
      parent = std::stoull(key, &used);
      if (used != key.size()) throw std::invalid_argument(key);
    } catch (const std::exception&) {
      throw InputError(fmt::format("attempt history: bad parent id '{}'", key));
    }
    if (!list.is_array()) throw InputError("attempt history: expected a list per parent");
    for (const auto& a : list) {
      if (!a.is_object() || !a.contains("op") || !a.contains("stage") || !a.contains("outcome") ||
          !a["op"].is_string() || !a["stage"].is_string() || !a["outcome"].is_string())
        throw InputError("attempt history: each attempt needs op, stage and outcome strings");
      h.record(parent, {a["op"].get<std::string>(), a["stage"].get<std::string>(),
                        a["outcome"].get<std::string>()});
    }
  }
  return h;
}

std::string describe_attempt(Stage stage, const std::string& reason, double score,
                             double parent_score) {
  switch (stage) {
  case Stage::full: {
    const char* verdict = score > parent_score   ? "better than the parent"
                          : score < parent_score ? "worse than the parent"
                                                 : "the same as the parent";
    return fmt::format("train speedup {:.3f}x against the parent's {:.3f}x ({})", score,
                       parent_score, verdict);
  }
  case Stage::parse_failed:
    return "the edited program does not parse: " + reason;
  case Stage::diff_failed:
    return "the edit did not apply: " + reason;
  case Stage::noop:
    return "no change: " + reason;
  case Stage::static_reject:
    return "rejected by the static check: " + reason;
  case Stage::probe_reject:
    return "stopped at the probe shapes: " + reason;
  case Stage::race_reject:
    return "stopped by racing: " + reason;
  case Stage::timing_failed:
    return "a timing failed: " + reason;
  case Stage::over_budget:
    return "not timed: " + reason;
  case Stage::mutator_failed:
    return "no reply: " + reason;
  }
  return reason;
}

} // namespace tv
