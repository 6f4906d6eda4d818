#pragma once
/// The knobs of one run, in one value: what the search does, when it stops, and which passes of
/// the pipeline after it run (with each pass's own options). Defaults live here and only here:
/// the values "the backend's default" (negative numbers, a KernelRunBudget not given) are
/// resolved by with_backend_defaults, once, when a run starts. Studies hold one of these and set
/// the seed per run.
#include "eval/cascade.hpp"
#include "eval/problem.hpp"
#include "evolve/database.hpp"
#include "evolve/kernel_run_budget.hpp"

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace tv {

/// The rule penalty on recorded or measured timings (see EvolutionOptions::rule_penalty).
inline constexpr double kNoisyRulePenalty = 0.01;
/// Where kernel runs cost something (recorded or measured timings), a run stops by default
/// after this many programs without a new best ...
inline constexpr long long kCostlyStagnation = 200;
/// ... and times at most this share of exhaustive tuning of its training shapes (a program that
/// does not fit in what is left is not timed, so the share is never passed).
inline constexpr double kCostlyKernelShare = 0.30;

/// Leaf polish (leaf_polish.hpp) times at most this share of the kernel runs the run spent
/// before it (a 50,000-shape run would otherwise time a quarter million more pairs:
/// bench_large_problem).
inline constexpr double kPolishShare = 0.5;
/// A capped run races children (CascadeOptions::race_batch) once it has spent this share of
/// its kernel-run cap.
inline constexpr double kRaceFromCapShare = 0.5;
/// Before that, a capped run races a child whose new training pairs would take at least this
/// share of what is left of the cap (a child that small a share cannot cost is timed in full,
/// so where the cap is far from binding nothing changes).
inline constexpr double kRaceCostlyChildShare = 0.04;

/// Folds of refit validation and guard validation.
inline constexpr int kRefitFolds = 5;
/// The splits per node a refit's two-step lookahead weighs.
inline constexpr int kRefitLookahead = 10;
/// Refits try trees of up to this many times the baseline tree's leaf limit
/// (ProblemSpec::tree_leaves, at most kMaxTreeLeaves): the held-out figures choose the size.
inline constexpr int kRefitLeafFactor = 2;

/// Knobs of one run; all have defaults.
struct EvolutionOptions {
  // ------------------------------------------------------------ the search and its stops
  std::uint64_t seed = 0;
  long long budget = 1000; ///< programs to propose (stop when reached)
  /// Stop after this many programs without a new best (0 = off). Negative: the backend's
  /// default, 0 on the analytic model and kCostlyStagnation otherwise.
  long long stagnation = -1;
  double target_score = 0; ///< stop when the best train speedup reaches this (0 = off)
  double max_seconds = 0;  ///< stop after this wall time (0 = off; makes runs irreproducible)
  /// At most this many pairs are timed (the expert's, timed first, excepted), the passes after
  /// the search included. The first program whose new pairs (and the re-measurement of a
  /// would-be new best) do not fit in what is left is not timed (stage over_budget) and the
  /// search stops there. Not given: no cap on the analytic model, kCostlyKernelShare otherwise.
  KernelRunBudget kernel_runs = KernelRunBudget::from_backend();
  int batch = 8; ///< programs proposed between database updates
  /// Proposals per parent in one step (K). With K > 1 the K children are evaluated together
  /// and, when two or more beat the parent, their edits are merged into one more program
  /// ("merge"); a batch then holds max(1, batch / (K + 1)) parents.
  int candidates = 1;
  /// A run directory's checkpoints (checkpoint_policy.hpp): every this many programs (0 =
  /// not by count) or every this many wall seconds (0 = not by time), whichever comes first.
  long long checkpoint_every = 100;
  double checkpoint_seconds = 0;
  /// Drop rules of a child that decide no training shape before evaluating it (and, when the
  /// default decides none, let the last rule's config become the default): such a config was
  /// never timed, so it would only be an untested guess on unseen shapes.
  bool drop_unexercised = true;
  /// A child counts as better than its parent, and as a new best, only when its train speedup
  /// beats the other's by more than this fraction (the run-to-run noise of a measuring
  /// backend; 0 = any gain counts).
  double noise_threshold = 0;
  /// The search charges each rule this fraction of a program's train speedup (the database
  /// ranks speedup x (1 - rule_penalty)^rules). Reports show the plain speedup. Negative: 0 on
  /// the analytic model, kNoisyRulePenalty otherwise.
  double rule_penalty = -1;
  /// A would-be new best is re-measured this many more times before it is accepted; its
  /// score becomes that of the median times (0 = accept on the first measurement).
  int confirm_samples = 0;
  /// The analytic seed (evolve/analytic_seed.hpp): where the timings come from a complete table
  /// (not the analytic model itself) and the run has a kernel-run cap, the decision tree the
  /// analytic model fits on the training shapes joins the expert as a starting program, raced
  /// against the expert. Off: the expert alone.
  bool analytic_seed = true;
  /// Every refit of the run's measurements (the mock's refit operator, leaf exploration, refit
  /// validation, the cost-matched tree) may lean on the device's analytic model where the model
  /// orders the fitted shapes' timed pairs as the measurements do (refit.hpp). No kernel runs.
  /// Off on the analytic model (with_backend_defaults): its times are the timings there, so the
  /// prior would price the pairs a run never timed at their true cost, for free.
  bool model_prior = true;
  DatabaseOptions database;
  CascadeOptions cascade;

  // ------------------------------------------------------------ the passes after the search
  /// Passes of the pipeline (evolve/passes/pipeline.hpp) not to run, by name, sorted.
  std::vector<std::string> skip_passes;
  /// sampled-sizes: this many sizes drawn inside the training shapes' range. -1: the backend's
  /// default (kDefaultSampledSizes where it can time any shape, the analytic model; 0
  /// elsewhere, where the pass does not run). 0: the pass does not run.
  int sampled_sizes = -1;
  /// wave-guards: return rules (ir/wave_guards.hpp) for shapes one tile row high.
  bool guard_returns = true;
  /// wave-guards: floors (`tiles >= units`) on rules fitted on full grids.
  bool wave_floors = true;
  /// refit-validation: the searched program's training figure is charged with the optimism of
  /// a refitted tree of as many leaves. Off on the analytic model (with_backend_defaults).
  bool optimism_charge = true;
  /// refit-validation: trees grown with a two-step lookahead are cross-validated too.
  bool refit_lookahead = true;
  /// refit-validation: the tree's size by a charge per leaf chosen on the folds.
  bool refit_complexity = true;
  /// refit-validation: of the charges within a standard error of the best, the one whose trees
  /// do best on folds at the extremes of M, N and K.
  bool refit_extremes = true;

  /// True when the pass `name` is in skip_passes.
  bool skips(std::string_view name) const;
  /// Adds `name` to skip_passes (kept sorted, no repeats).
  void skip(const std::string& name);

  /// All options as JSON (for config.json and fingerprints).
  nlohmann::json to_json() const;
  /// Reads options written by to_json, or by an older version (switches per pass, read into
  /// skip_passes); throws InputError on bad fields.
  static EvolutionOptions from_json(const nlohmann::json& j);
};

/// How `o` differs from the defaults, for a report: ", rule penalty 0.02, skipping leaf-polish,
/// no wave floors" ("" when it does not).
std::string options_difference(const EvolutionOptions& o);

/// `o` with every "the backend's default" resolved for `problem`: the rule penalty, the
/// stagnation stop, the kernel-run cap and the sampled sizes (throws InputError for sampled
/// sizes on a backend that times only its table's shapes). On the analytic model a kernel run
/// costs nothing, so there is no stop but the budget; on recorded or measured timings a run
/// stops at kCostlyStagnation programs without a new best or at kCostlyKernelShare of
/// exhaustive tuning.
EvolutionOptions with_backend_defaults(EvolutionOptions o, const Problem& problem);

} // namespace tv
