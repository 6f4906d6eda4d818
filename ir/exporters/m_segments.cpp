#include "ir/exporters/m_segments.hpp"

#include <algorithm>
#include <fmt/format.h>

namespace tv {

namespace {

/// The first M in [1, m_max] with value_of(M) >= v, or m_max + 1 when there is none;
/// value_of is non-decreasing in M.
template <class F> std::int64_t first_at_least(F value_of, std::int64_t v, std::int64_t m_max) {
  if (value_of(m_max) < v) return m_max + 1;
  std::int64_t lo = 1, hi = m_max; // the answer lies in [lo, hi]
  while (lo < hi) {
    const std::int64_t mid = lo + (hi - lo) / 2;
    if (value_of(mid) >= v)
      hi = mid;
    else
      lo = mid + 1;
  }
  return lo;
}

} // namespace

Shape shape_at(std::int64_t M, std::int64_t N, std::int64_t K) {
  Shape s;
  s.M = M;
  s.N = N;
  s.K = K;
  return s;
}

std::vector<std::int64_t> m_breaks(const Program& p, std::int64_t N, std::int64_t K,
                                   std::int64_t m_max) {
  m_max = std::clamp<std::int64_t>(m_max, 1, kDimMax);
  // A comparison of a feature f that is non-decreasing in M can change its outcome only where f
  // first reaches v or exceeds it.
  std::vector<std::int64_t> starts{1};
  for (const auto& r : p.rules)
    for (const auto& t : r.condition.terms) {
      if (t.feature == Feature::N || t.feature == Feature::K) continue;
      const auto value_of = [&](std::int64_t m) { return t.value_of(shape_at(m, N, K)); };
      for (const std::int64_t v : {t.value, t.value == INT64_MAX ? t.value : t.value + 1}) {
        const std::int64_t m = first_at_least(value_of, v, m_max);
        if (m > 1 && m <= m_max) starts.push_back(m);
      }
    }
  std::sort(starts.begin(), starts.end());
  starts.erase(std::unique(starts.begin(), starts.end()), starts.end());
  return starts;
}

std::vector<MSegment> m_segments(const Program& p, std::int64_t N, std::int64_t K,
                                 std::int64_t m_max) {
  m_max = std::clamp<std::int64_t>(m_max, 1, kDimMax);
  const std::vector<std::int64_t> starts = m_breaks(p, N, K, m_max);
  std::vector<MSegment> out;
  for (std::size_t i = 0; i < starts.size(); ++i) {
    const std::int64_t lo = starts[i];
    const std::int64_t hi = i + 1 < starts.size() ? starts[i + 1] - 1 : m_max;
    const Config& c = p.choose(shape_at(lo, N, K));
    if (!out.empty() && out.back().config == c)
      out.back().hi = hi;
    else
      out.push_back(MSegment{lo, hi, c});
  }
  return out;
}

void add_m_range(MRanges& r, std::int64_t lo, std::int64_t hi) {
  if (!r.empty() && r.back().second + 1 == lo)
    r.back().second = hi;
  else
    r.emplace_back(lo, hi);
}

std::string m_ranges_text(const MRanges& r, std::size_t max_listed) {
  const auto one = [](std::int64_t lo, std::int64_t hi) {
    if (hi >= kDimMax) return fmt::format("{}..", lo);
    return lo == hi ? std::to_string(lo) : fmt::format("{}..{}", lo, hi);
  };
  std::string out;
  for (std::size_t i = 0; i < r.size() && i < max_listed; ++i)
    out += (i ? ", " : "") + one(r[i].first, r[i].second);
  if (r.size() > max_listed) out += fmt::format(" and {} more ranges", r.size() - max_listed);
  return out;
}

} // namespace tv
