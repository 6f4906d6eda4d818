// The split study: each row's per-M figures are the baseline of that split, the gaps and the
// summary follow from the runs, the report cites its own tables, results do not depend on the
// thread count, bad options are refused, and the binary prints the same study as JSON.
#include "evolve/evolution.hpp"
#include "evolve/mock_llm.hpp"
#include "experiments/split_study.hpp"
#include "experiments/study_problem.hpp"
#include "ir/error.hpp"
#include "ir/text.hpp"
#include "models/data_dir.hpp"
#include "models/progress.hpp"
#include "support/shell.hpp"

#include <cmath>
#include <doctest/doctest.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <set>

// In a namespace of its own: the test files are compiled several to a unit (unity build).
namespace split_study_test {

using namespace tv;

namespace {

SplitStudyResult small(int threads = 0) {
  SplitStudyOptions o;
  o.run.budget = 60;
  o.splits = 3;
  o.seeds = 2;
  o.threads = threads;
  return run_split_study(o);
}

/// The public H100 recordings, split by (M, N, K).
SplitStudyOptions replay_by_size() {
  SplitStudyOptions o;
  o.problem.shapes = TILEVOLVE_SOURCE_DIR "/data/replay/h100_shapes.csv";
  o.problem.backend = "replay:" TILEVOLVE_SOURCE_DIR "/data/replay/h100_mm.txt";
  o.problem.expert = TILEVOLVE_SOURCE_DIR "/data/experts/h100_inductor.py";
  o.problem.split = "random-mnk";
  return o;
}

/// A study on the A100 HuggingFace GEMMs with the defaults (runs stop at the 30% cap).
SplitStudyOptions a100_hf(int splits) {
  SplitStudyOptions o;
  o.problem.backend = "replay:" TILEVOLVE_SOURCE_DIR "/data/replay/a100_hf_mm.txt";
  o.problem.gpu_is_default = true;
  o.splits = splits;
  o.seeds = 1;
  return o;
}

/// The run of seed 0 on `row`'s split, loaded on its own (not derived from a study's table),
/// with the study's budget.
EvolutionResult run_alone(const SplitStudyOptions& o, const SplitRow& row) {
  ProblemSpec spec = o.problem;
  spec.seed = row.split_seed;
  const auto problem = load_problem(spec);
  MockLlm m(problem->gpu, mock_options_for(*problem, {}));
  EvolutionOptions eo;
  eo.seed = 0;
  eo.budget = o.run.budget;
  return Evolution(*problem, m, eo).run();
}

} // namespace

TEST_CASE("split_study: rows, gaps and summary follow from the runs and the baselines") {
  const SplitStudyResult r = small();
  REQUIRE(r.rows.size() == 3);
  double sum = 0, sum_train = 0;
  int at_least = 0, single = 0, tree_single = 0, below = 0, below_tree = 0;
  double worst = 1;
  for (std::size_t i = 0; i < r.rows.size(); ++i) {
    const SplitRow& row = r.rows[i];
    CAPTURE(i);
    CHECK(row.split_seed == i);
    // The per-M figures are those of the per-M table built on that split's training half.
    const StudyProblem p = load_study_problem("h100", "random", i);
    CHECK(row.per_m_test.fraction_of_oracle ==
          doctest::Approx(p.baseline("per_m_table").test.fraction_of_oracle));
    CHECK(row.per_m_train.fraction_of_oracle ==
          doctest::Approx(p.baseline("per_m_table").train.fraction_of_oracle));
    CHECK(row.best_single_test.fraction_of_oracle ==
          doctest::Approx(p.baseline("best_single").test.fraction_of_oracle));
    CHECK(r.report.sections.at(0).tables.at(0).rows.at(i).at(7) ==
          format_percent(row.best_single_test.fraction_of_oracle));
    REQUIRE(row.evolved.runs.size() == 2);
    const double a = row.evolved.runs[0].best_test.fraction_of_oracle;
    const double b = row.evolved.runs[1].best_test.fraction_of_oracle;
    CHECK(row.evolved.test_fraction.median == doctest::Approx((a + b) / 2));
    CHECK(row.gap == doctest::Approx((a + b) / 2 - row.per_m_test.fraction_of_oracle));
    sum += row.gap;
    sum_train += row.evolved.train_fraction.median - row.per_m_train.fraction_of_oracle;
    at_least += row.gap >= 0;
    single += row.evolved.test_fraction.median >= row.best_single_test.fraction_of_oracle;
    tree_single += row.tree_test.fraction_of_oracle >= row.best_single_test.fraction_of_oracle;
    for (const double run : {a, b}) {
      below += run - row.tree_test.fraction_of_oracle < -0.01;
      worst = std::min(worst, run - row.tree_test.fraction_of_oracle);
      below_tree += run < row.tree_test.fraction_of_oracle;
    }
  }
  CHECK(r.splits_at_least_best_single == single);
  CHECK(r.tree_splits_at_least_best_single == tree_single);
  // Single runs against their split's tree: every run counted, the lowest one named.
  CHECK(r.runs == 6);
  CHECK(r.runs_below_tree_by_1pt == below);
  CHECK(r.worst_run_tree_gap == doctest::Approx(worst));
  // Of the runs below their tree, those one shape alone puts there are among them, and each
  // shape named counts at least one of them.
  CHECK(r.runs_below_tree == below_tree);
  CHECK(r.runs_below_tree_by_one_shape <= r.runs_below_tree);
  int named = 0;
  for (const auto& [shape, runs] : r.one_shape_losses) {
    CHECK(runs >= 1);
    named += runs;
  }
  CHECK(named == r.runs_below_tree_by_one_shape);
  // Different splits give different per-M tables (the study is not one split three times).
  CHECK(r.rows[0].per_m_test.fraction_of_oracle != r.rows[1].per_m_test.fraction_of_oracle);
  CHECK(r.mean_gap == doctest::Approx(sum / 3));
  CHECK(r.mean_train_gap == doctest::Approx(sum_train / 3));
  CHECK(r.splits_at_least == at_least);
  // Scatter of single runs (population sd) and the standard error of the mean gap (sample sd
  // over the splits / sqrt(splits)), recomputed from the runs.
  std::vector<double> run_gaps;
  for (const SplitRow& row : r.rows)
    for (const auto& run : row.evolved.runs)
      run_gaps.push_back(run.best_test.fraction_of_oracle - row.per_m_test.fraction_of_oracle);
  double m = 0, ss = 0;
  for (double g : run_gaps)
    m += g / double(run_gaps.size());
  for (double g : run_gaps)
    ss += (g - m) * (g - m);
  CHECK(r.run_gap_sd == doctest::Approx(std::sqrt(ss / double(run_gaps.size()))));
  double gs = 0;
  for (const SplitRow& row : r.rows)
    gs += (row.gap - r.mean_gap) * (row.gap - r.mean_gap);
  CHECK(r.mean_gap_se == doctest::Approx(std::sqrt(gs / 2 / 3)));
  CHECK(check_citations(r.report).empty());
  const ReportTable& t = r.report.sections.at(0).tables.at(0);
  REQUIRE(t.rows.size() == 3);
  CHECK(t.rows[1][6] == format_points(r.rows[1].gap));
  CHECK(t.rows[2][2] == format_percent(r.rows[2].per_m_test.fraction_of_oracle));
  const ReportTable& s = r.report.sections.at(0).tables.at(1);
  CHECK(s.rows.at(0).at(1) == format_points(r.mean_gap));
  REQUIRE(s.rows.size() == 15);
  CHECK(s.rows[11][0] == "splits where the evolved median is at least the best single config");
  CHECK(s.rows[11][1] == fmt::format("{} of 3", single));
  CHECK(s.rows[12][1] == fmt::format("{} of 3", tree_single));
  CHECK(s.rows[13][1] == fmt::format("{} of 6 (the lowest {})", below, format_points(worst)));
  CHECK(s.rows[14][1].rfind(fmt::format("{} of {}", r.runs_below_tree_by_one_shape, below_tree),
                            0) == 0);
}

TEST_CASE("split_study: the thread count does not change the results") {
  const SplitStudyResult a = small(1), b = small(2);
  REQUIRE(a.rows.size() == b.rows.size());
  for (std::size_t i = 0; i < a.rows.size(); ++i)
    for (std::size_t s = 0; s < a.rows[i].evolved.runs.size(); ++s)
      CHECK(print_program(a.rows[i].evolved.runs[s].best.program) ==
            print_program(b.rows[i].evolved.runs[s].best.program));
  CHECK(a.report.text() == b.report.text());
}

TEST_CASE("split_study: bad options are refused") {
  SplitStudyOptions o;
  o.run.budget = 10;
  o.splits = 0;
  CHECK_THROWS_AS(run_split_study(o), InputError);
  o.splits = 1;
  o.seeds = 0;
  CHECK_THROWS_AS(run_split_study(o), InputError);
  o.seeds = 1;
  o.run.budget = -1;
  CHECK_THROWS_AS(run_split_study(o), InputError);
  o.run.budget = 10;
  o.problem.split = "model:llama3-8b";
  CHECK_THROWS_AS(run_split_study(o), InputError);
  o.problem.split = "random";
  o.problem.gpu = "nosuch";
  CHECK_THROWS_AS(run_split_study(o), InputError);
}

TEST_CASE("split_study: the binary prints the study as JSON, and bad options exit 2") {
  const auto r = tv::test::run_shell(std::string(TILEVOLVE_BINARY) +
                                     " splits --splits 2 --seeds 2 --budget 40 --json 2>/dev/null");
  REQUIRE(r.status == 0);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j["command"] == "splits");
  REQUIRE(j["splits"].size() == 2);
  double sum = 0;
  for (const auto& row : j["splits"]) {
    REQUIRE(row["evolved"]["test_fraction_of_oracle"].size() == 2);
    const double med = (row["evolved"]["test_fraction_of_oracle"][0].get<double>() +
                        row["evolved"]["test_fraction_of_oracle"][1].get<double>()) /
                       2;
    CHECK(row["test_gap"].get<double>() ==
          doctest::Approx(med - row["per_m_table"]["test_fraction_of_oracle"].get<double>()));
    sum += row["test_gap"].get<double>();
  }
  CHECK(j["mean_test_gap"].get<double>() == doctest::Approx(sum / 2));
  int single = 0, tree_single = 0;
  for (const auto& row : j["splits"]) {
    const double best = row["best_single_config"]["test_fraction_of_oracle"].get<double>();
    single += row["evolved"]["test_median"].get<double>() >= best;
    tree_single += row["decision_tree"]["test_fraction_of_oracle"].get<double>() >= best;
  }
  CHECK(j["splits_at_least_best_single_config"] == single);
  CHECK(j["tree_splits_at_least_best_single_config"] == tree_single);
  int below = 0;
  double worst = 1;
  for (const auto& row : j["splits"])
    for (const auto& run : row["evolved"]["test_fraction_of_oracle"]) {
      const double g =
          run.get<double>() - row["decision_tree"]["test_fraction_of_oracle"].get<double>();
      below += g < -0.01;
      worst = std::min(worst, g);
    }
  CHECK(j["runs"] == 4);
  CHECK(j["runs_below_tree_by_1pt"] == below);
  CHECK(j["worst_run_gap_to_tree"].get<double>() == doctest::Approx(worst));
  const auto bad =
      tv::test::run_shell(std::string(TILEVOLVE_BINARY) + " splits --seeds 0 --budget 10 2>&1");
  CHECK(bad.status == 2);
  CHECK(bad.out.find("tilevolve: error: --seeds: expected an integer from 1 to 10000, got '0'") !=
        std::string::npos);
}

