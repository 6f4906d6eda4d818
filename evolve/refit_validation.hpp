#pragma once
/// Refit validation: whether a decision tree refitted on a run's own measurements should be
/// the run's result instead of the searched program, judged from the training shapes alone and
/// without one more kernel run. Each leaf limit's tree is cross-validated over folds of the
/// training shapes (fitted on the other folds' measurements, scored on the held-out shapes with
/// the times the run measured; a pair it never timed counts as the refit's assumed slowdown of
/// the shape's fastest, so an unmeasured choice never flatters the tree). The tree wins only
/// when that held-out estimate beats the searched program's *training* figure, which is an
/// optimistic estimate for the searched program: a conservative comparison already, so no
/// further margin is asked (the standard error is reported beside the gain).
#include "evolve/mutator.hpp"

#include <cstdint>
#include <vector>

namespace tv {

/// What refit validation measured.
struct RefitValidation {
  int folds = 0;                ///< 0: too few shapes or measurements, nothing was validated
  std::vector<int> leaves;      ///< the leaf limits tried
  std::vector<double> held_out; ///< per leaf limit: held-out speedup over the expert
  /// The leaf limit with the best held-out speedup; with `complexity`, the leaves of the tree
  /// the chosen charge picks from the fit on every shape.
  int best_leaves = 0;
  /// Its held-out speedup; with `complexity`, that of the folds' trees under the chosen charge
  /// (with off_range_leaves, each held-out shape scored by the tree that decides it).
  double best_held_out = 0;
  /// Per leaf limit, per training shape: the held-out log speedup over the expert.
  std::vector<std::vector<double>> held_out_log;
  /// Per leaf limit: how much better the folds' trees fit the shapes they were fitted on than
  /// the shapes held out from them (weighted mean log speedup, averaged over folds by held-out
  /// weight): the optimism of a training figure of that many leaves.
  std::vector<double> optimism;
  /// The trees' growth the estimate is of: 0 greedy, else TreeOptions::lookahead (validate_refit
  /// keeps the one with the better best_held_out).
  int lookahead = 0;
  /// True when the size was chosen by cost-complexity (validate_refit's `complexity`): a
  /// charge per leaf chosen on the folds, best_leaves being the full fit's tree under it.
  bool complexity = false;
  /// With complexity: the chosen charge per leaf, in mean log speedup over the training shapes
  /// (a leaf must gain this much, averaged over every training shape, to be grown).
  double leaf_charge = 0;
  /// With complexity: per training shape, the held-out log speedup of its fold's tree under the
  /// chosen charge, or with off_range_leaves under the charge that decides it there (what
  /// best_held_out averages).
  std::vector<double> charged_log;
  /// With complexity and extremes: the folds at the extremes of M, N and K that chose among the
  /// close charges (0: none, the charge with the best figure was kept).
  int extreme_folds = 0;
  /// With extremes: how many charges were within one standard error of the best figure.
  int close_charges = 0;
  /// With complexity: the leaves of the tree the charge with the best figure picks from the fit
  /// on every shape (best_leaves without the extreme folds).
  int folds_best_leaves = 0;
  /// With extremes, when the extreme folds' charge and the best one give trees of different
  /// sizes: the leaves of the extreme folds' tree, which decides the shapes outside the box of
  /// the training shapes (best_leaves, leaf_charge and figure then being the best charge's,
  /// which decides inside it). 0: one tree decides everywhere.
  int off_range_leaves = 0;
  /// With off_range_leaves: the extreme folds' charge, as leaf_charge.
  double off_range_charge = 0;

