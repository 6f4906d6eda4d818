#include "eval/controller/pool_counters.hpp"

#include <fmt/format.h>

#include <utility>

namespace tv {

namespace {

constexpr std::pair<const char*, long long PoolCounters::*> kCounterFields[] = {
    {"sent", &PoolCounters::sent},
    {"measured", &PoolCounters::measured},
    {"restarts", &PoolCounters::restarts},
    {"requeued", &PoolCounters::requeued},
    {"errors", &PoolCounters::errors},
    {"timeouts", &PoolCounters::timeouts},
    {"crashes", &PoolCounters::crashes},
    {"garbage_lines", &PoolCounters::garbage_lines},
    {"unknown_ids", &PoolCounters::unknown_ids},
    {"bad_replies", &PoolCounters::bad_replies},
    {"failed_starts", &PoolCounters::failed_starts},
    {"isolated", &PoolCounters::isolated},
    {"poison", &PoolCounters::poison},
    {"canaries", &PoolCounters::canaries},
    {"duplicates", &PoolCounters::duplicates},
    {"retired", &PoolCounters::retired},
};

} // namespace

nlohmann::json PoolCounters::to_json() const {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [name, field] : kCounterFields)
    j[name] = this->*field;
  return j;
}

std::string PoolCounters::faults() const {
  std::string out;
  for (const auto& [name, field] : kCounterFields) {
    if (field == &PoolCounters::sent || field == &PoolCounters::measured || this->*field == 0)
      continue;
    out += fmt::format("{}{} {}", out.empty() ? "" : ", ", name, this->*field);
  }
  return out.empty() ? "no faults" : out;
}

} // namespace tv