TEST_CASE("split_study: recorded measurements with a split by (M, N, K)") {
  SplitStudyOptions o = replay_by_size();
  o.run.budget = 40;
  o.splits = 2;
  o.seeds = 1;
  const SplitStudyResult r = run_split_study(o);
  REQUIRE(r.rows.size() == 2);
  for (const SplitRow& row : r.rows) {
    ProblemSpec spec = o.problem;
    spec.seed = row.split_seed;
    const StudyProblem p = load_study_problem(spec);
    CHECK(row.per_m_test.fraction_of_oracle ==
          doctest::Approx(p.baseline("per_m_table").test.fraction_of_oracle));
    // The mock stayed inside the recorded configs: every run's best program can be timed.
    const EvolutionResult& run = row.evolved.runs.at(0);
    CHECK(run.best_test.valid);
    CHECK(p.problem->static_issues(run.best.program).empty());
  }
  CHECK(r.report.intro.find("by (M, N, K)") != std::string::npos);
  CHECK(r.report.intro.find("replay") != std::string::npos);
}

TEST_CASE("split_study: range splits, one per feature and end, from the binary") {
  // Eight split seeds: the eight train/test pairs of `--split range`, each with test shapes
  // beyond the training ones on its feature (models/split.cpp); the study says so.
  const auto r = tv::test::run_shell(std::string(TILEVOLVE_BINARY) +
                                     " splits --split range --splits 8 --seeds 1 --budget 40 "
                                     "--json 2>/dev/null");
  REQUIRE(r.status == 0);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j["split"] == "range");
  REQUIRE(j["splits"].size() == 8);
  std::set<double> trees;
  for (std::size_t k = 0; k < 8; ++k) {
    CHECK(j["splits"][k]["split_seed"] == k);
    trees.insert(j["splits"][k]["decision_tree"]["test_fraction_of_oracle"].get<double>());
  }
  CHECK(trees.size() > 4); // different pairs, not one split eight times
  const auto text = tv::test::run_shell(std::string(TILEVOLVE_BINARY) +
                                        " splits --split range --splits 2 --seeds 1 --budget 40 "
                                        "2>/dev/null");
  REQUIRE(text.status == 0);
  CHECK(text.out.find("over 2 range splits") != std::string::npos);
  CHECK(tv::test::unwrapped(text.out).find("testing on the other end") != std::string::npos);
  // More than the eight pairs would count some twice: refused.
  const auto nine = tv::test::run_shell(std::string(TILEVOLVE_BINARY) +
                                        " splits --split range --splits 9 --budget 10 2>&1");
  CHECK(nine.status == 2);
  CHECK(nine.out.find("--split range has 8 distinct train/test pairs (split seeds 0 to 7); "
                      "--splits 9 would count some twice") != std::string::npos);
}

