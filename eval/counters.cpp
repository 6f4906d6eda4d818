#include "eval/counters.hpp"

#include "ir/error.hpp"

#include <fmt/format.h>
#include <string_view>
#include <utility>

namespace tv {

namespace {
/// The scalar fields, in a fixed order, for add / to_json / from_json.
constexpr std::pair<const char*, long long Counters::*> kFields[] = {
    {"proposed", &Counters::proposed},
    {"mutator_failed", &Counters::mutator_failed},
    {"diff_failed", &Counters::diff_failed},
    {"parse_failed", &Counters::parse_failed},
    {"noop", &Counters::noop},
    {"static_reject", &Counters::static_reject},
    {"probe_reject", &Counters::probe_reject},
    {"timing_failed", &Counters::timing_failed},
    {"over_budget", &Counters::over_budget},
    {"full", &Counters::full},
    {"improved", &Counters::improved},
    {"new_best", &Counters::new_best},
    {"kernel_runs", &Counters::kernel_runs},
    {"cache_hits", &Counters::cache_hits},
};
} // namespace

void Counters::add(const Counters& o) {
  for (const auto& [name, field] : kFields)
    this->*field += o.*field;
  for (const auto& [k, v] : o.static_reasons)
    static_reasons[k] += v;
}

nlohmann::json Counters::to_json() const {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [name, field] : kFields)
    j[name] = this->*field;
  j["static_reasons"] = static_reasons;
  return j;
}

Counters Counters::from_json(const nlohmann::json& j) {
  Counters c;
  if (!j.is_object()) throw InputError("counters: expected an object");
  for (const auto& [name, field] : kFields) {
    // Written since over_budget existed; a run from before it had none.
    if (name == std::string_view("over_budget") && !j.contains(name)) continue;
    if (!j.contains(name) || !j[name].is_number_integer())
      throw InputError(fmt::format("counters: field '{}' missing or not an integer", name));
    c.*field = j[name].get<long long>();
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
