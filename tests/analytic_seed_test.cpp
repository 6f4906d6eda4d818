// The analytic seed: on recorded timings under a kernel-run cap, the decision tree the
// analytic model fits on the training shapes starts the search beside the expert, raced
// against it.
#include "eval/baselines.hpp"
#include "evolve/analytic_seed.hpp"
#include "evolve/evolution.hpp"
#include "evolve/mock_llm.hpp"
#include "evolve/run_dir.hpp"
#include "evolve/summary.hpp"
#include "ir/text.hpp"
#include "models/analytic_model.hpp"
#include "support/fixtures.hpp"
#include "support/temp_dir.hpp"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>
#include <vector>

// In a namespace of its own: the test files are compiled several to a unit (unity build).
namespace analytic_seed_test {

using namespace tv;

/// The analytic seed's program events of a run directory (op "seed", "seed": "analytic").
std::vector<nlohmann::json> analytic_seed_events(const std::string& run) {
  std::vector<nlohmann::json> out;
  std::istringstream in(read_file(run + "/events.ndjson"));
  for (std::string line; std::getline(in, line);) {
    const auto e = nlohmann::json::parse(line);
    if (e["event"] == "program" && e.value("seed", "") == "analytic") out.push_back(e);
  }
  return out;
}

/// Sum over `p`'s training shapes of log(model time of the expert's choice / model time of
/// p's choice): the analytic model's own figure for `p` (higher is faster).
double model_log_speedup(const Problem& problem, const Program& p) {
  double sum = 0;
  for (std::size_t r : problem.train_rows) {
    const Shape& s = problem.shape(r);
    sum += std::log(model_time(s, problem.expert.choose(s), problem.gpu) /
                    model_time(s, p.choose(s), problem.gpu));
  }
  return sum;
}

TEST_CASE("analytic seed: the model's tree of the table's configs, on recorded tables only") {
  CHECK_FALSE(analytic_seed_applies(test::lecture_problem("h100"))); // the model itself
  const auto timm = test::replay_problem("a100_timm_mm.txt");
  REQUIRE(analytic_seed_applies(*timm));
  std::vector<Shape> train;
  for (std::size_t r : timm->train_rows)
    train.push_back(timm->shape(r));
  const auto tree = analytic_seed_tree(*timm, train, 16);
  REQUIRE(tree);
  CHECK(tree->rules.size() + 1 <= 16);
  CHECK(tree->rules.size() >= 1);
  CHECK(timm->static_issues(*tree).empty());
  // Every config it returns is one of the table's, and by the model's own times it is at
  // least as fast on its training shapes as every single config of the table (a fitted tree
  // of one leaf would be the best of those).
  const std::vector<Config> space = timm->table->configs();
  std::vector<Config> used{tree->default_config};
  for (const Rule& rule : tree->rules)
    used.push_back(rule.config);
  for (const Config& c : used)
    CHECK(std::find(space.begin(), space.end(), c) != space.end());
  const double mine = model_log_speedup(*timm, *tree);
  for (const Config& c : space) {
    const double single = model_log_speedup(*timm, Program{{}, c});
    if (std::isfinite(single)) CHECK(mine >= single - 1e-9);
  }
  // Fewer leaves allowed: a smaller tree.
  const auto small = analytic_seed_tree(*timm, train, 2);
  REQUIRE(small);
  CHECK(small->rules.size() <= 1);
}

TEST_CASE("analytic seed in a run: timed in full where the model is a good guide, raced out "
          "after a few kernel runs where it is not, absent where it does not apply") {
  test::ScratchDir dir("tv_analytic_seed");
  EvolutionOptions o; // the defaults on recorded timings: a 30% cap
  o.seed = 0;
  // The timm GEMMs on the A100: the model's tree is far ahead of the expert.
  const auto timm = test::replay_problem("a100_timm_mm.txt");
  MockLlm m(timm->gpu, mock_options_for(*timm, {}));
  const EvolutionResult r = Evolution(*timm, m, o, dir.at("timm")).run();
  REQUIRE(r.per_operator.count("analytic seed") == 1);
  const Counters& a = r.per_operator.at("analytic seed");
  CHECK(a.full == 1);
  CHECK(a.kernel_runs > 0);
  CHECK(a.kernel_runs <= (long long)timm->train_rows.size());
  long long sum = 0;
  for (const auto& [op, c] : r.per_operator)
    sum += c.kernel_runs;
  for (const PassReport& pass : r.passes)
    sum += pass.kernel_runs;
  CHECK(sum == r.counters.kernel_runs);
  CHECK(r.counters.proposed == r.programs); // a seed is not a proposal
  const auto events = analytic_seed_events(dir.at("timm"));
  REQUIRE(events.size() == 1);
  CHECK(events[0]["stage"] == "full");
  CHECK(events[0]["kernel_runs"] == a.kernel_runs);
  CHECK(events[0]["train"].get<double>() > 1.05); // well ahead of the expert on training
  const auto baselines = compute_baselines(*timm->train, *timm->test, timm->expert,
                                           timm->backend.get(), timm->spec.tree_leaves);
  CHECK(summary_text(*timm, r, baselines).find("timed in full, it joined the database") !=
        std::string::npos);
  // Resumed after it finished: the same run, and the same lineage (rebuilt from the program
  // events, so every node carries its raw training speedup, the seeds' as the children's).
  const std::string lineage = read_file(dir.at("timm") + "/lineage.graphml");
  const EvolutionResult again = Evolution(*timm, m, o, dir.at("timm")).resume();
  CHECK(read_file(dir.at("timm") + "/lineage.graphml") == lineage);
  CHECK(print_program(again.best.program) == print_program(r.best.program));
  CHECK(again.counters.to_json() == r.counters.to_json());
  CHECK(again.per_operator.at("analytic seed").to_json() == a.to_json());

  // The random A100 shapes: the model's tree loses to the expert there and is stopped early.
  const auto random = test::replay_problem("a100_mm.txt");
  MockLlm mr(random->gpu, mock_options_for(*random, {}));
  const EvolutionResult rr = Evolution(*random, mr, o, dir.at("random")).run();
  REQUIRE(rr.per_operator.count("analytic seed") == 1);
  const Counters& ar = rr.per_operator.at("analytic seed");
  CHECK(ar.full == 0);
  CHECK(ar.race_reject + ar.probe_reject == 1);
  CHECK(ar.kernel_runs < (long long)random->train_rows.size() / 2);
  const auto raced = analytic_seed_events(dir.at("random"));
  REQUIRE(raced.size() == 1);
  CHECK(raced[0]["stage"] != "full");
  const std::string said =
      summary_text(*random, rr,
                   compute_baselines(*random->train, *random->test, random->expert,
                                     random->backend.get(), random->spec.tree_leaves));
  CHECK(said.find(ar.race_reject ? "stopped by the race" : "stopped at the probe shapes") !=
        std::string::npos);

  // Off, or on the analytic model, or without a cap: none.
  EvolutionOptions off = o;
  off.analytic_seed = false;
  CHECK(Evolution(*timm, m, off).run().per_operator.count("analytic seed") == 0);
  EvolutionOptions uncapped = o;
  uncapped.kernel_runs = KernelRunBudget::parse("none");
  uncapped.budget = 50;
  CHECK(Evolution(*timm, m, uncapped).run().per_operator.count("analytic seed") == 0);
  const Problem& lec = test::lecture_problem("h100");
  MockLlm lm(lec.gpu);
  EvolutionOptions a_o;
  a_o.budget = 50;
  CHECK(Evolution(lec, lm, a_o).run().per_operator.count("analytic seed") == 0);

  // The option travels in the run's options; older runs, written without it, had none.
  nlohmann::json j = o.to_json();
  CHECK(j["analytic_seed"] == true);
  CHECK(EvolutionOptions::from_json(j).analytic_seed);
  j.erase("analytic_seed");
  CHECK_FALSE(EvolutionOptions::from_json(j).analytic_seed);
}

} // namespace analytic_seed_test
