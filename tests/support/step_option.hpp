#pragma once
/// The check every on/off step of a run shares: its EvolutionOptions flag travels with the run's
/// configuration (config.json) and a run written before the step existed reads it as off.
#include "evolve/evolution.hpp"

#include <doctest/doctest.h>

namespace tv::test {

/// `field` is on by default, written as `key` and read back either way, and off when `key` is
/// absent (a run written before the step existed).
inline void check_step_option(const char* key, bool EvolutionOptions::*field) {
  nlohmann::json j = EvolutionOptions{}.to_json();
  CHECK(j[key] == true);
  CHECK(EvolutionOptions::from_json(j).*field);
  EvolutionOptions off;
  off.*field = false;
  CHECK_FALSE(EvolutionOptions::from_json(off.to_json()).*field);
  j.erase(key);
  CHECK_FALSE(EvolutionOptions::from_json(j).*field);
}

} // namespace tv::test

namespace tv::test {

/// The pass `name` runs by default and a skip of it travels with the run's configuration
/// (skip_passes); options written before the passes (no skip_passes) read their switch
/// `legacy_key` as the pass: on when true, skipped when false or absent (a run written before the
/// step existed).
inline void check_pass_option(const char* name, const char* legacy_key) {
  nlohmann::json j = EvolutionOptions{}.to_json();
  CHECK(j["skip_passes"] == nlohmann::json::array());
  CHECK_FALSE(EvolutionOptions::from_json(j).skips(name));
  EvolutionOptions off;
  off.skip(name);
  CHECK(EvolutionOptions::from_json(off.to_json()).skips(name));
  j.erase("skip_passes");
  j[legacy_key] = true;
  CHECK_FALSE(EvolutionOptions::from_json(j).skips(name));
  j[legacy_key] = false;
  CHECK(EvolutionOptions::from_json(j).skips(name));
  j.erase(legacy_key);
  CHECK(EvolutionOptions::from_json(j).skips(name));
}

} // namespace tv::test