TEST_CASE("split_study: --stagnation and --rule-penalty reach every run") {
  SplitStudyOptions o = replay_by_size();
  const int budget = 600;
  o.run.budget = budget;
  o.splits = 2;
  o.seeds = 2;
  // Racing off: what it stops, a capped run times in full at the end, so with it a stopped run
  // may time more pairs than one that ran to the budget without a cap (cascade_race_test).
  o.run.cascade.race_batch = 0;
  // And no analytic seed: it starts capped runs only, so a capped run would time its pairs
  // where the uncapped one does not (analytic_seed_test).
  o.run.analytic_seed = false;
  // On recorded timings a run stops by default after 200 programs without a new best or at
  // 30% of exhaustive tuning; without either stop every run goes to the budget.
  const SplitStudyResult defaults = run_split_study(o);
  CHECK(defaults.options.run.stagnation == 200);
  CHECK(defaults.options.run.kernel_runs.text() == "30%");
  CHECK(defaults.report.intro.find("stops after 200 programs without a new best, at most 30% of "
                                   "the kernel runs of exhaustive tuning") != std::string::npos);
  o.run.stagnation = 0;
  o.run.kernel_runs = KernelRunBudget{};
  const SplitStudyResult full = run_split_study(o);
  CHECK(full.report.intro.find("without a new best") == std::string::npos);
  for (std::size_t i = 0; i < full.rows.size(); ++i)
    for (std::size_t s = 0; s < full.rows[i].evolved.runs.size(); ++s) {
      const EvolutionResult& d = defaults.rows[i].evolved.runs[s];
      CHECK(d.stop_reason != "budget");
      CHECK(d.programs < budget);
      // Leaf exploration spends what a stopped run leaves of its cap (a run without a cap, at
      // most 1% of exhaustive tuning); the search itself times no more.
      const EvolutionResult& f = full.rows[i].evolved.runs[s];
      const long long d_explored = d.pass("leaf-exploration")->kernel_runs;
      const long long f_explored = f.pass("leaf-exploration")->kernel_runs;
      CHECK(f_explored <= f.exhaustive_train_runs / 100);
      CHECK(d.counters.kernel_runs - d_explored <= f.counters.kernel_runs - f_explored);
    }
  o.run.stagnation = 30;
  const SplitStudyResult stopped = run_split_study(o);
  for (std::size_t i = 0; i < full.rows.size(); ++i)
    for (std::size_t s = 0; s < full.rows[i].evolved.runs.size(); ++s) {
      const EvolutionResult& a = full.rows[i].evolved.runs[s];
      const EvolutionResult& b = stopped.rows[i].evolved.runs[s];
      CHECK(a.stop_reason == "budget");
      CHECK(a.programs == budget);
      // The stopped run stops when 30 programs in a row found no new best, before the budget,
      // and never costs more kernel runs than the full one.
      CHECK(b.stop_reason == "stagnation");
      CHECK(b.programs < budget);
      CHECK(b.counters.kernel_runs <= a.counters.kernel_runs);
    }
  CHECK(stopped.report.intro.find("stops after 30 programs without a new best") !=
        std::string::npos);
  // A rule penalty of 0 lets rules stay that the default 0.01 (recorded timings) removes from
  // the searched programs (what the runs return may be a refitted tree either way).
  o.run.stagnation = 0;
  o.run.rule_penalty = 0;
  const SplitStudyResult free = run_split_study(o);
  std::size_t rules_default = 0, rules_free = 0;
  for (std::size_t i = 0; i < full.rows.size(); ++i)
    for (std::size_t s = 0; s < full.rows[i].evolved.runs.size(); ++s) {
      rules_default += full.rows[i].evolved.runs[s].best_searched.program.rules.size();
      rules_free += free.rows[i].evolved.runs[s].best_searched.program.rules.size();
    }
  CHECK(rules_free > rules_default);
  CHECK(free.report.intro.find("rule penalty 0") != std::string::npos);
  const auto cli = tv::test::run_shell(std::string(TILEVOLVE_BINARY) +
                                       " splits --backend replay:" TILEVOLVE_SOURCE_DIR
                                       "/data/replay/h100_mm.txt --split random-mnk --splits 1 "
                                       "--seeds 1 --budget 200 --stagnation 25 --rule-penalty 0.01 "
                                       "--json 2>/dev/null");
  REQUIRE(cli.status == 0);
  const auto j = nlohmann::json::parse(cli.out);
  CHECK(j["stagnation"] == 25);
  CHECK(j["rule_penalty"].get<double>() == doctest::Approx(0.01));
  const auto bad = tv::test::run_shell(std::string(TILEVOLVE_BINARY) +
                                       " splits --rule-penalty 0.7 --budget 10 2>&1");
  CHECK(bad.status == 2);
  CHECK(bad.out.find("--rule-penalty") != std::string::npos);
}

