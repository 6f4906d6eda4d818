#include "ir/condition.hpp"

#include <algorithm>

namespace tv {

std::string_view feature_name(Feature f) {
  switch (f) {
  case Feature::M:
    return "M";
  case Feature::N:
    return "N";
  case Feature::K:
    return "K";
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
  case Feature::M:
    return s.M;
  case Feature::N:
    return s.N;
  case Feature::K:
    return s.K;
  }
  return s.M;
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

bool Box::empty() const {
  return std::any_of(dim.begin(), dim.end(), [](const Interval& i) { return i.empty(); });
}

bool Box::contains(const Shape& s) const {
  for (int d = 0; d < 3; ++d) {
    std::int64_t x = feature_value(s, Feature(d));
    if (x < dim[d].lo || x > dim[d].hi) return false;
  }
  return true;
}

bool Condition::matches(const Shape& s) const {
  for (const auto& t : terms)
    if (!t.holds(feature_value(s, t.feature))) return false;
  return true;
}

Box Condition::box() const {
  Box b;
  for (const auto& t : terms) {
    Interval& i = b.dim[int(t.feature)];
    // Clamp the constant into the representable range so comparisons with huge or negative
    // literals stay exact over the positive integers.
    const std::int64_t v = std::clamp<std::int64_t>(t.value, -1, kDimMax + 1);
    switch (t.op) {
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
  return b;
}

} // namespace tv
