#include "ir/threshold_placement.hpp"

#include "ir/rng.hpp"
#include "ir/text.hpp"
#include "support/random_program.hpp"

#include <doctest/doctest.h>

#include <cmath>

// In a namespace of its own: the test files are compiled several to a unit (unity build).
namespace threshold_placement_test {

using namespace tv;

namespace {

Shape at(std::int64_t m, std::int64_t n, std::int64_t k) {
  Shape s;
  s.M = m;
  s.N = n;
  s.K = k;
  return s;
}

Program parse(const std::string& text) {
  return parse_program_or_throw(text, "test");
}

} // namespace

TEST_CASE("cut_between lies in the gap, in its middle tenth in log space, at a round value") {
  CHECK(cut_between(128, 256) == 176);             // 11 x 16, the roundest between 175 and 187
  CHECK(cut_between(64, 1024) == 256);             // a power of two at the geometric mean
  CHECK(cut_between(100, 101) == 100);             // no room: the lower value
  CHECK(cut_between(1572864, 2097152) == 1835008); // 7 x 2^18
  CHECK(cut_between(1000, 1100) == 1048);          // no round value nearby: near the geometric mean
  for (std::int64_t a : {1, 2, 3, 7, 16, 100, 1000, 4095, 65536})
    for (std::int64_t b : {a + 1, a + 2, a + 3, 2 * a + 1, 10 * a, 1000 * a}) {
      const std::int64_t t = cut_between(a, b);
      CHECK(t >= a);
      CHECK(t < b);
      const double la = std::log(double(a)), lb = std::log(double(b));
      if (b - a >= 8) { // wide enough for the window to matter
        CHECK(double(t) >= std::floor(std::exp(la + (lb - la) * 0.45)));
        CHECK(double(t) <= std::ceil(std::exp(la + (lb - la) * 0.55)));
      }
    }
}

TEST_CASE("cut_between prefers whole and half waves for tile counts") {
  // 132 units: between 106 and 159 tiles, a whole wave (132) wins over a power of two (128).
  CHECK(cut_between(106, 159, true, 132) == 132);
  CHECK(cut_between(106, 159, false, 132) == 128);
}

TEST_CASE("place_thresholds keeps every training decision and moves cuts to the gap's middle") {
  const std::vector<Shape> train = {at(1, 4096, 4096), at(16, 4096, 4096), at(256, 4096, 4096),
                                    at(4096, 4096, 4096)};
  const Program p =
      parse("def choose(M, N, K):\n"
            "    if M <= 16:\n"
            "        return Config(BM=16, BN=64, BK=64, warps=4, stages=4, group=8)\n"
            "    if M < 4096:\n"
            "        return Config(BM=64, BN=128, BK=64, warps=4, stages=3, group=8)\n"
            "    return Config(BM=128, BN=256, BK=64, warps=8, stages=3, group=8)\n");
  const PlacedThresholds placed = place_thresholds(p, train);
  for (const Shape& s : train)
    CHECK(placed.program.choose(s) == p.choose(s));
  REQUIRE(placed.program.rules.size() == 2);
  // Between 16 and 256 the cut goes to 64 (the geometric mean); between 256 and 4096 to 1024.
  CHECK(placed.program.rules[0].condition.terms[0].value == 64);
  CHECK(placed.program.rules[1].condition.terms[0].op == CmpOp::le); // `M < 4096` became
  CHECK(placed.program.rules[1].condition.terms[0].value == 1024);   // `M <= 1024`
  CHECK(placed.changes.size() == 2);
  // An unseen shape inside the gap now goes by the middle: M = 32 was past the first cut (16)
  // and now falls under it (64).
  CHECK(placed.program.choose(at(32, 4096, 4096)) == p.rules[0].config);
  CHECK(p.choose(at(32, 4096, 4096)) != p.rules[0].config);
}

TEST_CASE("place_thresholds leaves comparisons with no training shape on one side alone") {
  const std::vector<Shape> train = {at(1, 4096, 4096), at(16, 4096, 4096)};
  const Program p = parse("def choose(M, N, K):\n"
                          "    if M <= 100000:\n"
                          "        return Config(BM=16, BN=64, BK=64, warps=4, stages=4, group=8)\n"
                          "    return Config(BM=128, BN=256, BK=64, warps=8, stages=3, group=8)\n");
  const PlacedThresholds placed = place_thresholds(p, train);
  CHECK(placed.program == p);
  CHECK(placed.changes.empty());
}

TEST_CASE("place_thresholds never changes a training decision (random programs and shapes)") {
  Rng rng(7);
  for (int trial = 0; trial < 300; ++trial) {
    const Program p = test::random_program(rng, 6, 64);
    std::vector<Shape> train;
    for (int i = 0; i < 20; ++i)
      train.push_back(at(rng.uniform_int(1, 80), rng.uniform_int(1, 80), rng.uniform_int(1, 80)));
    const PlacedThresholds placed = place_thresholds(p, train);
    for (const Shape& s : train)
      REQUIRE(placed.program.choose(s) == p.choose(s));
    // Placing again moves nothing: each cut already sits where placement puts it.
    CHECK(place_thresholds(placed.program, train).program == placed.program);
  }
}

} // namespace threshold_placement_test
