// One program made of two by a box (ir/box_split.hpp): the inside program decides every shape in
// the box, the outside one every other, in both spellings, on random programs and boxes.
#include "support/export_check.hpp"
#include "support/random_program.hpp"

#include "ir/box_split.hpp"

#include <doctest/doctest.h>

// In a namespace of its own: the test files are compiled several to a unit (unity build).
namespace box_split_test {

using namespace tv;

namespace {

std::size_t comparisons(const Program& p) {
  std::size_t n = 0;
  for (const Rule& r : p.rules)
    n += r.condition.terms.size();
  return n;
}

} // namespace

TEST_CASE("box split: inside decides the box, outside the rest") {
  Rng rng(63);
  int faces_first = 0, bounds_first = 0;
  for (int iter = 0; iter < 400; ++iter) {
    CAPTURE(iter);
    const Program inside = test::random_program(rng, 6, 64, 3);
    const Program outside = test::random_program(rng, int(rng.uniform_int(0, 3)), 64, 3);
    Box box;
    for (int d = 0; d < 3; ++d) {
      // Some ends open (1 or kDimMax): no face there.
      const std::int64_t lo = rng.chance(0.2) ? 1 : rng.uniform_int(1, 40);
      const std::int64_t hi = rng.chance(0.2) ? kDimMax : lo + rng.uniform_int(0, 40);
      box.dim[std::size_t(d)] = {lo, hi};
    }
    const Program p = box_split(box, inside, outside);
    for (std::int64_t M = 1; M <= 90; M += 3)
      for (std::int64_t N = 1; N <= 90; N += 7)
        for (std::int64_t K :
             {std::int64_t(1), std::int64_t(2), std::int64_t(39), std::int64_t(80), kDimMax}) {
          const Shape s = test::grid_shape(M, N, K);
          const Config& want = box.contains(s) ? inside.choose(s) : outside.choose(s);
          if (!(p.choose(s) == want)) {
            FAIL_CHECK("differs at " << s.label());
            M = 1000;
            break;
          }
        }
    // Which spelling it took (faces first ends with the inside program unchanged).
    const bool first_faces =
        p.rules.size() >= outside.rules.size() + 1 && p.default_config == inside.default_config &&
        std::equal(inside.rules.rbegin(), inside.rules.rend(), p.rules.rbegin());
    (first_faces ? faces_first : bounds_first) += 1;
  }
  CHECK(faces_first > 0);
  CHECK(bounds_first > 0);
}

TEST_CASE("box split: a one-config outside is one rule per face, before the inside program") {
  Rng rng(1);
  Program inside;
  inside.rules.push_back({Condition{{{Feature::M, CmpOp::le, 64}}}, test::random_config(rng)});
  inside.default_config = test::random_config(rng);
  const Config vendor = vendor_config();
  Program outside;
  outside.default_config = vendor;
  Box box;
  box.dim[0] = {16, 4096};   // M: two faces
  box.dim[1] = {1, 8192};    // N: one face (no N below 1)
  box.dim[2] = {1, kDimMax}; // K: none
  const Program p = box_split(box, inside, outside);
  REQUIRE(p.rules.size() == 3 + inside.rules.size());
  CHECK(p.rules[0].condition.terms == std::vector<Comparison>{{Feature::M, CmpOp::lt, 16}});
  CHECK(p.rules[1].condition.terms == std::vector<Comparison>{{Feature::M, CmpOp::gt, 4096}});
  CHECK(p.rules[2].condition.terms == std::vector<Comparison>{{Feature::N, CmpOp::gt, 8192}});
  for (int k = 0; k < 3; ++k)
    CHECK(p.rules[std::size_t(k)].config == vendor);
  CHECK(p.rules[3] == inside.rules[0]);
  CHECK(p.default_config == inside.default_config);
  CHECK(comparisons(p) == 4);
  // An unbounded box: the inside program itself.
  CHECK(box_split(Box{}, inside, outside) == inside);
}

} // namespace box_split_test
