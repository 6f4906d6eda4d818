#pragma once
/// Shapes given on the command line, one per `--inline M,N,K[,dtype]`.
#include "ir/shape.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace tv {

/// Parses "M,N,K[,dtype]" (row-major C[M,N] = A[M,K] * B[K,N]; dtype bf16 when absent; spaces
/// around fields are fine) into a shape named "inline:<dtype>:M<m>:N<n>:K<k>" with weight 1.
/// Throws InputError naming the spec for a wrong field count, a size that is not an integer
/// in [1, 2^31], or an unknown dtype.
Shape parse_inline_shape(std::string_view spec);
/// Every spec in order; throws InputError for a bad spec, the same shape given twice, or
/// none at all.
std::vector<Shape> parse_inline_shapes(const std::vector<std::string>& specs);

} // namespace tv
