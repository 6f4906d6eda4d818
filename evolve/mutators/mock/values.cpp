#include "evolve/mutators/mock/values.hpp"

#include "ir/condition.hpp"

#include <algorithm>
#include <cstdlib>
#include <iterator>

namespace tv::mock {

const std::vector<std::int64_t>& natural_values() {
  static const std::vector<std::int64_t> v = [] {
    std::vector<std::int64_t> out{1, 2};
    for (std::int64_t p = 2; p <= 65536; p *= 2) {
      if (p * 3 / 2 <= 65536 && p * 3 / 2 > out.back()) out.push_back(p * 3 / 2);
      if (p * 2 <= 65536) out.push_back(p * 2);
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
  }();
  return v;
}

std::optional<std::int64_t> natural_above(std::int64_t v) {
  const auto& n = natural_values();
  auto it = std::upper_bound(n.begin(), n.end(), v);
  if (it != n.end()) return *it;
  if (v >= 1 && v <= kDimMax / 2) return v * 2;
  return std::nullopt;
}

std::optional<std::int64_t> natural_below(std::int64_t v) {
  const auto& n = natural_values();
  auto it = std::lower_bound(n.begin(), n.end(), v);
  if (it == n.begin()) return std::nullopt;
  return *std::prev(it);
}

std::int64_t next_pow2(std::int64_t v) {
  std::int64_t p = 1;
  while (p < v && p < kBigDim)
    p *= 2;
  return p;
}

bool contains(const std::vector<int>& legal, int v) {
  return std::find(legal.begin(), legal.end(), v) != legal.end();
}

int snap(const std::vector<int>& legal, int v) {
  if (legal.empty()) return v;
  int best = legal.front();
  for (int x : legal)
    if (std::abs(x - v) < std::abs(best - v)) best = x;
  return best;
}

int at_least(const std::vector<int>& legal, int v) {
  for (int x : legal)
    if (x >= v) return x;
  return legal.empty() ? v : legal.back();
}

int at_most(const std::vector<int>& legal, int v) {
  for (auto it = legal.rbegin(); it != legal.rend(); ++it)
    if (*it <= v) return *it;
  return legal.empty() ? v : legal.front();
}

std::optional<int> step(const std::vector<int>& legal, int v, int dir) {
  if (legal.empty()) return std::nullopt;
  if (!contains(legal, v)) return snap(legal, v);
  auto it = std::find(legal.begin(), legal.end(), v);
  if (dir > 0) {
    if (std::next(it) == legal.end()) return std::nullopt;
    return *std::next(it);
  }
  if (it == legal.begin()) return std::nullopt;
  return *std::prev(it);
}

std::optional<int> step_random(const std::vector<int>& legal, int v, Rng& rng) {
  const int dir = rng.chance(0.5) ? 1 : -1;
  if (auto s = step(legal, v, dir)) return s;
  return step(legal, v, -dir);
}

} // namespace tv::mock
