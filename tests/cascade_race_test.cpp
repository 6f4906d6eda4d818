// Racing in the cascade's last stage: a child past the probe shapes is timed on its new
// training pairs a batch at a time and stopped once its parent surely beats it; under a
// kernel-run cap the run times what racing stopped in full at the end.
#include "eval/baselines.hpp"
#include "eval/cascade.hpp"
#include "eval/counters.hpp"
#include "evolve/checkpoint.hpp"
#include "evolve/evolution.hpp"
#include "evolve/mock_llm.hpp"
#include "evolve/run_dir.hpp"
#include "ir/error.hpp"
#include "ir/text.hpp"
#include "support/fixtures.hpp"
#include "support/temp_dir.hpp"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>
#include <sstream>
#include <vector>

// In a namespace of its own: the test files are compiled several to a unit (unity build).
namespace cascade_race_test {

using namespace tv;

TEST_CASE("race_upper_bound: the sample's estimate of the rest, plus two standard errors") {
  // Two shapes known (sum 0.2), a sample of 4 from 10 new pairs, 12 shapes of weight 1.
  const std::vector<double> sample{-0.1, -0.3, -0.2, -0.2};
  const double mean = -0.2, sd = std::sqrt(0.02 / 3);
  const double se = sd / 2 * std::sqrt(1 - 4.0 / 10);
  CHECK(race_upper_bound(0.2, sample, 10, 12) ==
        doctest::Approx((0.2 + 10 * (mean + 2 * se)) / 12));
  // The whole population sampled: no uncertainty left, the bound is the exact figure.
  CHECK(race_upper_bound(0.2, sample, 4, 12) == doctest::Approx((0.2 + 4 * mean) / 12));
  // A wider spread of the same mean bounds higher; one sample has no spread to estimate.
  CHECK(race_upper_bound(0.2, {0.3, -0.7, -0.2, -0.2}, 10, 12) >
        race_upper_bound(0.2, sample, 10, 12));
  CHECK(race_upper_bound(0.0, {-0.5}, 10, 10) == doctest::Approx(-0.5));
}

TEST_CASE(
    "cascade racing: a child that surely loses stops after one batch, a winner is timed in full") {
  const Problem& p = test::lecture_problem("h100");
  const Program parent = test::constant_program(best_single_config(*p.train).default_config);
  const double parent_speedup = p.train->score(parent).speedup_vs_expert;
  // A config that launches and is far slower over the training shapes than the parent's.
  std::optional<Config> slow;
  for (const Config& c : p.table->configs())
    if (p.static_issues(test::constant_program(c)).empty() &&
        p.train->score(test::constant_program(c)).speedup_vs_expert < 0.5 * parent_speedup) {
      slow = c;
      break;
    }
  REQUIRE(slow);
  const Program loser = test::constant_program(*slow);
  const long long probes = (long long)CascadeEvaluator(p, {}).probe_rows().size();
  const long long train = (long long)p.train_rows.size();
  REQUIRE(train > probes + 8);

  CascadeOptions o; // race_batch 8, the default
  CHECK(o.race_batch == 8);
  CascadeEvaluator eval(p, o);
  REQUIRE(eval.evaluate(parent, 0.0).stage == Stage::full); // the parent fully timed
  // No probe reference (so the probes pass), then one batch of 8 new pairs: enough to be sure.
  const Evaluation raced = eval.evaluate(loser, 0.0, -1, &parent);
  CHECK(raced.stage == Stage::race_reject);
  CHECK(raced.kernel_runs == probes + 8);
  CHECK(raced.reason.find("raced: after 8 of its " + std::to_string(train - probes) +
                          " new training pairs") != std::string::npos);
  CHECK(stage_name(Stage::race_reject) == "race_reject");
  Stage parsed = Stage::full;
  CHECK(parse_stage("race_reject", parsed));
  CHECK(parsed == Stage::race_reject);

  // Without a parent, or with racing off, the same child is timed on every training shape.
  CascadeEvaluator plain(p, o);
  const Evaluation full = plain.evaluate(loser, 0.0);
  CHECK(full.stage == Stage::full);
  CHECK(full.kernel_runs == train);
  o.race_batch = 0;
  CascadeEvaluator off(p, o);
  REQUIRE(off.evaluate(parent, 0.0).stage == Stage::full);
  CHECK(off.evaluate(loser, 0.0, -1, &parent).stage == Stage::full);

  // With a threshold on the child's new pairs: raced at exactly that many, timed in full above
  // one pair fewer than it has.
  o.race_batch = 8;
  const long long fresh = train - probes;
  CascadeEvaluator at(p, o);
  REQUIRE(at.evaluate(parent, 0.0).stage == Stage::full);
  CHECK(at.evaluate(loser, 0.0, -1, &parent, fresh).stage == Stage::race_reject);
  CascadeEvaluator above(p, o);
  REQUIRE(above.evaluate(parent, 0.0).stage == Stage::full);
  const Evaluation spared = above.evaluate(loser, 0.0, -1, &parent, fresh + 1);
  CHECK(spared.stage == Stage::full);
  CHECK(spared.kernel_runs == train);

  // The parent raced against the loser (it wins everywhere): timed in full, the same figures
  // as without racing.
  CascadeEvaluator back(p, o);
  REQUIRE(back.evaluate(loser, 0.0).stage == Stage::full);
  const Evaluation winner = back.evaluate(parent, 0.0, -1, &loser);
  CHECK(winner.stage == Stage::full);
  CHECK(winner.kernel_runs == train);
  CHECK(winner.train.speedup_vs_expert == doctest::Approx(parent_speedup));

  // A child that changes a batch of shapes or fewer is never raced: nothing to sample.
  long long m1 = 0;
  for (std::size_t r : p.train_rows)
    m1 += p.shape(r).M == 1;
  REQUIRE(m1 > 0);
  REQUIRE(m1 <= 8);
  const ParseResult few =
      parse_program("def choose(M, N, K):\n    if M <= 1:\n        return " + print_config(*slow) +
                    "\n    return " + print_config(parent.default_config) + "\n");
  REQUIRE(few.ok());
  CascadeEvaluator small(p, o);
  REQUIRE(small.evaluate(parent, 0.0).stage == Stage::full);
  const Evaluation unraced = small.evaluate(*few.program, 0.0, -1, &parent);
  CHECK(unraced.stage == Stage::full);
  CHECK(unraced.kernel_runs == m1);
}

TEST_CASE("racing in a run: stopped children counted, under a cap only") {
  const auto replay = test::replay_problem("a100_mm.txt");
  MockLlm m(replay->gpu, mock_options_for(*replay, {}));
  EvolutionOptions o; // the defaults on recorded timings: a 30% cap and a stagnation stop
  o.seed = 1;
  test::ScratchDir dir("tv_race_run");
  const EvolutionResult r = Evolution(*replay, m, o, dir.at("run")).run();
  REQUIRE(r.stop_reason == "stagnation"); // cap room left at the end
  CHECK(r.counters.race_reject > 0);
  // What racing stopped stays stopped (race completion, which timed it in full at the end, was
  // retired: it did not move the protocol panel).
  CHECK(r.pass("race-completion") == nullptr);
  CHECK(r.counters.kernel_runs <= (long long)(0.30 * double(r.exhaustive_train_runs)));
  const std::string events = read_file(dir.at("run") + "/events.ndjson");
  CHECK(events.find("\"event\":\"pass\"") != std::string::npos);
  // Racing starts once half the cap is spent; before that, only a child whose new pairs take
  // at least kRaceCostlyChildShare of what is left of the cap is raced.
  const long long cap = (long long)(0.30 * double(r.exhaustive_train_runs));
  long long spent = 0, raced = 0, early = 0, hits = 0;
  std::istringstream in(events);
  for (std::string line; std::getline(in, line);) {
    const auto e = nlohmann::json::parse(line);
    if (e["event"] != "program") continue;
    // The analytic seed (a seed, not a child: not in the counters' stages) races too.
    if (e["stage"] == "race_reject" && e["op"] != "seed") {
      ++raced;
      CHECK(e["kernel_runs"].get<long long>() > 0);
      if (2 * spent < cap) {
        ++early;
        // "raced: after N of its M new training pairs, ..."
        const std::string why = e["reason"];
        const auto at = why.find(" of its ");
        REQUIRE(at != std::string::npos);
        const long long fresh = std::stoll(why.substr(at + 8));
        CHECK(double(fresh) >= kRaceCostlyChildShare * double(cap - spent));
      }
    }
    spent += e["kernel_runs"].get<long long>();
    hits += e["cache_hits"].get<long long>();
  }
  CHECK(early > 0); // the costly-child rule was exercised
  CHECK(raced == r.counters.race_reject);
  CHECK(hits == r.counters.cache_hits); // a pair the race timed is not a hit as well
  // Resuming the finished run replays it: no kernel run more, the same result.
  const EvolutionResult again = Evolution(*replay, m, o, dir.at("run")).resume();
  CHECK(again.counters.to_json() == r.counters.to_json());
  CHECK(print_program(again.best.program) == print_program(r.best.program));
  {
    // A checkpoint written while race completion ran (its report, its kernel runs, the raced
    // programs) still resumes: the retired pass's report is kept as history, nothing reruns.
    const std::string path = dir.at("run") + "/checkpoint.json";
    nlohmann::json cp = nlohmann::json::parse(read_file(path));
    nlohmann::json& st = cp["state"];
    const nlohmann::json report{{"name", "race-completion"},
                                {"ran", true},
                                {"changed", false},
                                {"kernel_runs", 0},
                                {"summary", "timed 0 raced children in full"},
                                {"lines", nlohmann::json::array()},
                                {"data", {{"completed", 0}}}};
    st["passes"].insert(st["passes"].begin(), report);
    st["pass_runs"]["race-completion"] = 0;
    st["raced"] = nlohmann::json::array();
    std::ofstream(path) << checkpoint_text(st, cp["fingerprint"].get<std::string>());
    const EvolutionResult old = Evolution(*replay, m, o, dir.at("run")).resume();
    CHECK(print_program(old.best.program) == print_program(r.best.program));
    CHECK(old.counters.kernel_runs == r.counters.kernel_runs);
    REQUIRE(old.pass("race-completion") != nullptr);
    CHECK(old.passes.size() == r.passes.size() + 1);
  }

  // Without racing: nothing stopped that way; and the option travels in the run's options
  // (older runs, written without it, did not race).
  o.cascade.race_batch = 0;
  const EvolutionResult plain = Evolution(*replay, m, o).run();
  CHECK(plain.counters.race_reject == 0);
  nlohmann::json j = o.to_json();
  CHECK(j["cascade"]["race_batch"] == 0);
  CHECK(EvolutionOptions::from_json(j).cascade.race_batch == 0);
  j["cascade"]["race_batch"] = 8;
  CHECK(EvolutionOptions::from_json(j).cascade.race_batch == 8);
  j["cascade"].erase("race_batch");
  CHECK(EvolutionOptions::from_json(j).cascade.race_batch == 0);
  // No cap (the analytic model): nothing races.
  EvolutionOptions a;
  a.budget = 300;
  const Problem& lec = test::lecture_problem("h100");
  MockLlm lm(lec.gpu);
  CHECK(Evolution(lec, lm, a).run().counters.race_reject == 0);
  // A run's options may still name the retired pass (an older config.json); nothing is skipped.
  a.skip("race-completion");
  CHECK(Evolution(lec, lm, a).run().passes.size() == 8);
}

TEST_CASE("counters: race_reject is written, read, and absent from older runs' counters") {
  Counters c;
  c.race_reject = 3;
  nlohmann::json j = c.to_json();
  CHECK(j["race_reject"] == 3);
  CHECK(Counters::from_json(j).race_reject == 3);
  j.erase("race_reject");
  CHECK(Counters::from_json(j).race_reject == 0);
}

} // namespace cascade_race_test
