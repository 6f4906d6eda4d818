#include "evolve/model_selection.hpp"

#include "evolve/evolution.hpp"
#include "evolve/mock_llm.hpp"
#include "evolve/run_dir.hpp"
#include "ir/error.hpp"
#include "ir/simplify.hpp"
#include "ir/text.hpp"
#include "ir/threshold_placement.hpp"
#include "ir/wave_guards.hpp"
#include "support/fixtures.hpp"
#include "support/temp_dir.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <set>
#include <string>
#include <utility>

// In a namespace of its own: the test files are compiled several to a unit (unity build).
namespace model_selection_test {

using namespace tv;

namespace {

EvolutionOptions options(std::uint64_t seed, int folds) {
  EvolutionOptions o;
  o.seed = seed;
  o.budget = 160;
  o.folds = folds;
  return o;
}

std::vector<Shape> train_shapes(const Problem& p) {
  std::vector<Shape> out;
  for (auto r : p.train_rows)
    out.push_back(p.shape(r));
  return out;
}

} // namespace

TEST_CASE("cross-validation picks a charge from the grid, the same for the same seed") {
  const Problem& p = test::lecture_problem("h100");
  MockLlm m(p.gpu);
  const ModelSelection a = cross_validate(p, m, options(1, 3));
  const ModelSelection b = cross_validate(p, m, options(1, 3));
  CHECK(a.to_json() == b.to_json());
  CHECK(a.folds == 3);
  REQUIRE(a.penalties == selection_penalties());
  REQUIRE(a.held_out.size() == a.penalties.size());
  for (double v : a.held_out)
    CHECK(v > 0.5);
  // The chosen charge is one whose held-out figure is the best (the larger one on ties).
  std::size_t best = 0;
  for (std::size_t i = 0; i < a.held_out.size(); ++i)
    if (a.held_out[i] >= a.held_out[best]) best = i;
  CHECK(a.penalty == a.penalties[best]);
  // Charges only remove rules: the folds' choices get no larger as the charge grows.
  for (std::size_t i = 1; i < a.mean_sizes.size(); ++i)
    CHECK(a.mean_sizes[i] <= a.mean_sizes[i - 1]);
  CHECK(a.kernel_runs > 0);
  CHECK(ModelSelection::from_json(a.to_json()).to_json() == a.to_json());
  CHECK_THROWS_AS(ModelSelection::from_json(nlohmann::json{{"folds", 2}}), InputError);
}

TEST_CASE("too few training shapes: no cross-validation") {
  ProblemSpec spec;
  spec.gpu = "h100";
  spec.inline_shapes = {"1,4096,4096", "64,4096,4096", "1024,4096,4096"};
  spec.split = "none";
  auto p = load_problem(spec);
  MockLlm m(p->gpu);
  const ModelSelection s = cross_validate(*p, m, options(0, 4));
  CHECK(s.folds == 0);
  CHECK(s.penalty == 0);
  CHECK(s.kernel_runs == 0);
}

TEST_CASE("a run with model selection returns what cross-validation preferred") {
  const Problem& p = test::lecture_problem("h100");
  MockLlm m(p.gpu);
  for (std::uint64_t seed : {2, 3}) {
    CAPTURE(seed);
    const EvolutionResult r = Evolution(p, m, options(seed, 3)).run();
    REQUIRE(r.selection.folds == 3);
    REQUIRE(r.selection.tree_held_out.size() == r.selection.leaves.size());
    const auto train = train_shapes(p);
    if (r.selection.tree_leaves > 0) {
      // A tree did strictly better on the held-out folds than every choice of the front.
      for (double v : r.selection.held_out)
        CHECK(v < *std::max_element(r.selection.tree_held_out.begin(),
                                    r.selection.tree_held_out.end()));
      CHECK(r.best.program.rules.size() + 1 <= std::size_t(r.selection.tree_leaves));
      CHECK(r.selected_from == "tree " + std::to_string(r.selection.tree_leaves));
    } else {
      const auto chosen = r.front.choose(r.selection.penalty);
      REQUIRE(chosen.has_value());
      CHECK(r.best.id == chosen->candidate.id);
      // Placement keeps every training decision, so the training figure is the front's.
      for (const Shape& s : train)
        CHECK(r.best.program.choose(s) == chosen->candidate.program.choose(s));
      CHECK(r.best_train.speedup_vs_expert == doctest::Approx(chosen->speedup).epsilon(1e-12));
      // Placed, then kept to its waves, as the folds scored it.
      const Program placed =
          place_thresholds(chosen->candidate.program, train, p.gpu.units).program;
      CHECK(guard_waves(placed, train, p.gpu.units).program == r.best.program);
      CHECK(r.selected_from == "front");
    }
    CHECK(equivalent(r.best.program, r.best_simplified));
    // What the folds timed counts once, as its own line of the cost.
    CHECK(r.per_operator.at("selection").kernel_runs == r.selection.kernel_runs);
    CHECK(r.counters.kernel_runs >= r.selection.kernel_runs);
    // The cost-matched tree is a real program of the problem's configs.
    CHECK(p.test->score(r.cost_matched_tree).valid);
  }
}

TEST_CASE("without folds, placement, wave guards, polish or refit validation the run returns the "
          "best training score") {
  const Problem& p = test::lecture_problem("h100");
  MockLlm m(p.gpu);
  EvolutionOptions o = options(2, 0);
  o.place_thresholds = false;
  o.refit_validation = false;
  o.wave_guards = false;
  o.polish = false;
  const EvolutionResult r = Evolution(p, m, o).run();
  CHECK(r.selection.folds == 0);
  CHECK(r.best.id == r.best_searched.id);
  CHECK(r.best.program == r.best_searched.program);
  CHECK(r.placement.empty());
  CHECK(r.wave_guards.empty());
  CHECK(r.polish.empty());
  CHECK(r.polish_kernel_runs == 0);
  CHECK(r.per_operator.count("selection") == 0);
}

TEST_CASE("old run configurations without 'folds' read back with model selection off") {
  nlohmann::json j = options(0, 4).to_json();
  CHECK(EvolutionOptions::from_json(j).folds == 4);
  j.erase("folds");
  CHECK(EvolutionOptions::from_json(j).folds == 0);
}

TEST_CASE("fold counts below 2 other than 0 are refused") {
  const Problem& p = test::lecture_problem("h100");
  MockLlm m(p.gpu);
  CHECK_THROWS_AS(Evolution(p, m, options(0, 1)), InputError);
  CHECK_THROWS_AS(Evolution(p, m, options(0, -1)), InputError);
}

TEST_CASE("a run with model selection resumes from a checkpoint to the same result") {
  const Problem& p = test::lecture_problem("h100");
  MockLlm m(p.gpu);
  EvolutionOptions o = options(4, 3);
  o.checkpoint_every = 40;
  const test::ScratchDir scratch("tilevolve_msel");
  const auto fresh = [&](const std::string& name) { return scratch.at(name); }; // not made yet
  const std::string full_dir = fresh("full"), part_dir = fresh("part"), src = fresh("src");
  const EvolutionResult full = Evolution(p, m, o, full_dir).run();
  {
    Evolution evo(p, m, o, src);
    evo.on_progress([&](const Progress& pr) {
      if (pr.done == 80) std::filesystem::copy(src, part_dir);
    });
    evo.run();
  }
  const EvolutionResult again = Evolution(p, m, o, part_dir).resume();
  CHECK(again.resumed);
  CHECK(print_program(again.best.program) == print_program(full.best.program));
  CHECK(again.selection.to_json(false) == full.selection.to_json(false));
  CHECK(again.counters.to_json() == full.counters.to_json());
  CHECK(read_file(part_dir + "/events.ndjson") == read_file(full_dir + "/events.ndjson"));
  // Cross-validation ran once: its event is in the log once, before the first program.
  const std::string events = read_file(full_dir + "/events.ndjson");
  CHECK(events.find("\"event\":\"selection\"") != std::string::npos);
  CHECK(events.find("\"event\":\"selection\"") == events.rfind("\"event\":\"selection\""));
}

TEST_CASE("under a kernel-run cap the folds share half of it and the whole run stays within it") {
  const auto p = test::replay_problem("a100_hf_mm.txt");
  MockLlm m(p->gpu, mock_options_for(*p, {}));
  EvolutionOptions o = options(0, 4);
  o.kernel_runs = KernelRunBudget::parse("30%");
  const EvolutionResult r = Evolution(*p, m, o).run();
  REQUIRE(r.selection.folds == 4);
  const long long cap = o.kernel_runs.cap(r.exhaustive_train_runs);
  CHECK(r.selection.kernel_runs > 0);
  CHECK(r.selection.kernel_runs <= (long long)(kSelectionCapShare * double(cap)));
  CHECK(r.counters.kernel_runs <= cap);
  // The main search had the rest of the cap to time new pairs with.
  CHECK(r.counters.kernel_runs > r.selection.kernel_runs);
  CHECK(r.per_operator.at("selection").kernel_runs == r.selection.kernel_runs);
}

TEST_CASE("a run that knows another run's pairs does not time them again") {
  const auto p = test::replay_problem("a100_mm.txt");
  MockLlm m(p->gpu, mock_options_for(*p, {}));
  EvolutionOptions o = options(1, 0);
  o.budget = 40;
  o.kernel_runs = KernelRunBudget::parse("none");
  Evolution first(*p, m, o);
  const EvolutionResult a = first.run();
  REQUIRE(a.per_operator.at("seed").kernel_runs > 0);
  MockLlm m2(p->gpu, mock_options_for(*p, {}));
  Evolution second(*p, m2, o);
  second.know_pairs(first.timed_pairs());
  const EvolutionResult b = second.run();
  // The expert's pairs were all timed by the first run: the second's start costs nothing.
  CHECK(b.per_operator.at("seed").kernel_runs == 0);
  CHECK(b.counters.kernel_runs < a.counters.kernel_runs);
  // What it knew is among its pairs, every one of them.
  const auto pairs_of = [](const nlohmann::json& cache) {
    std::set<std::pair<std::string, std::size_t>> out;
    for (const auto& e : cache)
      for (const auto& row : e["rows"])
        out.emplace(e["config"].get<std::string>(), row.get<std::size_t>());
    return out;
  };
  const auto knew = pairs_of(first.timed_pairs()), has = pairs_of(second.timed_pairs());
  REQUIRE(!knew.empty());
  CHECK(std::includes(has.begin(), has.end(), knew.begin(), knew.end()));
}

} // namespace model_selection_test
