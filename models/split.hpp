#pragma once
/// Train/test splits of a shape set.
#include "ir/shape.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace tv {

/// A train half and a test half.
struct Split {
  std::vector<Shape> train, test;
  std::string description; ///< e.g. "random half/half, seed 0"
};

/// Parses and applies a split spec to `shapes`:
///   "random"       - half/half, shuffled with `seed` (train gets the extra shape when odd);
///   "random-mnk"   - the same by groups of shapes with equal (M, N, K) (the dtypes and
///                    layouts of one problem size): whole groups are shuffled with `seed` and
///                    go to train until it holds at least half of the shapes, so no size is on
///                    both sides;
///   "range"        - an extrapolation: the shapes ordered by one feature, train on one end
///                    until it holds at least half of them, test on the other; the split seed
///                    picks the feature and the end (range_split_side): seed 0 trains on the
///                    smallest M*N*K and tests on the largest, 1 the reverse, then 2 and 3 for M,
///                    4 and 5 for N, 6 and 7 for K, seed 8 as 0 again. Shapes of one value stay
///                    on one side (so no size is on both), so the halves may be uneven;
///   "model:NAME"   - train on shapes whose name starts with "NAME:", test on the rest;
///   "none"         - train and test are both the whole set.
/// Throws InputError for an unknown spec or when a side would be empty.
Split make_split(const std::vector<Shape>& shapes, const std::string& spec, std::uint64_t seed);

/// The distinct train/test pairs of split "range": one per feature and end.
inline constexpr int kRangeSplits = 8;

/// What split "range" does with one split seed.
struct RangeSide {
  int feature = 0;            ///< what orders the shapes: 0 M*N*K, 1 M, 2 N, 3 K
  const char* name = "M*N*K"; ///< that feature, written
  bool train_smallest = true; ///< train on its smallest values (else on its largest)
};
/// The feature and end of split "range" with `seed`.
RangeSide range_split_side(std::uint64_t seed);

} // namespace tv
