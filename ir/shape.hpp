#pragma once
/// GEMM problem shapes: the input a tiling heuristic decides on.
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>

namespace tv {

/// The operand layouts a shape may name, one letter per operand (A then B); "NN" first (an
/// empty layout means "NN").
inline constexpr std::array<std::string_view, 4> kShapeLayouts = {"NN", "NT", "TN", "TT"};
/// Whether `s` is one of kShapeLayouts (the empty string is not).
bool is_shape_layout(std::string_view s);

/// Element type of the GEMM operands.
enum class DType { f16, bf16, f32, fp8 };

/// Bytes per element of `d`.
int dtype_bytes(DType d);
/// Canonical lowercase name ("bf16").
std::string_view dtype_name(DType d);
/// Parses "bf16", "bfloat16", "f16", "fp16", "float16", "f32", "fp32", "float32", "fp8"; nullopt
/// otherwise.
std::optional<DType> parse_dtype(std::string_view s);

/// One GEMM C[M,N] = A[M,K] * B[K,N], with an optional name, workload weight and layout.
struct Shape {
  std::int64_t M = 1, N = 1, K = 1;
  DType dtype = DType::bf16;
  std::string name;
  double weight = 1.0;
  /// Operand layout, one letter per operand (A then B): "NN" (both row-major, the plain
  /// A[M,K] * B[K,N]), "NT", "TN" or "TT" ('T': stored transposed); empty = unspecified (NN).
  /// Heuristics cannot see it; it only tells recorded timings of one M, N, K apart. (The `{}`
  /// keeps -Wmissing-field-initializers quiet for initialisers that end at the weight.)
  std::string layout{};

  /// Floating-point operations of one GEMM (2*M*N*K).
  double flops() const { return 2.0 * double(M) * double(N) * double(K); }
  /// The name with its control characters escaped (escape_controls: labels reach terminals),
  /// or "MxNxK" when the shape has none.
  std::string label() const;
  friend bool operator==(const Shape&, const Shape&) = default;
};

/// What tells two shapes apart for a timing: M, N, K, dtype and layout (name and weight are
/// not part of it).
using ShapeKey = std::tuple<std::int64_t, std::int64_t, std::int64_t, DType, std::string>;
/// The key of `s`, its empty layout written "NN".
ShapeKey shape_key(const Shape& s);

} // namespace tv
