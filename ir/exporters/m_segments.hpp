#pragma once
/// A program's decisions along M for one (N, K): the maximal runs of M on which it returns one
/// config. Every feature a condition can test is non-decreasing in M for fixed N and K (M, M * N
/// and tile counts) or constant (N, K), so each comparison holds on one interval of M and the
/// runs are found exactly from the comparisons' interval ends, without sampling.
#include "ir/program.hpp"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace tv {

/// The shape M x N x K with the defaults for everything else (dtype, layout, weight).
Shape shape_at(std::int64_t M, std::int64_t N, std::int64_t K);

/// M values lo..hi (inclusive) on which the program returns `config`.
struct MSegment {
  std::int64_t lo = 1, hi = 1;
  Config config;
};

/// The starts of the runs of M in [1, m_max] on which every comparison of `p` at (M, N, K) keeps
/// its outcome, in increasing order, the first one 1: the deciding rule can change only there.
std::vector<std::int64_t> m_breaks(const Program& p, std::int64_t N, std::int64_t K,
                                   std::int64_t m_max = kDimMax);

/// The maximal segments covering M = 1 .. m_max (in order, neighbours differ in config) for
/// the shapes (M, N, K).
std::vector<MSegment> m_segments(const Program& p, std::int64_t N, std::int64_t K,
                                 std::int64_t m_max = kDimMax);

/// Inclusive ranges of M, in increasing order.
using MRanges = std::vector<std::pair<std::int64_t, std::int64_t>>;

/// Appends lo..hi to `r`, joined to the last range when they touch.
void add_m_range(MRanges& r, std::int64_t lo, std::int64_t hi);

/// "1..4, 17, 8193.." (an end at kDimMax is open): at most `max_listed` ranges, then how many more.
std::string m_ranges_text(const MRanges& r, std::size_t max_listed = 8);

} // namespace tv
