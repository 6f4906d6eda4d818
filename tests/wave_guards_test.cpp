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
  // The guard alone (the taller default gives it a return rule too: the next test case).
  const GuardedWaves g = guard_waves(p, train, 256, {.returns = false});
  REQUIRE(g.program.rules.size() == 1);
  const auto& terms = g.program.rules[0].condition.terms;
  REQUIRE(terms.size() == 2);
  CHECK(terms[1].feature == Feature::tiles);
  CHECK(terms[1].tile_m == 64);
  CHECK(terms[1].tile_n == 128);
  CHECK(terms[1].value == 256);
  REQUIRE(g.changes.size() == 1);
  CHECK(g.changes[0] == rule_reference(p, 0) +
                            ": and cdiv(M, 64) * cdiv(N, 128) <= 256 (its training shapes fill "
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
  CHECK(g.changes[0] == rule_reference(p, 0) +
                            ": and cdiv(M, 64) * cdiv(N, 64) <= 2112 (its training shapes fill "
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
  CHECK(g.changes[0].rfind(rule_reference(p, 1) + ": and cdiv(M, 64) * cdiv(N, 128) <= 132", 0) ==
        0);
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
    // Return rules on or off, no training shape changes its config.
    for (const bool returns : {true, false}) {
      const GuardedWaves r = guard_waves(p, train, units, {.returns = returns});
      for (const Shape& s : train)
        REQUIRE(r.program.choose(s) == p.choose(s));
      // The guarded rules in their order, each return rule just before the rule it stands
      // before, with the config of an earlier rule.
      const Program plain = guard_waves(p, train, units, {.returns = false}).program;
      REQUIRE(r.program.rules.size() == p.rules.size() + r.returns.size());
      std::size_t at = 0, next = 0;
      for (std::size_t j = 0; j <= p.rules.size(); ++j) {
        for (; next < r.returns.size() && r.returns[next].before == j; ++next, ++at) {
          REQUIRE(r.returns[next].rule < j);
          CHECK(r.program.rules[at].config == p.rules[r.returns[next].rule].config);
        }
        if (j < p.rules.size()) CHECK(r.program.rules[at++] == plain.rules[j]);
      }
      CHECK(next == r.returns.size());
      // Guarding again adds nothing: every guard is already in place.
      CHECK(guard_waves(r.program, train, units, {.returns = returns}).changes.empty());
    }
    const GuardedWaves g = guard_waves(p, train, units, {.returns = false});
    CHECK(g.returns.empty());
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
  }
}