TEST_CASE("split_study: the vendor library's column when the backend times it") {
  SplitStudyOptions o = replay_by_size();
  o.problem.vendor_dispatch = true;
  o.run.budget = 30;
  o.splits = 2;
  o.seeds = 1;
  const SplitStudyResult r = run_split_study(o);
  for (const SplitRow& row : r.rows) {
    REQUIRE(row.vendor_test.has_value());
    ProblemSpec spec = o.problem;
    spec.seed = row.split_seed;
    const StudyProblem p = load_study_problem(spec);
    CHECK(row.vendor_test->fraction_of_oracle ==
          doctest::Approx(p.baseline("vendor").test.fraction_of_oracle));
    CHECK(row.vendor_test->fraction_of_oracle < 1.0);
  }
  CHECK(r.report.text().find("vendor library test") != std::string::npos);
  CHECK(r.report.intro.find("min(oracle, vendor library)") != std::string::npos);
  // The analytic model times no vendor library: no such column.
  CHECK(small().report.text().find("vendor library test") == std::string::npos);
  CHECK(small().rows.front().vendor_test == std::nullopt);
}

TEST_CASE(
    "a split study on one fixed train/test pair runs the seeds on it, and refuses more splits") {
  tv::SplitStudyOptions o;
  o.problem.gpu = "h100";
  o.problem.test_shapes = tv::data_dir() + "/shapes/six_models.csv";
  o.splits = 1;
  o.seeds = 2;
  o.run.budget = 40;
  const tv::SplitStudyResult r = tv::run_split_study(o);
  REQUIRE(r.rows.size() == 1);
  CHECK(r.rows[0].evolved.runs.size() == 2);
  CHECK(r.report.title.find("one fixed train/test pair") != std::string::npos);
  // The cost-matched tree's figure is a real fraction of the oracle.
  CHECK(r.rows[0].cost_tree_test > 0.3);
  CHECK(r.rows[0].cost_tree_test <= 1.0);
  o.splits = 3;
  CHECK_THROWS_AS(tv::run_split_study(o), tv::InputError);
}

