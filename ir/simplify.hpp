#pragma once
/// Exact program simplification by box arithmetic over the positive integers.
#include "ir/program.hpp"

#include <vector>

namespace tv {

/// The part of `a` not in `b`, as disjoint boxes (at most 6).
std::vector<Box> box_difference(const Box& a, const Box& b);
/// The region where rule `i` of `p` actually decides: its box minus all earlier rules' boxes.
std::vector<Box> effective_region(const Program& p, std::size_t i);
/// True when the default config decides for at least one shape.
bool default_reachable(const Program& p);
/// The branches of a program that decide at least one shape.
struct LiveBranches {
  std::vector<std::size_t> rules; ///< indices of the rules that can fire, in order
  bool default_live = false;      ///< the default decides at least one shape
};
/// Which branches of `p` can decide some shape: one pass over the rules carrying the region
/// no earlier rule decides, so the cost grows with rules x pieces of that region (one piece
/// for rules that bound one feature), not with rules squared as effective_region per rule.
/// With conditions on M, N and K only, rule i is live exactly when effective_region(p, i) is not
/// empty (both are exact). With derived features both reason over the relaxed space, so both
/// are sound (a rule that decides some shape is always live) but may each call a rule live
/// that decides no integer shape, and they can differ in such cases.
LiveBranches live_branches(const Program& p);
/// Distinct configs `p` can return for some shape, in order of first appearance.
std::vector<Config> reachable_configs(const Program& p);
/// True when `a` and `b` return the same config for every shape of the whole domain.
bool equivalent(const Program& a, const Program& b);
/// Removes rules that can never fire and rules whose removal changes no decision, and
/// redundant comparisons inside conditions. Exact and idempotent.
Program simplify(const Program& p);

} // namespace tv

namespace tv {

/// Removes the rules that decide fewer than `min_shapes` of `shapes` (first match wins), in
/// one pass over the original decisions; then, when the default decides none of `shapes`, the
/// last rule's config becomes the default and that rule goes. With min_shapes = 1, decisions on
/// `shapes` are unchanged; elsewhere shapes fall through to configs that some shape exercised.
Program drop_unexercised_rules(const Program& p, const std::vector<Shape>& shapes,
                               int min_shapes = 1);

} // namespace tv
