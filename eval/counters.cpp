#include "eval/counters.hpp"

#include "ir/error.hpp"

#include <fmt/format.h>
#include <utility>

namespace tv {

namespace {
/// The scalar fields, in a fixed order, for add / to_json / from_json; `since_later` marks a
/// field added after runs were first written (absent in theirs: read as 0).
struct Field {
  const char* name;
  long long Counters::*member;
  bool since_later = false;
};
constexpr Field kFields[] = {
    {"proposed", &Counters::proposed},
    {"mutator_failed", &Counters::mutator_failed},
    {"diff_failed", &Counters::diff_failed},
    {"parse_failed", &Counters::parse_failed},
    {"noop", &Counters::noop},
    {"static_reject", &Counters::static_reject},
    {"probe_reject", &Counters::probe_reject},
    {"race_reject", &Counters::race_reject, true},
    {"timing_failed", &Counters::timing_failed},
    {"over_budget", &Counters::over_budget, true},
    {"full", &Counters::full},
    {"improved", &Counters::improved},
    {"new_best", &Counters::new_best},
    {"kernel_runs", &Counters::kernel_runs},
    {"cache_hits", &Counters::cache_hits},
};
} // namespace

void Counters::add(const Counters& o) {
  for (const Field& f : kFields)
    this->*f.member += o.*f.member;
  for (const auto& [k, v] : o.static_reasons)
    static_reasons[k] += v;
}

nlohmann::json Counters::to_json() const {
  nlohmann::json j = nlohmann::json::object();
  for (const Field& f : kFields)
    j[f.name] = this->*f.member;
  j["static_reasons"] = static_reasons;
  return j;
}

Counters Counters::from_json(const nlohmann::json& j) {
  Counters c;
  if (!j.is_object()) throw InputError("counters: expected an object");
  for (const Field& f : kFields) {
    if (f.since_later && !j.contains(f.name)) continue;
    if (!j.contains(f.name) || !j[f.name].is_number_integer())
      throw InputError(fmt::format("counters: field '{}' missing or not an integer", f.name));
    c.*f.member = j[f.name].get<long long>();
  }
  if (j.contains("static_reasons")) {
    if (!j["static_reasons"].is_object())
      throw InputError("counters: field 'static_reasons' is not an object");
    for (const auto& [k, v] : j["static_reasons"].items()) {
      if (!v.is_number_integer())
        throw InputError(fmt::format("counters: static_reasons['{}'] is not an integer", k));
      c.static_reasons[k] = v.get<long long>();
    }
  }
  return c;
}

} // namespace tv
