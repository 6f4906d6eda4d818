#pragma once
/// Value helpers of the mock LLM: natural thresholds, moves within a sorted list of legal values,
/// and a weighted pick.
#include "ir/rng.hpp"

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

namespace tv::mock {

/// Feature values above this are treated as "unbounded" when reasoning about regions.
inline constexpr std::int64_t kBigDim = 1 << 20;

/// Natural thresholds: powers of two and 1.5x powers of two in [1, 65536], ascending.
const std::vector<std::int64_t>& natural_values();
/// Smallest natural value > v, or nullopt.
std::optional<std::int64_t> natural_above(std::int64_t v);
/// Largest natural value < v, or nullopt.
std::optional<std::int64_t> natural_below(std::int64_t v);
/// Smallest power of two >= v (v >= 1).
std::int64_t next_pow2(std::int64_t v);
/// Whether `v` is one of the `legal` values.
bool contains(const std::vector<int>& legal, int v);
/// The legal value nearest to `v` (lower on ties); `v` itself when the list is empty.
int snap(const std::vector<int>& legal, int v);
/// Smallest legal value >= v (the largest legal value when none is).
int at_least(const std::vector<int>& legal, int v);
/// Largest legal value <= v (the smallest legal value when none is).
int at_most(const std::vector<int>& legal, int v);
/// The legal neighbour of `v` one step up (dir > 0) or down; a value outside the list snaps to
/// the nearest legal one; nullopt when there is no such neighbour.
std::optional<int> step(const std::vector<int>& legal, int v, int dir);
/// A neighbour in a random direction, the other direction when the first has none.
std::optional<int> step_random(const std::vector<int>& legal, int v, Rng& rng);

/// Picks an element with the given weights (all zero -> the first).
template <class T> const T& pick_weighted(Rng& rng, const std::vector<std::pair<T, double>>& v) {
  double total = 0;
  for (const auto& [x, w] : v)
    total += w;
  double r = rng.uniform01() * total;
  for (const auto& [x, w] : v) {
    if (w <= 0) continue;
    if (r < w) return x;
    r -= w;
  }
  for (const auto& [x, w] : v)
    if (w > 0) return x;
  return v.front().first;
}

} // namespace tv::mock
