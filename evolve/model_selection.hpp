#pragma once
/// Model selection by k-fold cross-validation on the training shapes: how complex a program the
/// training shapes support, estimated without the test shapes.
///
/// The training shapes are dealt into k folds. For each fold, a run of the same search (same
/// options, its own seed, no run directory) evolves on the other folds and keeps its complexity
/// front (complexity_front.hpp). For each charge per rule on a grid, the front's choice under
/// that charge, its thresholds placed between the run's training values, is timed on the
/// held-out fold. The charge whose choices do best on the held-out folds (weighted geometric
/// mean speedup over the expert; ties: the larger charge, i.e. the simpler programs) is the
/// one the main run uses to choose its result from its own front. Every pair the folds time
/// is counted as a kernel run, once, and handed to the main run's cache; each fold starts from
/// what the folds before it timed. Under a kernel-run cap the folds share kSelectionCapShare
/// of it, so the whole run (folds and main search) stays within the cap.
#include "eval/problem.hpp"
#include "evolve/mutator.hpp"

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace tv {

struct EvolutionOptions;

/// The share of a run's kernel-run cap its cross-validation folds may spend together (the main
/// search has the rest).
inline constexpr double kSelectionCapShare = 0.5;

/// The charges per rule model selection chooses from.
std::vector<double> selection_penalties();
/// The leaf limits of the refitted trees model selection compares with the front.
std::vector<int> selection_tree_leaves();

/// What cross-validation found.
struct ModelSelection {
  int folds = 0;                  ///< 0: not run (too few training shapes)
  std::vector<double> penalties;  ///< the grid
  std::vector<double> held_out;   ///< per charge: held-out speedup over the expert
  std::vector<double> mean_sizes; ///< per charge: mean size (comparisons) of the folds' choices
  double penalty = 0;             ///< the chosen charge
  /// Trees refitted on each fold run's measurements (Evolution::measured_tree), the other
  /// procedure cross-validated: per leaf limit, the held-out speedup.
  std::vector<int> leaves;
  std::vector<double> tree_held_out;
  /// > 0 when a tree of this many leaves did better on the held-out folds than every choice
  /// of the front: the run's result is then that tree refitted on the run's measurements.
  int tree_leaves = 0;
  long long kernel_runs = 0; ///< distinct pairs the folds timed
  nlohmann::json cache;      ///< those pairs (CascadeEvaluator::cache_to_json form)

  /// For checkpoints and summaries (the cache only with `with_cache`).
  nlohmann::json to_json(bool with_cache = true) const;
  /// Throws InputError on a malformed value.
  static ModelSelection from_json(const nlohmann::json& j);
};

/// Cross-validates the search `options` describes on the training shapes of `problem`. Fold
/// runs propose with `mutator.fork()` (the mock LLM with default options when the mutator
/// cannot fork, e.g. a language model: the folds estimate what the data supports, cheaply).
/// Deterministic in options.seed. With fewer than 4 training shapes it returns folds = 0 and
/// penalty 0.
ModelSelection cross_validate(const Problem& problem, const Mutator& mutator,
                              const EvolutionOptions& options);

} // namespace tv