TEST_CASE("a shape one tile row high that a guard sends on to a taller default comes back") {
  // The mi355x transfer this was built for: rule 1's 128x256 tiles fill one wave on the
  // training shapes; a decode shape wider than any of them (M = 1, N = 106496: 416 tiles) spills
  // and would reach 256x256 (rule 2's or the default's), which launches the same 416 tiles with
  // twice the padded rows.
  const Program p = parse_program_or_throw(
      "def choose(M, N, K):\n"
      "    if M * N <= 9437184:\n"
      "        return Config(BM=128, BN=256, BK=64, warps=8, stages=3, group=16)\n"
      "    if M <= 5632:\n"
      "        return Config(BM=256, BN=256, BK=64, warps=8, stages=3, group=16)\n"
      "    return Config(BM=256, BN=256, BK=64, warps=8, stages=3, group=16)\n",
      "test");
  // Rule 2's shape fills two waves of its 256x256 tile.
  const std::vector<Shape> train{at(64, 28672), at(4096, 8192), at(8192, 8192)};
  const Config& narrow = p.rules[0].config;
  const Config& wide = p.default_config;
  // (Rule 2's shapes fill a wave: the floor that gives it is tested below.)
  const GuardedWaves plain = guard_waves(p, train, 256, {.with_floors = false, .returns = false});
  const GuardedWaves g = guard_waves(p, train, 256, {.with_floors = false});
  REQUIRE(plain.changes.size() == 2);                 // rule 2 is kept to its wave too
  CHECK(plain.program.choose(at(1, 100000)) == wide); // 391 tiles: rule 2
  CHECK(plain.program.choose(at(1, 150000)) == wide); // 586 tiles: the default
  // Returns before rule 2 and before the default, both taller tiles of rule 1's; rule 2's own
  // guard sends its shapes to the same tile, so it gets none.
  REQUIRE(g.returns == std::vector<GuardReturn>{{0, 1}, {0, 2}});
  REQUIRE(g.changes.size() == 4);
  CHECK(g.changes[0] == plain.changes[0]);
  CHECK(g.changes[1] == plain.changes[1]);
  // Rule 1's bound on M * N goes from the return rules with its guard: a decode shape reaches
  // the taller tile for want of either.
  CHECK(g.changes[2].rfind("new, before " + rule_reference(p, 1) + ": " + rule_reference(p, 0) +
                               " without its bounds on the width, M <= 128 and " +
                               rule_reference(p, 1) + " -> its config",
                           0) == 0);
  CHECK(g.changes[3].rfind("new, before the default: " + rule_reference(p, 0) +
                               " without its bounds on the width, M <= 128 -> its config",
                           0) == 0);
  REQUIRE(g.program.rules.size() == 4);
  CHECK(g.program.choose(at(1, 100000)) == narrow);
  CHECK(g.program.choose(at(1, 150000)) == narrow);
  CHECK(g.program.choose(at(128, 73728)) == narrow);
  // Taller than one tile row: the spill goes on to the larger tile, as the guard says ...
  CHECK(g.program.choose(at(200, 40000)) == wide);
  CHECK(g.program.choose(at(200, 60000)) == wide);
  // Past rule 1's bound on M * N too, a shape one tile row high comes back.
  CHECK(g.program.choose(at(64, 200000)) == narrow);
  for (const Shape& s : train)
    CHECK(g.program.choose(s) == p.choose(s));
  CHECK(parse_program_or_throw(print_program(g.program), "returned") == g.program);
}

TEST_CASE("a rule's own bounds on the width send no shape one tile row high to a taller tile") {
  // The h200 transfer to other models this was built for: a searched bound on M * N kept the
  // lm_head GEMM at M = 48 (N = 151,936) from a 64x256 rule; it reached the default's 128x256.
  const auto program = [](const char* bound) {
    return parse_program_or_throw(std::string("def choose(M, N, K):\n"
                                              "    if ") +
                                      bound +
                                      ":\n"
                                      "        return Config(BM=64, BN=256, BK=64, warps=8, "
                                      "stages=5, group=8)\n"
                                      "    return Config(BM=128, BN=256, BK=32, warps=8, "
                                      "stages=5, group=16)\n",
                                  "test");
  };
  const Shape lm_head = at(48, 151936);
  std::vector<Shape> train{at(16, 4096), at(64, 28672), at(2048, 4096)};
  SUBCASE("a searched bound on M * N, beside the guard") {
    const Program p = program("M * N <= 2228224");
    const GuardedWaves g = guard_waves(p, train, 132);
    REQUIRE(g.returns == std::vector<GuardReturn>{{0, 1}});
    CHECK(g.program.rules.back().condition.terms ==
          std::vector<Comparison>{{Feature::M, CmpOp::le, 64, 0, 0}});
    CHECK(g.program.choose(lm_head) == p.rules[0].config);
    CHECK(g.program.choose(at(65, 151936)) == p.default_config);
    for (const Shape& s : train)
      CHECK(g.program.choose(s) == p.choose(s));
    // A training shape one tile row high past the bound, on the taller tile, keeps it: the
    // return rule keeps the bound then (the guard's return alone).
    train.push_back(at(64, 40000));
    const GuardedWaves kept = guard_waves(p, train, 132);
    REQUIRE(kept.returns == std::vector<GuardReturn>{{0, 1}});
    CHECK(kept.program.choose(train.back()) == p.default_config);
    CHECK(kept.program.choose(lm_head) == p.default_config);
    CHECK(kept.changes.back().find("without its bounds") == std::string::npos);
  }
  SUBCASE("a searched tile count, so no guard") {
    const Program p = program("cdiv(M, 64) * cdiv(N, 256) <= 132");
    const GuardedWaves g = guard_waves(p, train, 132);
    CHECK(g.rules.empty());
    REQUIRE(g.returns == std::vector<GuardReturn>{{0, 1}});
    CHECK(g.program.choose(lm_head) == p.rules[0].config);
    CHECK(guard_waves(g.program, train, 132).changes.empty());
    // Without the return rules, or with a training shape that wants the taller tile, none.
    CHECK(guard_waves(p, train, 132, {.returns = false}).program == p);
    train.push_back(at(64, 40000));
    CHECK(guard_waves(p, train, 132).program == p);
  }
}

