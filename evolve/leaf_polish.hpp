#pragma once
/// Leaf polish: the last step of a search, a coordinate descent on the program's configs. Each
/// config (every rule's, then the default's) is replaced by its best neighbour, a config of the
/// space that differs in one field (BM, BN, BK, warps, stages, group or one AMD knob), while
/// that is faster on the training shapes it decides; rounds repeat until none is. Conditions
/// never change, so every training shape keeps its rule. The search proposes such one-field
/// edits at random and, within its budget, leaves leaf configs that a neighbour beats on the
/// rule's own training shapes.
#include "ir/program.hpp"

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace tv {

/// What polish_leaves did.
struct PolishedLeaves {
  Program program;
  std::vector<std::string> changes; ///< one line per replaced config
  int tried = 0;                    ///< neighbours costed
};

/// The cost of config `c` on the shapes `which` (indices into polish_leaves' shapes): the sum
/// of weight x log(seconds), or nullopt where it cannot be had (a pair failed, the config does
/// not launch, or timing it would pass a kernel-run limit).
using LeafCost =
    std::function<std::optional<double>(const std::vector<std::size_t>& which, const Config& c)>;

/// Polishes `p`'s configs over `space` (vendor choices are never neighbours). A neighbour
/// replaces a leaf's config when it is faster on the leaf's shapes of `shapes` by more than a
/// factor `bar` (>= 1: the run's noise threshold), as a weighted geometric mean. Leaves that
/// decide none of `shapes` are left alone. At most `max_rounds` rounds. Deterministic:
/// neighbours in `space` order, the first best kept.
PolishedLeaves polish_leaves(const Program& p, const std::vector<Config>& space,
                             const std::vector<Shape>& shapes, const LeafCost& cost, double bar,
                             int max_rounds = 4);

/// True when `a` and `b` are tile configs that differ in exactly one field.
bool one_field_apart(const Config& a, const Config& b);

} // namespace tv
