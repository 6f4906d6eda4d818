// Run directories written before the passes (config.json version 1, a switch per step;
// checkpoint.json version 2) still resume: the versioned migration reads their options as passes
// and their checkpoints as the passes' counts.
#include "support/fixtures.hpp"
#include "support/temp_dir.hpp"

#include "evolve/checkpoint.hpp"
#include "evolve/evolution.hpp"
#include "evolve/mock_llm.hpp"
#include "evolve/run_dir.hpp"
#include "ir/error.hpp"
#include "ir/text.hpp"

#include <doctest/doctest.h>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

// In a namespace of its own: the test files are compiled several to a unit (unity build).
namespace run_migration_test {

using namespace tv;
using nlohmann::json;

namespace {

/// The options of `current` as version 1 wrote them: every pass's switch on, no skip list.
json version1_options(json current) {
  current.erase("skip_passes");
  for (const char* key : {"place_thresholds", "wave_guards", "guard_validation", "polish",
                          "explore", "refit_validation"})
    current[key] = true;
  current["folds"] = 0;
  return current;
}

/// Rewrites the run in `dir` as version 1 of config.json and version 2 of checkpoint.json
/// would have held it; returns the version-1 configuration.
json rewrite_as_version1(const std::string& dir) {
  json cfg = json::parse(read_file(dir + "/config.json"));
  cfg["options"] = version1_options(cfg["options"]);
  cfg["version"] = 1;
  std::ofstream(dir + "/config.json") << cfg.dump(2) << "\n";
  const json cp = json::parse(read_file(dir + "/checkpoint.json"));
  std::string text = checkpoint_text(cp["state"], run_fingerprint(cfg));
  const std::string v3 = "\"version\":3";
  REQUIRE(text.find(v3) != std::string::npos);
  text.replace(text.find(v3), v3.size(), "\"version\":2");
  std::ofstream(dir + "/checkpoint.json") << text;
  return cfg;
}

} // namespace

TEST_CASE("run migration: an interrupted run written before the passes resumes and ends like the "
          "run that never stopped") {
  const Problem& p = test::lecture_problem("h100");
  EvolutionOptions o;
  o.budget = 240;
  o.seed = 3;
  MockLlm m(p.gpu);
  const EvolutionResult whole = Evolution(p, m, o).run();
  const test::ScratchDir scratch("tv_run_migration");
  const std::string dir = scratch.at("run");
  {
    Evolution first(p, m, o, dir);
    int asked = 0;
    first.on_stop_request([&] { return ++asked > 10; });
    CHECK_THROWS_AS(first.run(), InterruptedError);
  }
  const json cfg = rewrite_as_version1(dir);
  // The current binary refuses nothing of it: the options read back as the same passes.
  const EvolutionOptions read = EvolutionOptions::from_json(cfg["options"]);
  CHECK(read.skip_passes.empty());
  CHECK(migrate_run_config(cfg)["version"] == kRunConfigVersion);
  const EvolutionResult resumed = Evolution(p, m, read, dir).resume();
  CHECK(resumed.resumed);
  CHECK(print_program(resumed.best.program) == print_program(whole.best.program));
  CHECK(resumed.counters.to_json() == whole.counters.to_json());
  REQUIRE(resumed.passes.size() == whole.passes.size());
  for (std::size_t i = 0; i < whole.passes.size(); ++i)
    CHECK(resumed.passes[i].to_json(false) == whole.passes[i].to_json(false));
}

TEST_CASE("run migration: a version-1 run's switches off read as skipped passes, and a run that "
          "chose by model selection (--folds) is refused") {
  json j = version1_options(EvolutionOptions{}.to_json());
  j["polish"] = false;
  j.erase("explore"); // written before leaf exploration existed: it did not run
  const EvolutionOptions o = EvolutionOptions::from_json(j);
  CHECK(o.skip_passes == std::vector<std::string>{"leaf-exploration", "leaf-polish"});
  j["folds"] = 3;
  CHECK_THROWS_WITH_AS(EvolutionOptions::from_json(j),
                       doctest::Contains("model selection (--folds)"), InputError);
  // A checkpoint of a version this binary never wrote is refused with the versions it reads.
  const std::string future =
      R"({"format":"tilevolve-checkpoint","version":4,"fingerprint":"x","checksum":"y","state":{}})";
  CHECK_THROWS_WITH_AS(checkpoint_state(future, "cp.json", "x"),
                       doctest::Contains("checkpoint version 4 is not supported (expected 2 to 3)"),
                       InputError);
}

} // namespace run_migration_test