TEST_CASE("return rules only where the default's tile is the rule's made taller or wider") {
  const std::vector<Shape> train{at(64, 4096), at(8192, 8192)};
  const auto returns_with = [&](const char* rule_tile, const char* default_tile) {
    const Program p =
        parse_program_or_throw(std::string("def choose(M, N, K):\n"
                                           "    if M * N <= 1048576:\n"
                                           "        return Config(") +
                                   rule_tile +
                                   ", BK=64, warps=4, stages=3, group=8)\n"
                                   "    return Config(" +
                                   default_tile + ", BK=64, warps=8, stages=3, group=8)\n",
                               "test");
    const GuardedWaves g = guard_waves(p, train, 8);
    REQUIRE(g.rules.size() == 1);
    return g.returns.empty() ? std::string()
                             : feature_text(g.program.rules.back().condition.terms.back());
  };
  CHECK(returns_with("BM=64, BN=128", "BM=128, BN=128") == "M"); // taller
  CHECK(returns_with("BM=128, BN=64", "BM=128, BN=128") == "");  // wider: no comparison on N
  // Another width (height): the grid of a shape one tile row high (column wide) changes, and
  // finer tiles can fill the last wave better (a100: 128x256 at 112 tiles on 108 SMs against
  // 128x128 at 224), so the guard is left to send it on.
  CHECK(returns_with("BM=64, BN=128", "BM=128, BN=64") == "");
  CHECK(returns_with("BM=64, BN=128", "BM=128, BN=256") == "");
  CHECK(returns_with("BM=64, BN=128", "BM=64, BN=128") == ""); // the same tile
  CHECK(returns_with("BM=64, BN=128", "BM=32, BN=128") == ""); // shorter: fewer padded rows
  CHECK(returns_with("BM=64, BN=128", "BM=32, BN=64") == "");
}

