#pragma once
/// Wave guards: each rule of a program kept to the waves its training shapes fill. A rule whose
/// training shapes launch at most w waves of its own tile (w x the GPU's units tiles of BM x BN)
/// gets the comparison `cdiv(M, BM) * cdiv(N, BN) <= w * units`, so an unseen shape whose grid
/// would spill into one more, mostly empty, wave of that tile falls through to the later rules
/// (larger tiles, as a decision tree on tile counts would send it) instead of taking a config
/// that no training shape showed to work at that size. Every training shape keeps its config.
///
/// Wave floors, the same claim from below: a rule each of whose training shapes fills at least
/// two waves of its own tile gets `cdiv(M, BM) * cdiv(N, BN) >= units`, so an unseen shape that
/// would leave some of the GPU's units idle (a regime none of the rule's shapes was in) falls
/// through to the later rules too.
///
/// Guard returns: a guard cannot help a shape one tile row high (M <= BM) that it sends on to a
/// rule (or the default) whose tile is its own made taller (same BN, larger BM): there the shape
/// launches the same tiles, each padding more rows. Just before each such rule (or the default)
/// a return rule (the guarded rule's condition, `M <= BM` and the landing rule's condition) gives
/// those shapes the guarded rule's config back. Decode shapes wider than any training shape
/// (M <= 64, N = 73,728) reached the default's 256x256 tile from a 128x256 rule that way. The
/// same holds for the rule's own bounds on the width (N, M * N, tile counts: a searched
/// `M * N <= 2228224` kept a 64x256 rule from the lm_head GEMMs, N = 151,936, at M = 48), so a
/// return rule leaves them out, guarded rule or not, wherever no training shape that lands on
/// the taller tile meets it (a guarded rule's then keeps them). No training shape changes its
/// config; a return rule no shape can reach is left out.
#include "ir/program.hpp"

#include <string>
#include <vector>

namespace tv {

/// One return rule (above): it gives the shapes rule `rule`'s guard or width bounds would send
/// on to rule `before` (indices into the input program; its rule count for the default)
/// `rule`'s config.
struct GuardReturn {
  std::size_t rule = 0;
  std::size_t before = 0;
  friend bool operator==(const GuardReturn&, const GuardReturn&) = default;
};

/// What guard_waves did.
struct GuardedWaves {
  Program program;
  std::vector<std::string> changes; ///< one line per added comparison
  std::vector<std::size_t> rules;   ///< the rules that got a guard or a floor, ascending
  /// Per return rule, in program order: the rule of the input program whose config it gives
  /// back, and the one it stands before (the input's rule count: the default).
  std::vector<GuardReturn> returns;
};

/// True when `c` may get a guard or a floor: a tile the language compares on (not a vendor call,
/// sides of 1 to kMaxTileSize).
bool guardable(const Config& c);

/// Which guards guard_waves adds.
struct GuardOptions {
  std::vector<bool> ceilings{}; ///< per rule of the program: may get a guard (empty: every rule)
  std::vector<bool> floors{};   ///< per rule: may get a floor (empty: every rule)
  bool with_floors = true;      ///< floors at all
  bool returns = true;          ///< the return rules
};

/// Adds to each rule of `p` the comparison bounding its own tile count at the whole waves of
/// `units` that its shapes of `shapes` fill, where no comparison of the rule already bounds that
/// count as tightly (vendor rules, tiles over kMaxTileSize and rules no shape reaches get none),
/// and (`with_floors`) the floor `>= units` where each of its shapes fills two waves or more, a
/// later rule or the default decides a shape of `shapes` under a wave of the rule's tile (the
/// shapes the floor sends on land where such grids were fitted), and no comparison already
/// bounds the count from below as tightly. Where the guards would take the
/// program past kMaxDerivedFeatures distinct derived features, single-wave rules come first, and
/// within each kind the rules whose shapes fill their last wave most. Every shape of `shapes`
/// gets the same config from the result as from `p`. `units` <= 0: `p` unchanged. Only the rules
/// that `ceilings` (`floors`) flags may get a guard (a floor). With `returns`, the return rules
/// (above) stand each just before the rule (or the default) it gives shapes back from; the rules
/// of `p` keep their order.
GuardedWaves guard_waves(const Program& p, const std::vector<Shape>& shapes, int units,
                         const GuardOptions& options = {});

} // namespace tv
