#pragma once
/// Wave guards: each rule of a program kept to the waves its training shapes fill. A rule whose
/// training shapes launch at most w waves of its own tile (w x the GPU's units tiles of BM x BN)
/// gets the comparison `cdiv(M, BM) * cdiv(N, BN) <= w * units`, so an unseen shape whose grid
/// would spill into one more, mostly empty, wave of that tile falls through to the later rules
/// (larger tiles, as a decision tree on tile counts would send it) instead of taking a config
/// that no training shape showed to work at that size. Every training shape keeps its config.
#include "ir/program.hpp"

#include <string>
#include <vector>

namespace tv {

/// What guard_waves did.
struct GuardedWaves {
  Program program;
  std::vector<std::string> changes; ///< one line per added comparison
  std::vector<std::size_t> rules;   ///< the rules that got a guard, ascending
};

/// Adds to each rule of `p` the comparison bounding its own tile count at the whole waves of
/// `units` that its shapes of `shapes` fill, where no comparison of the rule already bounds that
/// count as tightly (vendor rules, tiles over kMaxTileSize and rules no shape reaches get none).
/// Where the guards would take the program past kMaxDerivedFeatures distinct derived features,
/// single-wave rules come first, and within each kind the rules whose shapes fill their last
/// wave most. Every shape of `shapes` gets the same config from the result as from `p`.
/// `units` <= 0: `p` unchanged. With `allowed` (one flag per rule of `p`), only the rules it
/// flags may get a guard.
GuardedWaves guard_waves(const Program& p, const std::vector<Shape>& shapes, int units,
                         const std::vector<bool>& allowed = {});

} // namespace tv