TEST_CASE("a rule each of whose training shapes fills two waves gets a floor at one wave") {
  // The H100 replay split this was built for (random-mnk, split seed 3): `K <= 2560` took the
  // shallower pipeline from training shapes of thousands of tiles, and an unseen M = 32, N = 1280,
  // K = 1024 (10 tiles of 128x128 on 132 SMs) lost a quarter of its speed to it.
  const Program p = parse_program_or_throw(
      "def choose(M, N, K):\n"
      "    if K <= 2560:\n"
      "        return Config(BM=128, BN=128, BK=64, warps=4, stages=3, group=8)\n"
      "    return Config(BM=128, BN=128, BK=64, warps=4, stages=5, group=8)\n",
      "test");
  // Rule 1's shapes: 82 x 114 = 9348 and 1 x 599 tiles; the default's: 40 x 40, and 1 x 10 (a
  // grid under a wave of rule 1's tile: the evidence that shapes the floor sends on land where
  // such grids were fitted).
  const std::vector<Shape> train{test::shape(10496, 14592, 1024), test::shape(8, 76672, 2),
                                 test::shape(5120, 5120, 8192), test::shape(32, 1280, 4096)};
  const Shape unseen = test::shape(32, 1280, 1024);
  const GuardedWaves g = guard_waves(p, train, 132, {.returns = false});
  REQUIRE(g.rules == std::vector<std::size_t>{0});
  const auto& terms = g.program.rules[0].condition.terms;
  REQUIRE(terms.size() == 3);
  CHECK(terms[2] == Comparison{Feature::tiles, CmpOp::ge, 132, 128, 128});
  REQUIRE(g.changes.size() == 2);
  CHECK(g.changes[1] == rule_reference(p, 0) +
                            ": and cdiv(M, 128) * cdiv(N, 128) >= 132 (each of its training "
                            "shapes fills at least 2 waves of 132 units)");
  for (const Shape& s : train)
    CHECK(g.program.choose(s) == p.choose(s));
  CHECK(p.choose(unseen) == p.rules[0].config);
  CHECK(g.program.choose(unseen) == p.default_config);
  CHECK(parse_program_or_throw(print_program(g.program), "floored") == g.program);
  // Guarding the guarded program again adds nothing.
  CHECK(guard_waves(g.program, train, 132, {.returns = false}).changes.empty());
  // Without floors (or with the rule's floor not allowed), only the guard.
  for (const GuardOptions& o : {GuardOptions{.with_floors = false, .returns = false},
                                GuardOptions{.floors = {false}, .returns = false}}) {
    const GuardedWaves c = guard_waves(p, train, 132, o);
    CHECK(c.changes.size() == 1);
    CHECK(c.program.choose(unseen) == p.rules[0].config);
  }
  // The floor alone where the guard is not allowed.
  const GuardedWaves f = guard_waves(p, train, 132, {.ceilings = {false}, .returns = false});
  REQUIRE(f.changes.size() == 1);
  CHECK(f.changes[0] == g.changes[1]);
  // A training shape of the rule under one wave, or of one (partial) wave: no floor. (At one
  // wave the floor would meet a guard at one wave: mi355x, lecture split seed 23, a rule fitted
  // on grids of exactly 256 tiles kept every other grid from its 128x256 tile.)
  for (const Shape& extra : {test::shape(64, 1024, 512), test::shape(1280, 2560, 512)}) {
    std::vector<Shape> small = train;
    small.push_back(extra); // 8 and 200 tiles
    const GuardedWaves s = guard_waves(p, small, 132, {.returns = false});
    CHECK(s.changes.size() == 1);
    CHECK(s.program.choose(unseen) == p.rules[0].config);
  }
  // No later rule nor the default decides a training shape under a wave of the rule's tile: no
  // floor (the shapes it would send on would land on the default, fitted on large grids only,
  // with no evidence for small ones: A100 timm, a range split trained on the largest M).
  const std::vector<Shape> large(train.begin(), train.begin() + 3);
  const GuardedWaves l = guard_waves(p, large, 132, {.returns = false});
  CHECK(l.changes.size() == 1); // the guard alone
  CHECK(l.program.choose(unseen) == p.rules[0].config);
  // A rule that already bounds its tile count from below at least as high gets none.
  const Program bounded = parse_program_or_throw(
      "def choose(M, N, K):\n"
      "    if K <= 2560 and cdiv(M, 128) * cdiv(N, 128) > 400:\n"
      "        return Config(BM=128, BN=128, BK=64, warps=4, stages=3, group=8)\n"
      "    return Config(BM=128, BN=128, BK=64, warps=4, stages=5, group=8)\n",
      "test");
  const GuardedWaves b = guard_waves(bounded, train, 132, {.returns = false});
  REQUIRE(b.changes.size() == 1);
  CHECK(b.changes[0].find(">=") == std::string::npos);
}

} // namespace wave_guards_test