  /// Per training shape: the held-out log speedup the chosen size stands for (charged_log, or
  /// held_out_log of best_leaves); empty when nothing was validated.
  const std::vector<double>& chosen_log() const;
  /// Field by field, exactly (the same validation, to the bit).
  friend bool operator==(const RefitValidation&, const RefitValidation&) = default;
};

/// The paired comparison of a refitted tree with the searched program.
struct RefitVerdict {
  bool tree_wins = false; ///< the tree's held-out gain is positive
  int leaves = 0;         ///< the leaf limit compared (RefitValidation::best_leaves)
  double gain = 0;        ///< weighted mean of held-out log speedup minus the searched one's,
                          ///< plus `charge`
  double charge = 0;      ///< the optimism charged to the searched program's training figure (>= 0)
  double standard_error = 0;
};

/// Compares the best tree of `v` with the searched program's per-shape *training* log speedups
/// `searched_log` (one per feedback shape, weighted by the shapes' `weights`): the tree wins
/// when its mean paired gain is positive. With `searched_leaves` > 0 (the searched program's
/// rules plus its default), that training figure is first charged with the optimism of a tree
/// of as many leaves (`v.optimism`, capped at the largest tree; never negative). (A
/// one-standard-error margin on top, the rule of the stops before, kept the searched program on
/// six replay protocols where the tree did better on test: README, "Refit validation".)
RefitVerdict compare_refit(const RefitValidation& v, const std::vector<double>& searched_log,
                           const std::vector<double>& weights, int searched_leaves = 0);

/// The training rows dealt into `k` folds after a shuffle seeded by `seed` (each fold sorted).
std::vector<std::vector<std::size_t>> deal_folds(std::vector<std::size_t> rows, int k,
                                                 std::uint64_t seed);

/// The indices of `shapes` dealt into min(k, groups / 2) folds with `seed`, where a group is
/// one shape, or with `group_sizes` all shapes of one (M, N, K), kept in one fold so a held-out
/// size is unseen. Empty when fewer than two folds can be dealt. Deterministic.
std::vector<std::vector<std::size_t>> deal_shape_folds(const std::vector<Shape>& shapes, int k,
                                                       std::uint64_t seed, bool group_sizes);

/// The folds at the extremes of `shapes` for `k` folds: for each of M, N and K (that takes more
/// than one value), the shapes of its `n / k` largest values and those of its `n / k` smallest
/// (every shape of a value tied at the cut with them), each a fold unless it holds half the
/// shapes or more. Folds may overlap. Fewer than 4 shapes or k < 2: none.
std::vector<std::vector<std::size_t>> extreme_folds(const std::vector<Shape>& shapes, int k);

/// How validate_refit cross-validates (every field has a default).
struct RefitValidationOptions {
  int max_leaves = 8; ///< trees of 1 to this many leaves
  int folds = 5;      ///< folds dealt (at most half the shapes; fewer than 2: nothing validated)
  std::uint64_t seed = 0; ///< the shuffle that deals the folds
  /// The shapes of one (M, N, K) (its layouts and dtypes) stay in one fold, so a held-out size
  /// is unseen (as a split by size tests); else shapes are dealt one by one.
  bool group_sizes = false;
  /// > 0: the same folds are also run with trees grown with that lookahead
  /// (TreeOptions::lookahead), and the growth with the better best_held_out is returned
  /// (greedy on ties).
  int lookahead = 0;
  /// The size is chosen as CART's cost-complexity pruning chooses it: each fold's tree is the
  /// one of its sequence whose fitted sum of log speedups less a charge per leaf is largest, the
  /// charge with the best held-out figure is kept (of tied ones, the middle of the run of ties
  /// next to the largest), and best_leaves is the tree that charge picks from the sequence
  /// fitted on every shape, which may be larger than the folds' trees (a charge per leaf asks
  /// the same of each split whatever the number of shapes; a leaf count chosen on folds of four
  /// fifths of the shapes is a size for fewer shapes).
  bool complexity = false;
  /// The device whose analytic model every refit may lean on (RefitChoice::model); not owned.
  const Gpu* model = nullptr;
  /// With complexity: a second charge is chosen among those whose held-out figure is within
  /// one standard error of the best (of the paired per-shape differences), as the one whose
  /// trees do best on the extreme_folds (each fitted on the shapes outside it): random folds hold
  /// out shapes like the fitted ones and cannot tell those sizes apart; the extremes say which
  /// carries over past the training shapes' range. Where the two charges' trees differ in size,
  /// the extremes' tree decides the shapes outside the box of the training shapes and the best
  /// charge's tree those inside it (RefitValidation::off_range_leaves; ir/box_split.hpp).
  bool extremes = false;
};

/// Cross-validates trees refitted on `feedback` (one entry per training shape: its measured
/// configs and its expert time, expert_seconds > 0) as `options` say. Deterministic.
RefitValidation validate_refit(const std::vector<ShapeFeedback>& feedback,
                               const RefitValidationOptions& options);

} // namespace tv
