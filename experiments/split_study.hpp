#pragma once
/// Generalization over random splits: on each of several random half/half splits of a shape
/// set (the lecture shapes by default), evolution runs over seeds and is compared with the per-M
/// table built from the same training half. One split is one draw of the luck of which shapes land
/// in train; the study shows how much of a comparison is that luck (the spread over splits and
/// seeds) and how much is the method (the mean over splits).
#include "eval/cascade.hpp"
#include "eval/problem.hpp"
#include "evolve/evolution_options.hpp"
#include "experiments/report.hpp"
#include "experiments/seed_study.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace tv {

/// What a split study runs.
struct SplitStudyOptions {
  /// The problem: GPU, shapes, expert, backend, and the kind of split ("random" or
  /// "random-mnk"); its split seed is set per split. With test_shapes set, the one fixed
  /// train/test pair it names is the only split (the runs differ by seed alone).
  ProblemSpec problem;
  /// Every run's options (its seed is set per run); "the backend's default" values are
  /// resolved once, for the first split's problem, and the result's copy holds them resolved.
  EvolutionOptions run;
  int splits = 10; ///< random splits, split seeds first_split .. first_split+splits-1
  /// The first split seed (> 0: splits a study at 0 .. first_split-1 never looked at).
  int first_split = 0;
  int seeds = 5;          ///< evolution seeds 0 .. seeds-1 on every split
  int threads = 0;        ///< OpenMP threads for the runs (0 = default)
  MockLlmOptions mutator; ///< e.g. which features splits may bound
};

/// One split: the per-M table and the evolution runs on it.
struct SplitRow {
  std::uint64_t split_seed = 0;
  SetScore per_m_train, per_m_test; ///< the per-M table built from this split's train half
  SetScore best_single_test;        ///< the best single config of the train half, on test
  SetScore tree_train, tree_test;   ///< the decision tree fitted on the train half
  /// The vendor library alone on test, when the backend times it (recorded cuBLAS rows).
  std::optional<SetScore> vendor_test;
  /// The vendor library alone on the training half (with vendor_test).
  std::optional<SetScore> vendor_train;
  SeedStudy evolved;   ///< the runs, in seed order
  double gap = 0;      ///< median evolved test fraction of the oracle minus the per-M table's
  double tree_gap = 0; ///< median evolved test fraction of the oracle minus the tree's
  /// Median over the runs of the test figure of the tree fitted on each run's own timed pairs
  /// (EvolutionResult::cost_matched_tree), and the evolved median minus it.
  double cost_tree_test = 0, cost_tree_gap = 0;
  /// The largest kernel runs of a run, as a fraction of exhaustive tuning of the train half.
  double max_kernel_fraction = 0;
};

/// All splits and the summary over them.
struct SplitStudyResult {
  SplitStudyOptions options;
  /// The GPU profile the study ran on (a replay file's device when no --gpu chose one).
  std::string gpu;
  std::vector<SplitRow> rows; ///< in split-seed order
  double mean_gap = 0;        ///< mean of the rows' gaps
  double mean_gap_se = 0;     ///< its standard error (sample sd / sqrt(splits); NaN for 1)
  int splits_at_least = 0;    ///< splits whose gap is >= 0
  double run_gap_sd = 0;      ///< population sd of (run test - per-M test) over all runs
  double mean_train_gap = 0;  ///< mean over splits of (median train - per-M train)
  double mean_tree_gap = 0;   ///< mean of the rows' gaps to the decision tree
  double mean_tree_gap_se = 0;
  int splits_at_least_tree = 0;
  double mean_cost_tree_gap = 0; ///< mean of the rows' gaps to the cost-matched tree
  int splits_at_least_cost_tree = 0;
  /// Splits where the evolved median, and where the tree, is at least the best single config
  /// (the one config that never extrapolates: the bar on unseen sizes, random-mnk).
  int splits_at_least_best_single = 0, tree_splits_at_least_best_single = 0;
  double max_kernel_fraction = 0; ///< the largest over all runs
  /// Single runs (every seed of every split) against their split's tree: how many fall more
  /// than a point below it, and the lowest run's gap. A user runs one seed, not the median.
  int runs = 0, runs_below_tree_by_1pt = 0;
  double worst_run_tree_gap = 0;
  /// Runs below their split's tree, and of them those one test shape alone puts there (its
  /// share of the run's gap, shape_gaps, is at least the whole gap: without it the run would be
  /// at or above the tree), with the shapes that do so: label and runs, most runs first.
  int runs_below_tree = 0, runs_below_tree_by_one_shape = 0;
  std::vector<std::pair<std::string, int>> one_shape_losses;
  Report report;
};

/// Runs every split and seed (in parallel; results do not depend on the thread count); throws
/// InputError for bad options (splits or seeds < 1, budget < 0, a split other than random or
/// random-mnk, or a problem that does not load).
SplitStudyResult run_split_study(const SplitStudyOptions& options);

} // namespace tv