TEST_CASE("split_study: a split of a study is the run of that split seed, racing included") {
  // A100 HF with the defaults: the runs stop at the 30% cap, so they race from half of it.
  // Splits after the first are derived from the first one's table (rows numbered differently
  // from a fresh load), and must still give what `evolve --split-seed S` gives.
  const SplitStudyOptions o = a100_hf(4);
  const SplitStudyResult r = run_split_study(o);
  REQUIRE(r.rows.size() == 4);
  bool raced = false;
  for (const SplitRow& row : r.rows) {
    CAPTURE(row.split_seed);
    const EvolutionResult alone = run_alone(o, row);
    const EvolutionResult& in_study = row.evolved.runs.at(0);
    CHECK(in_study.best_test.fraction_of_oracle == alone.best_test.fraction_of_oracle);
    CHECK(in_study.counters.kernel_runs == alone.counters.kernel_runs);
    CHECK(in_study.counters.race_reject == alone.counters.race_reject);
    raced = raced || alone.counters.race_reject > 0;
  }
  CHECK(raced); // the case this guards: some run stopped a child by racing
  // --first-split: the same splits, without the ones before.
  SplitStudyOptions later = o;
  later.first_split = 2;
  later.splits = 2;
  const SplitStudyResult l = run_split_study(later);
  REQUIRE(l.rows.size() == 2);
  for (std::size_t k = 0; k < 2; ++k) {
    CHECK(l.rows[k].split_seed == r.rows[k + 2].split_seed);
    CHECK(l.rows[k].evolved.test_fraction.median == r.rows[k + 2].evolved.test_fraction.median);
    CHECK(l.rows[k].tree_test.fraction_of_oracle == r.rows[k + 2].tree_test.fraction_of_oracle);
  }
  CHECK(l.report.intro.find("split seeds 2 to 3") != std::string::npos);
  later.first_split = -1;
  CHECK_THROWS_AS(run_split_study(later), InputError);
  later.first_split = 1;
  later.splits = 1;
  later.problem.test_shapes = TILEVOLVE_SOURCE_DIR "/data/replay/a100_hf_shapes.csv";
  CHECK_THROWS_AS(run_split_study(later), InputError);
}

