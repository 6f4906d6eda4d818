#include "ir/condition.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

namespace tv {

std::string_view feature_name(Feature f) {
  switch (f) {
  case Feature::M:
    return "M";
  case Feature::N:
    return "N";
  case Feature::K:
    return "K";
  case Feature::MN:
    return "M * N";
  case Feature::tiles:
    return "tiles";
  }
  return "M";
}

std::string_view cmp_op_text(CmpOp op) {
  switch (op) {
  case CmpOp::lt:
    return "<";
  case CmpOp::le:
    return "<=";
  case CmpOp::gt:
    return ">";
  case CmpOp::ge:
    return ">=";
  case CmpOp::eq:
    return "==";
  }
  return "<=";
}

std::int64_t feature_value(const Shape& s, Feature f) {
  switch (f) {
  case Feature::N:
    return s.N;
  case Feature::K:
    return s.K;
  default:
    return s.M;
  }
}

std::int64_t saturating_mul(std::int64_t a, std::int64_t b) {
  if (a <= 0 || b <= 0) return 0;
  if (a > kDimMax / b) return kDimMax;
  return std::min(a * b, kDimMax);
}

std::int64_t derived_value(Feature f, int tile_m, int tile_n, std::int64_t M, std::int64_t N) {
  M = std::clamp<std::int64_t>(M, 1, kDimMax);
  N = std::clamp<std::int64_t>(N, 1, kDimMax);
  if (f == Feature::MN) return saturating_mul(M, N);
  if (f == Feature::tiles) {
    const std::int64_t tm = std::max(1, tile_m), tn = std::max(1, tile_n);
    return saturating_mul(ceil_div(M, tm), ceil_div(N, tn));
  }
  return M;
}

std::string feature_text(const Comparison& c) {
  if (c.feature == Feature::tiles)
    return "cdiv(M, " + std::to_string(c.tile_m) + ") * cdiv(N, " + std::to_string(c.tile_n) + ")";
  return std::string(feature_name(c.feature));
}

std::string feature_call(const Comparison& c, std::string_view output_fn,
                         std::string_view tiles_fn) {
  switch (c.feature) {
  case Feature::MN:
    return fmt::format("{}(M, N)", output_fn);
  case Feature::tiles:
    return fmt::format("{}(M, N, {}, {})", tiles_fn, c.tile_m, c.tile_n);
  default:
    return std::string(feature_name(c.feature));
  }
}

bool Comparison::holds(std::int64_t x) const {
  switch (op) {
  case CmpOp::lt:
    return x < value;
  case CmpOp::le:
    return x <= value;
  case CmpOp::gt:
    return x > value;
  case CmpOp::ge:
    return x >= value;
  case CmpOp::eq:
    return x == value;
  }
  return false;
}

std::int64_t Comparison::value_of(const Shape& s) const {
  if (is_derived(feature)) return derived_value(feature, tile_m, tile_n, s.M, s.N);
  return feature_value(s, feature);
}

bool Box::empty() const {
  for (int d = 0; d < dims; ++d)
    if (dim[d].empty()) return true;
  return false;
}

bool Box::contains(const Shape& s) const {
  for (int d = 0; d < 3; ++d) {
    std::int64_t x = feature_value(s, Feature(d));
    if (x < dim[d].lo || x > dim[d].hi) return false;
  }
  return true;
}

int FeatureSpace::dim_of(const Comparison& c) const {
  if (!is_derived(c.feature)) return int(c.feature);
  for (std::size_t i = 0; i < derived_.size(); ++i)
    if (derived_[i].same_feature(c)) return 3 + int(i);
  return -1;
}

int FeatureSpace::add(const Comparison& c) {
  if (const int d = dim_of(c); d >= 0) return d;
  if (int(derived_.size()) >= kMaxBoxDims - 3)
    throw std::invalid_argument("too many distinct derived features for one feature space");
  derived_.push_back(Comparison{c.feature, CmpOp::le, 0, c.tile_m, c.tile_n});
  return 2 + int(derived_.size());
}

namespace {

/// Narrows `x` to [lo, hi]; true when it changed.
bool narrow(Interval& x, std::int64_t lo, std::int64_t hi) {
  bool changed = false;
  if (lo > x.lo) x.lo = lo, changed = true;
  if (hi < x.hi) x.hi = hi, changed = true;
  return changed;
}

/// Bounds on one dimension (M or N) from a derived coordinate `f` of the MN or tiles kind,
/// given the other dimension's interval `other`; `tile` and `other_tile` are the tile sizes
/// (1 for MN). Sound: every real point keeps its value.
bool back_propagate(Interval& x, const Interval& other, const Interval& f, std::int64_t tile,
                    std::int64_t other_tile) {
  // With q = cdiv(x, tile) and r = cdiv(other, other_tile): f = q * r (saturated).
  const std::int64_t r_lo = ceil_div(other.lo, other_tile), r_hi = ceil_div(other.hi, other_tile);
  std::int64_t lo = x.lo, hi = x.hi;
  if (f.hi < kDimMax) { // f <= f.hi is a real bound: q <= f.hi / r_lo
    const std::int64_t q_hi = f.hi / r_lo;
    hi = saturating_mul(std::max<std::int64_t>(q_hi, 0), tile);
    if (q_hi <= 0) hi = 0;
  }
  if (f.lo > 1 && r_hi < kDimMax) { // q >= ceil(f.lo / r_hi)
    const std::int64_t q_lo = ceil_div(f.lo, r_hi);
    lo = q_lo <= 1 ? 1 : saturating_mul(q_lo - 1, tile) + 1;
  }
  return narrow(x, lo, hi);
}

} // namespace

void FeatureSpace::tighten(Box& b) const {
  if (derived_.empty()) return;
  for (int round = 0; round < 16; ++round) {
    if (b.empty()) return;
    bool changed = false;
    for (std::size_t i = 0; i < derived_.size(); ++i) {
      const Comparison& c = derived_[i];
      Interval& f = b.dim[3 + i];
      Interval& m = b.dim[0];
      Interval& n = b.dim[1];
      if (m.empty() || n.empty() || f.empty()) return;
      changed |= narrow(f, derived_value(c.feature, c.tile_m, c.tile_n, m.lo, n.lo),
                        derived_value(c.feature, c.tile_m, c.tile_n, m.hi, n.hi));
      if (f.empty()) return;
      const std::int64_t tm = c.feature == Feature::tiles ? c.tile_m : 1;
      const std::int64_t tn = c.feature == Feature::tiles ? c.tile_n : 1;
      changed |= back_propagate(m, n, f, tm, tn);
      if (m.empty()) return;
      changed |= back_propagate(n, m, f, tn, tm);
    }
    if (!changed) return;
  }
}

bool FeatureSpace::contains(const Box& b, const Shape& s) const {
  if (!b.contains(s)) return false;
  for (std::size_t i = 0; i < derived_.size(); ++i) {
    const std::int64_t v = derived_[i].value_of(s);
    if (v < b.dim[3 + i].lo || v > b.dim[3 + i].hi) return false;
  }
  return true;
}

namespace {

/// Below this, M * N and the tile counts of M and N cannot reach kDimMax, and ceil divisions
/// fit 32 bits: the hot path of matches() (every rule of every program on every shape).
constexpr std::int64_t kSmallDim = std::int64_t(1) << 30;

/// Comparison::value_of, with derived features computed without saturation when M and N are
/// in [1, kSmallDim] (the same values derived_value gives there).
inline std::int64_t term_value(const Comparison& t, const Shape& s) {
  switch (t.feature) {
  case Feature::M:
    return s.M;
  case Feature::N:
    return s.N;
  case Feature::K:
    return s.K;
  case Feature::MN:
  case Feature::tiles:
    break;
  }
  if (s.M < 1 || s.M > kSmallDim || s.N < 1 || s.N > kSmallDim || t.tile_m < 1 || t.tile_n < 1)
    return t.value_of(s);
  if (t.feature == Feature::MN) return s.M * s.N;
  const auto q = std::uint32_t(s.M - 1) / std::uint32_t(t.tile_m) + 1; // cdiv(M, tile_m)
  const auto r = std::uint32_t(s.N - 1) / std::uint32_t(t.tile_n) + 1;
  return std::int64_t(q) * std::int64_t(r);
}

} // namespace

bool Condition::matches(const Shape& s) const {
  for (const auto& t : terms) {
    const std::int64_t x = term_value(t, s);
    bool ok = false;
    switch (t.op) {
    case CmpOp::lt:
      ok = x < t.value;
      break;
    case CmpOp::le:
      ok = x <= t.value;
      break;
    case CmpOp::gt:
      ok = x > t.value;
      break;
    case CmpOp::ge:
      ok = x >= t.value;
      break;
    case CmpOp::eq:
      ok = x == t.value;
      break;
    }
    if (!ok) return false;
  }
  return true;
}

bool Condition::has_derived() const {
  return std::any_of(terms.begin(), terms.end(),
                     [](const Comparison& t) { return is_derived(t.feature); });
}

namespace {

void apply_bound(Interval& i, CmpOp op, std::int64_t value) {
  // Clamp the constant into the representable range so comparisons with huge or negative
  // literals stay exact over the positive integers.
  const std::int64_t v = std::clamp<std::int64_t>(value, -1, kDimMax + 1);
  switch (op) {
  case CmpOp::lt:
    i.hi = std::min(i.hi, v - 1);
    break;
  case CmpOp::le:
    i.hi = std::min(i.hi, v);
    break;
  case CmpOp::gt:
    i.lo = std::max(i.lo, v + 1);
    break;
  case CmpOp::ge:
    i.lo = std::max(i.lo, v);
    break;
  case CmpOp::eq:
    i.lo = std::max(i.lo, v);
    i.hi = std::min(i.hi, v);
    break;
  }
}

} // namespace

Interval accepted_values(const Comparison& c) {
  Interval i;
  apply_bound(i, c.op, c.value);
  return i;
}

Box Condition::box(const FeatureSpace& space) const {
  Box b;
  b.dims = space.dims();
  for (const auto& t : terms) {
    const int d = space.dim_of(t);
    if (d < 0) throw std::invalid_argument("condition has a derived feature outside its space");
    apply_bound(b.dim[d], t.op, t.value);
  }
  space.tighten(b);
  return b;
}

Box Condition::box() const {
  if (!has_derived()) {
    Box b;
    for (const auto& t : terms)
      apply_bound(b.dim[int(t.feature)], t.op, t.value);
    return b;
  }
  FeatureSpace space;
  for (const auto& t : terms)
    space.add(t);
  Box relaxed = box(space);
  Box b;
  for (int d = 0; d < 3; ++d)
    b.dim[d] = relaxed.dim[d];
  if (relaxed.empty()) b.dim[0] = {1, 0};
  return b;
}

} // namespace tv
