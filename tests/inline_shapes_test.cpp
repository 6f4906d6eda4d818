#include "ir/error.hpp"
#include "models/workloads/inline_shapes.hpp"

#include <doctest/doctest.h>

// In a namespace of its own: the test files are compiled several to a unit (unity build).
namespace inline_shapes_test {

using namespace tv;

TEST_CASE("inline_shapes: M,N,K with an optional dtype") {
  const Shape s = parse_inline_shape("128,4096, 14336");
  CHECK(s.M == 128);
  CHECK(s.N == 4096);
  CHECK(s.K == 14336);
  CHECK(s.dtype == DType::bf16);
  CHECK(s.weight == 1);
  CHECK(s.layout.empty());
  CHECK(s.name == "inline:bf16:M128:N4096:K14336");
  CHECK(parse_inline_shape("1,2,3,fp16").name == "inline:f16:M1:N2:K3");
  const auto both = parse_inline_shapes({"1,2,3", "1,2,3,f32"});
  REQUIRE(both.size() == 2);
  CHECK(both[1].dtype == DType::f32);
}

TEST_CASE("inline_shapes: bad specs name the spec and what was expected") {
  CHECK_THROWS_WITH_AS(parse_inline_shape("1,2"),
                       "--inline '1,2': 2 fields (expected M,N,K or M,N,K,dtype, e.g. "
                       "128,4096,4096,bf16)",
                       InputError);
  CHECK_THROWS_WITH_AS(parse_inline_shape("1,0,3"),
                       doctest::Contains("N must be an integer in [1, 2^31], got '0'"), InputError);
  CHECK_THROWS_AS(parse_inline_shape("1,2,3,int4"), InputError);
  CHECK_THROWS_AS(parse_inline_shape("1,2,3,bf16,x"), InputError);
  CHECK_THROWS_AS(parse_inline_shape("1,2,99999999999"), InputError);
  CHECK_THROWS_WITH_AS(parse_inline_shapes({"1,2,3", " 1,2,3,bf16"}),
                       "--inline ' 1,2,3,bf16': the same shape is given twice", InputError);
  CHECK_THROWS_AS(parse_inline_shapes({}), InputError);
}

} // namespace inline_shapes_test