TEST_CASE("split_study: a later split is the run of its split seed, passes and all") {
  SplitStudyOptions o = a100_hf(2);
  o.run.budget = 120;
  const SplitStudyResult r = run_split_study(o);
  REQUIRE(r.rows.size() == 2);
  const SplitRow& row = r.rows[1]; // derived from split 0's table
  const EvolutionResult alone = run_alone(o, row);
  const EvolutionResult& in_study = row.evolved.runs.at(0);
  REQUIRE(alone.passes.size() == in_study.passes.size());
  for (std::size_t i = 0; i < alone.passes.size(); ++i)
    CHECK(in_study.passes[i].to_json(false) == alone.passes[i].to_json(false));
  CHECK(in_study.best_test.fraction_of_oracle == alone.best_test.fraction_of_oracle);
  CHECK(in_study.counters.kernel_runs == alone.counters.kernel_runs);
}

TEST_CASE("split_study: its runs report their progress, one report per finished run, in order") {
  std::vector<std::pair<std::size_t, std::size_t>> seen;
  const ProgressObserver before =
      set_progress_observer([&](std::string_view what, std::size_t done, std::size_t total) {
        if (what == "evolution runs") seen.emplace_back(done, total);
      });
  const SplitStudyResult r = small(2);
  set_progress_observer(before);
  REQUIRE(seen.size() == 6); // 3 splits x 2 seeds
  for (std::size_t i = 0; i < seen.size(); ++i) {
    CHECK(seen[i].first == i + 1);
    CHECK(seen[i].second == 6);
  }
  CHECK(r.rows.size() == 3);
}

} // namespace split_study_test
