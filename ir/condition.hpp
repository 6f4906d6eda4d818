#pragma once
/// Rule conditions: conjunctions of comparisons of a shape feature with an integer.
#include "ir/shape.hpp"

#include <array>
#include <cstdint>
#include <limits>
#include <string_view>
#include <vector>

namespace tv {

/// A shape feature a condition can test.
enum class Feature { M = 0, N = 1, K = 2 };
/// A comparison operator.
enum class CmpOp { lt, le, gt, ge, eq };

/// Name of a feature ("M").
std::string_view feature_name(Feature f);
/// Source spelling of an operator ("<=").
std::string_view cmp_op_text(CmpOp op);
/// Value of feature `f` for shape `s`.
std::int64_t feature_value(const Shape& s, Feature f);

/// One comparison `feature op value`, e.g. `M <= 128`.
struct Comparison {
  Feature feature = Feature::M;
  CmpOp op = CmpOp::le;
  std::int64_t value = 0;

  /// True when `x op value` holds.
  bool holds(std::int64_t x) const;
  friend bool operator==(const Comparison&, const Comparison&) = default;
};

/// Largest value a shape dimension can take in box arithmetic (inclusive).
inline constexpr std::int64_t kDimMax = std::numeric_limits<std::int64_t>::max() / 4;

/// An inclusive integer interval [lo, hi]; empty when lo > hi.
struct Interval {
  std::int64_t lo = 1, hi = kDimMax;
  bool empty() const { return lo > hi; }
  friend bool operator==(const Interval&, const Interval&) = default;
};

/// An axis-aligned box in (M, N, K) space over the positive integers.
struct Box {
  std::array<Interval, 3> dim{};
  /// True when some dimension is empty.
  bool empty() const;
  /// True when the point (M, N, K) of `s` lies inside.
  bool contains(const Shape& s) const;
  friend bool operator==(const Box&, const Box&) = default;
};

/// A conjunction of comparisons; the empty conjunction is always true.
struct Condition {
  std::vector<Comparison> terms;

  /// True when every comparison holds for `s`.
  bool matches(const Shape& s) const;
  /// The set of shapes it accepts, as a box over positive integers (may be empty).
  Box box() const;
  friend bool operator==(const Condition&, const Condition&) = default;
};

} // namespace tv
