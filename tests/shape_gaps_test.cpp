// Where two programs part on a shape set, on a table small enough to work out by hand.
#include "eval/shape_gaps.hpp"

#include "ir/text.hpp"
#include "support/fixtures.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <limits>

// In a namespace of its own: the test files are compiled several to a unit (unity build).
namespace shape_gaps_test {

using namespace tv;

namespace {

/// Four shapes (M = 16, 64, 256, 1024) x four configs. Config 0 (64x64) is the oracle on
/// M 16 and 64, config 1 (128x128) on M 256 and 1024; config 2 (32x32) takes 4 s everywhere
/// but on M = 1024, where it has no time; config 3 (64x64, BK 32) takes config 0's times.
TimeTable four_by_three() {
  std::vector<Shape> shapes;
  for (std::int64_t m : {16, 64, 256, 1024}) {
    shapes.push_back(test::shape(m, 4096, 4096));
    shapes.back().name = "M" + std::to_string(m);
  }
  const double inf = std::numeric_limits<double>::infinity();
  TimeMatrix t = {
      {1.0, 2.0, 4.0, 1.0}, {1.0, 1.25, 4.0, 1.0}, {3.0, 1.0, 4.0, 3.0}, {1.5, 1.0, inf, 1.5}};
  return TimeTable(shapes,
                   {test::cfg(64, 64, 64, 4, 3, 8), test::cfg(128, 128, 64, 4, 3, 8),
                    test::cfg(32, 32, 64, 4, 3, 8), test::cfg(64, 64, 32, 4, 3, 8)},
                   std::move(t), false);
}

Program program(const std::string& text) {
  return parse_program_or_throw(text, "test");
}

} // namespace

TEST_CASE("shape_gaps: the shapes two programs part on, each with its share of the gap") {
  const TimeTable t = four_by_three();
  const Scorer s(t, {0, 1, 2, 3}, test::constant_program(t.configs()[0]));
  // The reference: 64x64 up to M 64, then 128x128 (the oracle on every shape).
  const Program oracle = program("def choose(M, N, K):\n"
                                 "    if M <= 64:\n"
                                 "        return Config(BM=64, BN=64, BK=64, warps=4, stages=3, "
                                 "group=8)\n"
                                 "    return Config(BM=128, BN=128, BK=64, warps=4, stages=3, "
                                 "group=8)\n");
  const Program single = test::constant_program(t.configs()[1]); // 128x128 everywhere

  SUBCASE("losses: named largest first, their shares summing to about the gap") {
    const ShapeGaps g = shape_gaps(s, single, oracle, 3);
    CHECK(g.shapes == 4);
    CHECK(g.differ == 2); // M 16 and M 64
    CHECK(g.untimed == 0);
    CHECK(g.gaining == 0);
    CHECK(g.losing == 2);
    REQUIRE(g.losses.size() == 2);
    CHECK(g.gains.empty());
    CHECK(g.losses[0].shape.M == 16); // 2x slower there, 1.25x on M 64
    CHECK(g.losses[1].shape.M == 64);
    CHECK(g.losses[0].a_of_oracle == doctest::Approx(0.5));
    CHECK(g.losses[0].b_of_oracle == doctest::Approx(1.0));
    CHECK(g.losses[0].a == t.configs()[1]);
    CHECK(g.losses[0].b == t.configs()[0]);
    // The fraction of the single config: (0.5 x 0.8)^(1/4) against the oracle's 1; the gap is
    // split in proportion to the log shares log 0.5 and log 0.8.
    const double gap = 100 * (std::pow(0.4, 0.25) - 1);
    CHECK(g.gap == doctest::Approx(gap));
    CHECK(g.losses[0].points == doctest::Approx(gap * std::log(0.5) / std::log(0.4)));
    CHECK(g.losses[1].points == doctest::Approx(gap * std::log(0.8) / std::log(0.4)));
    CHECK(g.lost == doctest::Approx(gap));
    CHECK_FALSE(g.lost_to_one_shape()); // M 16 alone is about 0.76 of the gap
    // Parting on M 16 only, the one shape is the whole gap.
    const Program one = program("def choose(M, N, K):\n"
                                "    if M <= 16:\n"
                                "        return Config(BM=128, BN=128, BK=64, warps=4, stages=3, "
                                "group=8)\n"
                                "    if M <= 64:\n"
                                "        return Config(BM=64, BN=64, BK=64, warps=4, stages=3, "
                                "group=8)\n"
                                "    return Config(BM=128, BN=128, BK=64, warps=4, stages=3, "
                                "group=8)\n");
    const ShapeGaps o = shape_gaps(s, one, oracle, 3);
    CHECK(o.differ == 1);
    CHECK(o.lost_to_one_shape());
    CHECK_FALSE(shape_gaps(s, oracle, one, 3).lost_to_one_shape()); // a gain, not a loss
  }

  SUBCASE("the other way round: gains, and `top` keeps the largest") {
    const ShapeGaps g = shape_gaps(s, oracle, single, 1);
    CHECK(g.gaining == 2);
    CHECK(g.losing == 0);
    REQUIRE(g.gains.size() == 1);
    CHECK(g.gains[0].shape.M == 16);
    CHECK(g.gains[0].points > 0);
    CHECK(g.gained > g.gains[0].points); // both shapes count in the sum
    CHECK(g.gap > 0);
    CHECK(g.gained == doctest::Approx(g.gap));
  }

  SUBCASE("the same program: nothing parts") {
    const ShapeGaps g = shape_gaps(s, oracle, oracle, 3);
    CHECK(g.differ == 0);
    CHECK(g.gap == 0);
    CHECK(g.losses.empty());
    CHECK(g.gains.empty());
  }

  SUBCASE("a choice without a time is counted apart, and the gap is left at 0") {
    const Program slow = test::constant_program(t.configs()[2]); // no time on M 1024
    const ShapeGaps g = shape_gaps(s, slow, oracle, 3);
    CHECK(g.differ == 4);
    CHECK(g.untimed == 1);
    CHECK(g.losing == 3);
    CHECK(g.gap == 0); // the program has no valid score on the set
    for (const ShapeGap& x : g.losses)
      CHECK(x.shape.M != 1024);
    // The other way round the reference has no valid score: no shares, the shapes still named.
    const ShapeGaps back = shape_gaps(s, oracle, slow, 3);
    CHECK(back.gaining == 3);
    CHECK(back.gained == 0);
    REQUIRE(back.gains.size() == 3);
    CHECK(back.gains[0].points == 0);
  }

  SUBCASE("configs that differ but take the same time are neither gains nor losses") {
    const ShapeGaps g = shape_gaps(s, test::constant_program(t.configs()[3]),
                                   test::constant_program(t.configs()[0]), 3);
    CHECK(g.differ == 4);
    CHECK(g.gaining == 0);
    CHECK(g.losing == 0);
    CHECK(g.gap == doctest::Approx(0.0));
    CHECK(g.losses.empty());
    CHECK(g.gains.empty());
  }

  SUBCASE("another program text with the same choices parts on nothing") {
    const Program same_choices = program("def choose(M, N, K):\n"
                                         "    if M <= 100:\n"
                                         "        return Config(BM=64, BN=64, BK=64, warps=4, "
                                         "stages=3, group=8)\n"
                                         "    return Config(BM=128, BN=128, BK=64, warps=4, "
                                         "stages=3, group=8)\n");
    CHECK(shape_gaps(s, same_choices, oracle, 3).differ == 0);
  }
}

} // namespace shape_gaps_test
