#pragma once
/// A program's decisions along M for one (N, K): the maximal runs of M on which it returns one
/// config. Every feature a condition can test is non-decreasing in M for fixed N and K (M, M * N
/// and tile counts) or constant (N, K), so each comparison holds on one interval of M and the
/// runs are found exactly from the comparisons' interval ends, without sampling.
#include "ir/program.hpp"

#include <cstdint>
#include <vector>

namespace tv {

/// The shape M x N x K with the defaults for everything else (dtype, layout, weight).
Shape shape_at(std::int64_t M, std::int64_t N, std::int64_t K);

/// M values lo..hi (inclusive) on which the program returns `config`.
struct MSegment {
  std::int64_t lo = 1, hi = 1;
  Config config;
};

/// The maximal segments covering M = 1 .. m_max (in order, neighbours differ in config) for
/// the shapes (M, N, K).
std::vector<MSegment> m_segments(const Program& p, std::int64_t N, std::int64_t K,
                                 std::int64_t m_max = kDimMax);

} // namespace tv
