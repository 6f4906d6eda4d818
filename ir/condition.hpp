#pragma once
/// Rule conditions: conjunctions of comparisons of a shape feature with an integer.
///
/// Features are M, N and K, and two derived features a kernel engineer reasons with: the output
/// size `M * N`, and the number of output tiles of a tile size, `cdiv(M, bm) * cdiv(N, bn)`
/// (compared with the GPU's SM/CU count it says how many waves the grid makes). Both derived
/// features are non-decreasing in M and in N, which is what the simplifier's reasoning uses.
#include "ir/shape.hpp"

#include <array>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

namespace tv {

/// A shape feature a condition can test.
enum class Feature { M = 0, N = 1, K = 2, MN = 3, tiles = 4 };
/// A comparison operator.
enum class CmpOp { lt, le, gt, ge, eq };

/// True for the derived features (M * N and tile counts).
inline bool is_derived(Feature f) {
  return f == Feature::MN || f == Feature::tiles;
}
/// Name of a base feature ("M"); "M * N" for MN and "tiles" for tile counts.
std::string_view feature_name(Feature f);
/// Source spelling of an operator ("<=").
std::string_view cmp_op_text(CmpOp op);
/// Value of base feature M, N or K for shape `s` (M for a derived feature: use term_value).
std::int64_t feature_value(const Shape& s, Feature f);

/// Largest value a shape dimension or a derived feature takes in box arithmetic (inclusive);
/// derived values saturate here, so their comparisons are monotone and never overflow.
inline constexpr std::int64_t kDimMax = std::numeric_limits<std::int64_t>::max() / 4;
/// Largest tile size a tile-count feature may name.
inline constexpr int kMaxTileSize = 1 << 16;
/// Most distinct derived features (kind and tile size) one program may use.
inline constexpr int kMaxDerivedFeatures = 6;

/// a * b for positive a, b, saturated at kDimMax.
std::int64_t saturating_mul(std::int64_t a, std::int64_t b);
/// ceil(a / b) for a >= 0, b > 0.
inline std::int64_t ceil_div(std::int64_t a, std::int64_t b) {
  return a / b + (a % b != 0);
}
/// The value of a derived feature for dimensions M and N (tile sizes used for tiles only),
/// saturated at kDimMax; M and N below 1 count as 1.
std::int64_t derived_value(Feature f, int tile_m, int tile_n, std::int64_t M, std::int64_t N);

/// One comparison `feature op value`, e.g. `M <= 128`, `M * N >= 1048576` or
/// `cdiv(M, 128) * cdiv(N, 128) <= 132` (tile_m, tile_n are set, and only, for tiles).
struct Comparison {
  Feature feature = Feature::M;
  CmpOp op = CmpOp::le;
  std::int64_t value = 0;
  int tile_m = 0, tile_n = 0;

  /// True when `x op value` holds.
  bool holds(std::int64_t x) const;
  /// The compared feature's value for `s` (derived features computed and saturated).
  std::int64_t value_of(const Shape& s) const;
  /// True when `s` satisfies this comparison.
  bool matches(const Shape& s) const { return holds(value_of(s)); }
  /// True when `o` compares the same feature (kind and tile size).
  bool same_feature(const Comparison& o) const {
    return feature == o.feature && tile_m == o.tile_m && tile_n == o.tile_n;
  }
  friend bool operator==(const Comparison&, const Comparison&) = default;
};

/// Source spelling of the feature a comparison tests: "M", "M * N", "cdiv(M, 64) * cdiv(N, 64)".
std::string feature_text(const Comparison& c);
/// The feature a comparison tests as a call in generated code: M, N and K as they are, the
/// output size as `OUTPUT(M, N)` and a tile count as `TILES(M, N, bm, bn)`, with the names
/// `output_fn` and `tiles_fn` (exporters define those helpers in the code they write).
std::string feature_call(const Comparison& c, std::string_view output_fn,
                         std::string_view tiles_fn);

/// An inclusive integer interval [lo, hi]; empty when lo > hi.
struct Interval {
  std::int64_t lo = 1, hi = kDimMax;
  bool empty() const { return lo > hi; }
  friend bool operator==(const Interval&, const Interval&) = default;
};

/// The feature values (over [1, kDimMax]) a comparison accepts, as an interval (may be empty).
Interval accepted_values(const Comparison& c);

/// Dimensions a box can have: M, N, K, then one per derived feature of a FeatureSpace.
inline constexpr int kMaxBoxDims = 3 + 2 * kMaxDerivedFeatures;

/// An axis-aligned box over the positive integers: in (M, N, K) space, or in the relaxed space
/// of a FeatureSpace where each derived feature is one more coordinate (see simplify.cpp).
/// Only the first `dims` intervals are used.
struct Box {
  std::array<Interval, kMaxBoxDims> dim{};
  int dims = 3;
  /// True when some dimension is empty.
  bool empty() const;
  /// True when the point (M, N, K) of `s` lies inside (a 3-dimensional box only).
  bool contains(const Shape& s) const;
  friend bool operator==(const Box&, const Box&) = default;
};

/// The derived features one or two programs use, each given a box dimension (3, 4, ...).
class FeatureSpace {
public:
  /// Adds the feature of `c` if it is derived and new; returns its dimension (0-2 for M, N, K).
  /// Throws std::invalid_argument beyond 2 * kMaxDerivedFeatures derived features.
  int add(const Comparison& c);
  /// Dimension of the feature `c` tests, or -1 when it is derived and not in this space.
  int dim_of(const Comparison& c) const;
  /// Number of box dimensions (3 + derived features).
  int dims() const { return 3 + int(derived_.size()); }
  /// The derived features, in dimension order (as comparisons with value 0).
  const std::vector<Comparison>& derived() const { return derived_; }
  /// Narrows `b` to the points that can be real shapes: each derived coordinate into the range
  /// its feature takes over b's M and N intervals, and M and N by what the derived bounds
  /// imply (interval propagation, to a fixpoint). Never removes a point (M, N, K, f(M, N)...).
  void tighten(Box& b) const;
  /// The point of `s` in this space lies in `b`.
  bool contains(const Box& b, const Shape& s) const;

private:
  std::vector<Comparison> derived_;
};

/// A conjunction of comparisons; the empty conjunction is always true.
struct Condition {
  std::vector<Comparison> terms;

  /// True when every comparison holds for `s`.
  bool matches(const Shape& s) const;
  /// True when some comparison tests a derived feature.
  bool has_derived() const;
  /// The bounds its M, N and K comparisons put, as a 3-dimensional box (may be empty). Exactly
  /// the shapes it accepts when it has no derived comparison, a superset otherwise.
  Box box() const;
  /// Its box in the relaxed space of `space` (which must hold its derived features),
  /// tightened: contains every shape it accepts, as a point of that space.
  Box box(const FeatureSpace& space) const;
  friend bool operator==(const Condition&, const Condition&) = default;
};

} // namespace tv
