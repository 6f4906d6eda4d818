// The cascade under a kernel-run limit: a stage whose new pairs do not fit is not timed.
#include "eval/cascade.hpp"
#include "eval/counters.hpp"
#include "ir/error.hpp"
#include "support/fixtures.hpp"

#include <doctest/doctest.h>

// In a namespace of its own: the test files are compiled several to a unit (unity build).
namespace cascade_budget_test {

using namespace tv;

TEST_CASE("cascade: a stage whose new pairs do not fit the limit is not timed") {
  const Problem& p = test::lecture_problem("h100");
  CascadeEvaluator eval(p, CascadeOptions{});
  const long long probes = (long long)eval.probe_rows().size();
  const long long train = (long long)p.train_rows.size();
  REQUIRE(probes > 0);
  REQUIRE(train > probes);
  // One config everywhere: a pair per shape, none cached yet. (The probes are training shapes.)
  Program one;
  one.default_config = p.expert.choose(p.shape(p.train_rows.front()));

  const Evaluation none = eval.evaluate(one, 0.0, 0);
  CHECK(none.stage == Stage::over_budget);
  CHECK(none.kernel_runs == 0);
  CHECK(none.reason.find("probe shapes") != std::string::npos);
  CHECK(eval.cached_pairs() == 0);

  // Room for the probes only: they are timed, stage 2 is not.
  const Evaluation probed = eval.evaluate(one, 0.0, probes);
  CHECK(probed.stage == Stage::over_budget);
  CHECK(probed.kernel_runs == probes);
  CHECK(probed.reason.find("training shapes") != std::string::npos);
  CHECK(probed.reason.find(std::to_string(train - probes) + " new kernel runs") !=
        std::string::npos);
  CHECK(eval.cached_pairs() == std::size_t(probes));

  // Exactly enough for the rest: full, and nothing past the limit.
  const Evaluation rest = eval.evaluate(one, 0.0, train - probes);
  CHECK(rest.stage == Stage::full);
  CHECK(rest.kernel_runs == train - probes);

  // Everything cached: a limit of 0 still evaluates it; no limit (-1) is the default.
  const Evaluation again = eval.evaluate(one, 0.0, 0);
  CHECK(again.stage == Stage::full);
  CHECK(again.kernel_runs == 0);
  CHECK(again.train.speedup_vs_expert == rest.train.speedup_vs_expert);
  CHECK(stage_name(Stage::over_budget) == "over_budget");
  Stage parsed = Stage::full;
  CHECK(parse_stage("over_budget", parsed));
  CHECK(parsed == Stage::over_budget);
}

TEST_CASE("counters: over_budget is written, read, and absent from older runs' counters") {
  Counters c;
  c.over_budget = 2;
  c.kernel_runs = 40;
  nlohmann::json j = c.to_json();
  CHECK(j["over_budget"] == 2);
  CHECK(Counters::from_json(j).over_budget == 2);
  j.erase("over_budget"); // a checkpoint written before the stage existed
  CHECK(Counters::from_json(j).over_budget == 0);
  CHECK(Counters::from_json(j).kernel_runs == 40);
  j["over_budget"] = "two";
  CHECK_THROWS_AS(Counters::from_json(j), InputError);
}

} // namespace cascade_budget_test
