#pragma once
/// Leaf exploration: after the search, before refit validation, the run spends what is left of
/// its kernel-run cap where a tree refitted on its measurements needs it. Such a tree assumes a
/// pair never timed is slow, so it keeps to configs the search happened to time on each shape.
/// Each round refits the tree, groups the training shapes by the leaf that decides them, and
/// times on every shape of a leaf the leaf's config, then in turn the configs that its shapes'
/// own measurements rank fastest (a config good on one shape of a group of similar shapes is
/// the likeliest to be good on the others) and those a prior (the analytic model) ranks first
/// for them. Rounds repeat while they time something.
#include "ir/program.hpp"

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace tv {

/// What the exploration reads and does; all four are required.
struct ExploreHooks {
  /// The tree refitted on every measurement so far.
  std::function<Program()> fit;
  /// The fastest configs measured on training shape `i` so far, fastest first, at most `k`.
  std::function<std::vector<Config>(std::size_t i, std::size_t k)> fastest;
  /// True when config `c` was timed on training shape `i` (failed or not).
  std::function<bool(std::size_t i, const Config& c)> timed;
  /// Times `c` on the training shapes `which` (none timed yet); false when the kernel-run limit
  /// leaves no room for them (nothing timed).
  std::function<bool(const Config& c, const std::vector<std::size_t>& which)> time;
  /// The configs a leaf may try besides the measured ones (empty: only those) and a prior on
  /// each: prior(i)[k] is the expected log slowdown of space[k] on training shape i against
  /// the fastest of the space (+infinity: it cannot run there), prior(i) a row of space.size()
  /// values that stays valid during the call. Optional.
  std::vector<Config> space;
  std::function<const double*(std::size_t i)> prior;
};

/// What explore_leaves did.
struct ExploredLeaves {
  int rounds = 0;       ///< rounds that timed something
  long long pairs = 0;  ///< (shape, config) pairs timed
  bool limited = false; ///< a round stopped at the kernel-run limit
  std::string summary() const;
};

/// Explores the leaves of trees refitted on `shapes`' measurements (see the file comment): per
/// round and leaf, up to `per_leaf` configs that some of the leaf's shapes have not timed, each
/// timed on those shapes: the leaf's config, then the configs among the two fastest measured
/// on most of the leaf's shapes and those of hooks.space with the least prior summed over the
/// leaf's shapes, one of each in turn. Stops after `max_rounds` rounds, at a round that times
/// nothing, or at the first config the limit refuses. Deterministic.
ExploredLeaves explore_leaves(const std::vector<Shape>& shapes, const ExploreHooks& hooks,
                              int per_leaf = 3, int max_rounds = 8);

/// Leaf exploration's allowance in a run without a kernel-run cap (the analytic model's
/// default), as a share of exhaustive tuning of the training shapes. A search can stall with
/// whole leaves of shapes on a config far from their best (mi355x, trained on
/// other_models.csv: 96.6% of the oracle on its training shapes where the tree fits 98.9%);
/// exploring the leaves lets refit validation see the configs they want.
inline constexpr double kUncappedExploreShare = 0.01;
/// ...never past this share of exhaustive tuning for the whole run so far: the analytic
/// protocols allow a run 5%, and polish and guard validation come after exploration.
inline constexpr double kUncappedExploreCeiling = 0.04;

/// The kernel runs leaf exploration may spend in a run without a cap whose exhaustive tuning
/// costs `exhaustive` and which has timed `so_far`: kUncappedExploreShare of `exhaustive`, less
/// what would take the run past kUncappedExploreCeiling (0 when nothing is left).
long long uncapped_explore_limit(long long exhaustive, long long so_far);

} // namespace tv
