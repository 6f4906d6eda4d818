#pragma once
/// Thresholds that generalize: a comparison's threshold moved into the middle of the gap
/// between the neighbouring training values it separates (in log space, as shapes grow
/// geometrically), at the roundest value near that middle. Every run's result is placed so. Every
/// training shape keeps its decision; only shapes that fall inside a gap (unseen ones) can go
/// another way than before, and they go by the middle of the gap rather than by whichever edge the
/// search happened to leave the cut on.
#include "ir/program.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace tv {

/// The cut t (a <= t < b, so `x <= t` keeps a and drops b) between neighbouring training values
/// a < b: the roundest value in the middle tenth of [a, b) in log space (powers of two first,
/// then 3 x a power of two, then multiples of the largest power of two that has one there; for
/// tile counts with units > 0, multiples of half the GPU's units first), nearest the geometric
/// mean on ties; the geometric mean itself when no such value lies there.
std::int64_t cut_between(std::int64_t a, std::int64_t b, bool tile_count = false, int units = 0);

/// What place_thresholds did.
struct PlacedThresholds {
  Program program;
  std::vector<std::string> changes; ///< one line per moved threshold ("M <= 100 -> M <= 128")
};

/// Moves each threshold of `p` (pass after pass, until none moves) to cut_between the nearest
/// values, on either side of it, of the
/// training shapes the comparison decides (those that reach its rule and satisfy the rule's
/// other comparisons). Comparisons with `==`, and those with no such shape on one side, stay.
/// Every shape of `shapes` gets the same config from the result as from `p`. `units`: the
/// GPU's SM/CU count (round tile-count thresholds at half waves), 0 for none.
PlacedThresholds place_thresholds(const Program& p, const std::vector<Shape>& shapes,
                                  int units = 0);

} // namespace tv
