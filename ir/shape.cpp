#include "ir/shape.hpp"

#include "ir/printable.hpp"

#include <fmt/format.h>

namespace tv {

bool is_shape_layout(std::string_view s) {
  for (std::string_view l : kShapeLayouts)
    if (s == l) return true;
  return false;
}

int dtype_bytes(DType d) {
  switch (d) {
  case DType::f16:
  case DType::bf16:
    return 2;
  case DType::f32:
    return 4;
  case DType::fp8:
    return 1;
  }
  return 2;
}

ShapeKey shape_key(const Shape& s) {
  return {s.M, s.N, s.K, s.dtype, s.layout.empty() ? std::string(kShapeLayouts.front()) : s.layout};
}

std::string_view dtype_name(DType d) {
  switch (d) {
  case DType::f16:
    return "f16";
  case DType::bf16:
    return "bf16";
  case DType::f32:
    return "f32";
  case DType::fp8:
    return "fp8";
  }
  return "bf16";
}

std::optional<DType> parse_dtype(std::string_view s) {
  if (s == "bf16" || s == "bfloat16") return DType::bf16;
  if (s == "f16" || s == "fp16" || s == "float16" || s == "half") return DType::f16;
  if (s == "f32" || s == "fp32" || s == "float32" || s == "float") return DType::f32;
  if (s == "fp8" || s == "f8" || s == "float8") return DType::fp8;
  return std::nullopt;
}

std::string Shape::label() const {
  if (!name.empty()) return escape_controls(name); // printed: no control character acts
  return fmt::format("{}x{}x{}", M, N, K);
}

} // namespace tv
