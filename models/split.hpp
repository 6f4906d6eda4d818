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
///   "model:NAME"   - train on shapes whose name starts with "NAME:", test on the rest;
///   "none"         - train and test are both the whole set.
/// Throws InputError for an unknown spec or when a side would be empty.
Split make_split(const std::vector<Shape>& shapes, const std::string& spec, std::uint64_t seed);

} // namespace tv
