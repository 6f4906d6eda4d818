#include "ir/wave_guards.hpp"

#include "ir/rng.hpp"
#include "ir/text.hpp"
#include "support/fixtures.hpp"
#include "support/random_program.hpp"

#include <doctest/doctest.h>

// In a namespace of its own: the test files are compiled several to a unit (unity build).
namespace wave_guards_test {

using namespace tv;

namespace {

Shape at(std::int64_t m, std::int64_t n) {
  return test::shape(m, n, 4096);
}

} // namespace

TEST_CASE("a rule whose training shapes fill one wave of its tile is kept to that wave") {
  // The shape of the mi355x transfer this was built for: M * N <= 2359296 with 64x128 tiles,
  // trained where that grid fills 256 units exactly, met by M = 512, N = 4608 (288 tiles).
  const Program p = parse_program_or_throw(
      "def choose(M, N, K):\n"
      "    if M * N <= 2359296:\n"
      "        return Config(BM=64, BN=128, BK=128, warps=4, stages=3, group=1)\n"
      "    return Config(BM=128, BN=128, BK=128, warps=8, stages=3, group=1)\n",
      "test");
  const std::vector<Shape> train{at(512, 4096), at(256, 4096), at(1024, 8192)};
  const GuardedWaves g = guard_waves(p, train, 256);
  REQUIRE(g.program.rules.size() == 1);
  const auto& terms = g.program.rules[0].condition.terms;
  REQUIRE(terms.size() == 2);
  CHECK(terms[1].feature == Feature::tiles);
  CHECK(terms[1].tile_m == 64);
  CHECK(terms[1].tile_n == 128);
  CHECK(terms[1].value == 256);
  REQUIRE(g.changes.size() == 1);
  CHECK(g.changes[0] == "rule 1: and cdiv(M, 64) * cdiv(N, 128) <= 256 (its training shapes fill "
                        "1 wave of 256 units)");
  for (const Shape& s : train)
    CHECK(g.program.choose(s) == p.choose(s));
  // The unseen shape whose grid would spill into a second wave goes on to the 128x128 tile.
  CHECK(p.choose(at(512, 4608)).BM == 64);
  CHECK(g.program.choose(at(512, 4608)).BM == 128);
  // The guarded program prints and parses back to itself.
  CHECK(parse_program_or_throw(print_program(g.program), "guarded") == g.program);
}

TEST_CASE("a multi-wave rule is kept to its whole waves, a rule already bounded is left alone") {
  const Program p = parse_program_or_throw(
      "def choose(M, N, K):\n"
      "    if M <= 2048:\n"
      "        return Config(BM=64, BN=64, BK=64, warps=4, stages=3, group=8)\n"
      "    if cdiv(M, 128) * cdiv(N, 128) <= 100:\n"
      "        return Config(BM=128, BN=128, BK=64, warps=4, stages=3, group=8)\n"
      "    return Config(BM=128, BN=256, BK=64, warps=8, stages=3, group=8)\n",
      "test");
  // Rule 1's largest grid: 2048 / 64 x 4096 / 64 = 2048 tiles, 16 waves of 132 (2112).
  const std::vector<Shape> train{at(2048, 4096), at(64, 64), at(4096, 1024), at(8192, 8192)};
  const GuardedWaves g = guard_waves(p, train, 132);
  REQUIRE(g.changes.size() == 1);
  CHECK(g.changes[0] == "rule 1: and cdiv(M, 64) * cdiv(N, 64) <= 2112 (its training shapes fill "
                        "16 waves of 132 units)");
  // Rule 2 already bounds its own tile count at 100, under one wave: no second comparison.
  CHECK(g.program.rules[1] == p.rules[1]);
  for (const Shape& s : train)
    CHECK(g.program.choose(s) == p.choose(s));
}

TEST_CASE("guard_waves leaves vendor rules, unreached rules and unit-less GPUs alone") {
  const Program p = parse_program_or_throw(
      "def choose(M, N, K):\n"
      "    if M <= 16:\n"
      "        return \"vendor\"\n"
      "    if M <= 32:\n"
      "        return Config(BM=32, BN=64, BK=64, warps=4, stages=3, group=8)\n"
      "    return Config(BM=128, BN=128, BK=64, warps=4, stages=3, group=8)\n",
      "test");
  const std::vector<Shape> train{at(8, 4096), at(1024, 4096)}; // nothing reaches rule 2
  CHECK(guard_waves(p, train, 132).program == p);
  CHECK(guard_waves(p, train, 132).changes.empty());
  CHECK(guard_waves(p, {at(32, 4096)}, 0).program == p);
  // A tile wider than cdiv can name (found by fuzz_program_text) gets no guard: the result
  // must print to a program that parses.
  const Program wide = parse_program_or_throw(
      "def choose(M, N, K):\n"
      "    if M <= 16:\n"
      "        return Config(BM=16, BN=641000, BK=128, warps=4, stages=4, group=1)\n"
      "    return Config(BM=128, BN=128, BK=64, warps=4, stages=3, group=8)\n",
      "test");
  CHECK(guard_waves(wide, {at(8, 4096)}, 132).program == wide);
}

TEST_CASE("guard_waves stays within the program's derived features, fullest single wave first") {
  // Five derived features already: one more fits, and it goes to the rule whose training shapes
  // fill their wave the most (rule 2: 128 of 132 tiles), not to rule 1 (4 of 132).
  const Program p = parse_program_or_throw(
      "def choose(M, N, K):\n"
      "    if M * N <= 65536 and cdiv(M, 16) * cdiv(N, 16) <= 1000:\n"
      "        return Config(BM=16, BN=32, BK=64, warps=4, stages=3, group=8)\n"
      "    if cdiv(M, 32) * cdiv(N, 32) <= 4000 and cdiv(M, 256) * cdiv(N, 256) <= 900:\n"
      "        return Config(BM=64, BN=128, BK=64, warps=4, stages=3, group=8)\n"
      "    if cdiv(M, 16) * cdiv(N, 64) <= 100000:\n"
      "        return Config(BM=128, BN=64, BK=64, warps=4, stages=3, group=8)\n"
      "    return Config(BM=128, BN=256, BK=64, warps=8, stages=3, group=8)\n",
      "test");
  const std::vector<Shape> train{at(16, 128), at(512, 2048), at(2048, 8192)};
  const GuardedWaves g = guard_waves(p, train, 132);
  REQUIRE(g.changes.size() == 1);
  CHECK(g.changes[0].rfind("rule 2: and cdiv(M, 64) * cdiv(N, 128) <= 132", 0) == 0);
  CHECK(parse_program_or_throw(print_program(g.program), "guarded") == g.program);
}

TEST_CASE("guard_waves never changes a training decision (random programs and shapes)") {
  Rng rng(11);
  for (int trial = 0; trial < 300; ++trial) {
    const Program p = test::random_program(rng, 6, 4096);
    std::vector<Shape> train;
    for (int i = 0; i < 20; ++i)
      train.push_back(test::shape(rng.uniform_int(1, 8192), rng.uniform_int(1, 8192), 1024));
    const int units = int(rng.uniform_int(1, 304));
    const GuardedWaves g = guard_waves(p, train, units);
    for (const Shape& s : train)
      REQUIRE(g.program.choose(s) == p.choose(s));
    // One comparison per listed guard, each on the tile count of its own rule's config.
    std::size_t added = 0;
    for (std::size_t i = 0; i < p.rules.size(); ++i) {
      const auto& before = p.rules[i].condition.terms;
      const auto& after = g.program.rules[i].condition.terms;
      REQUIRE(after.size() >= before.size());
      for (std::size_t t = before.size(); t < after.size(); ++t) {
        CHECK(after[t].feature == Feature::tiles);
        CHECK(after[t].tile_m == p.rules[i].config.BM);
        CHECK(after[t].tile_n == p.rules[i].config.BN);
        CHECK(after[t].value % units == 0);
      }
      added += after.size() - before.size();
    }
    CHECK(added == g.changes.size());
    // Guarding again adds nothing: every guard is already in place.
    CHECK(guard_waves(g.program, train, units).changes.empty());
  }
}

} // namespace wave_guards_test
