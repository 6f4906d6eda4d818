#include "evolve/guard_validation.hpp"

#include "ir/text.hpp"
#include "ir/wave_guards.hpp"
#include "support/fixtures.hpp"
#include "support/step_option.hpp"

#include <cmath>
#include <doctest/doctest.h>
#include <limits>

// In a namespace of its own: the test files are compiled several to a unit (unity build).
namespace guard_validation_test {

using namespace tv;

namespace {

Shape at(std::int64_t m, std::int64_t n) {
  return test::shape(m, n, 4096);
}

/// Rule 1 (64x128 tiles) takes M * N <= 2359296; the rest goes to 128x128 tiles.
Program two_rules() {
  return parse_program_or_throw("def choose(M, N, K):\n"
                                "    if M * N <= 2359296:\n"
                                "        return Config(BM=64, BN=128, BK=128, warps=4, stages=3, "
                                "group=1)\n"
                                "    return Config(BM=128, BN=128, BK=128, warps=8, stages=3, "
                                "group=1)\n",
                                "test");
}

// With 64 units: rule 1's shapes (512, 1024) fill 64 tiles of 64x128, one wave; (512, 4096)
// fills 256, four waves. Held out alone, (512, 4096) is past the one wave the others fill.
const std::vector<Shape> kShapes{at(512, 1024), at(256, 1024), at(512, 4096), at(4096, 4096)};
const std::vector<std::vector<std::size_t>> kFolds{{0, 3}, {1}, {2}};

} // namespace

TEST_CASE("guard_diversions lists the held-out shapes a fold's guards send elsewhere") {
  const Program p = two_rules();
  const std::vector<GuardDiversion> d = guard_diversions(p, kShapes, kFolds, 64, false);
  // Fold {2}: the others leave rule 1 at one wave (64 tiles), so (512, 4096) falls through.
  // Folds {0, 3} and {1}: (256, 1024) and (512, 1024) stay within the wave (512, 4096) fills.
  REQUIRE(d.size() == 1);
  CHECK(d[0].shape == 2);
  CHECK(d[0].rule == 0);
  CHECK(d[0].plain == p.rules[0].config);
  CHECK(d[0].guarded == p.default_config);
  // No units, no guards, no diversions.
  CHECK(guard_diversions(p, kShapes, kFolds, 0, false).empty());
}

TEST_CASE("judge_guards drops a guard whose measured diversions lost, and keeps the rest") {
  const Program p = two_rules();
  const std::vector<GuardDiversion> d = guard_diversions(p, kShapes, kFolds, 64, false);
  REQUIRE(d.size() == 1);
  const auto weight = [](const GuardDiversion&) { return 1.0; };
  SUBCASE("the rule's own config was faster on the diverted shape: the guard goes") {
    const GuardValidation v = judge_guards(
        p.rules.size(), 3, d,
        [&](const GuardDiversion&, const Config& c) { return c == p.default_config ? 2.0 : 1.0; },
        weight);
    REQUIRE(v.keep.size() == 1);
    CHECK_FALSE(v.keep[0]);
    CHECK(v.rules[0].diverted == 1);
    CHECK(v.rules[0].measured == 1);
    CHECK(v.rules[0].gain == doctest::Approx(std::log(0.5)));
    CHECK(v.summary() == "1 diversion over 3 folds (1 measured); guards dropped on rules 1");
    // guard_waves then leaves the rule unguarded: the diverted shape keeps its config.
    const GuardedWaves g =
        guard_waves(p, kShapes, 64, {.ceilings = v.keep, .floors = v.keep_floor});
    CHECK(g.rules.empty());
    CHECK(g.program.choose(kShapes[2]) == p.rules[0].config);
    CHECK(
        guard_waves(p, kShapes, 64, {.ceilings = v.keep, .floors = v.keep_floor, .returns = false})
            .program == p);
  }
  SUBCASE("the diverted config was faster: the guard stays") {
    const GuardValidation v = judge_guards(
        p.rules.size(), 3, d,
        [&](const GuardDiversion&, const Config& c) { return c == p.default_config ? 1.0 : 2.0; },
        weight);
    CHECK(v.keep[0]);
    CHECK(v.summary() == "1 diversion over 3 folds (1 measured); every guard kept");
  }
  SUBCASE("a diversion without both times is no evidence: the guard stays") {
    const GuardValidation v = judge_guards(
        p.rules.size(), 3, d,
        [&](const GuardDiversion&, const Config& c) {
          return c == p.default_config ? std::numeric_limits<double>::infinity() : 1.0;
        },
        weight);
    CHECK(v.keep[0]);
    CHECK(v.rules[0].diverted == 1);
    CHECK(v.rules[0].measured == 0);
  }
  SUBCASE("fewer than two folds: nothing judged, every guard kept") {
    const GuardValidation v = judge_guards(
        p.rules.size(), 1, d, [](const GuardDiversion&, const Config&) { return 1.0; }, weight);
    CHECK(v.keep[0]);
    CHECK(v.summary().empty());
  }
}

TEST_CASE("guard validation's option travels with the run, and older runs read it as off") {
  test::check_pass_option("guard-validation", "guard_validation");
}

TEST_CASE("guard_waves gives no guard to a rule `allowed` leaves out") {
  const Program p = two_rules();
  const GuardedWaves all = guard_waves(p, kShapes, 64);
  REQUIRE(all.rules == std::vector<std::size_t>{0});
  const GuardedWaves none =
      guard_waves(p, kShapes, 64, {.ceilings = {false}, .floors = {false}, .returns = false});
  CHECK(none.rules.empty());
  CHECK(none.changes.empty());
  CHECK(none.program == p);
  CHECK(guard_waves(p, kShapes, 64, {.ceilings = {true}}).program == all.program);
}

TEST_CASE("a floor's diversions are judged apart from the guard's") {
  // Rule 1 (128x128 tiles, 16 units): shapes 0 and 1 fill 128 tiles each, shape 2 only 4.
  // Held out alone, shape 2 is under the wave the others fill: the floor diverts it; no guard
  // diverts a shape (each fold's guard is at the 128 tiles of shape 0 or 1).
  const Program p = parse_program_or_throw(
      "def choose(M, N, K):\n"
      "    if K <= 2048:\n"
      "        return Config(BM=128, BN=128, BK=64, warps=4, stages=3, group=8)\n"
      "    return Config(BM=128, BN=128, BK=64, warps=4, stages=5, group=8)\n",
      "test");
  // Shape 4, the default's, fills 4 tiles too: where the floor sends shape 2, grids that small
  // were fitted (without it, no floor: ir/wave_guards.hpp).
  const std::vector<Shape> shapes{test::shape(1024, 2048, 1024), test::shape(2048, 1024, 1024),
                                  test::shape(256, 256, 1024), test::shape(4096, 4096, 8192),
                                  test::shape(256, 256, 8192)};
  const std::vector<std::vector<std::size_t>> folds{{0, 3, 4}, {1}, {2}};
  CHECK(guard_diversions(p, shapes, folds, 16, false).empty());
  const std::vector<GuardDiversion> d = guard_diversions(p, shapes, folds, 16, true);
  REQUIRE(d.size() == 1);
  CHECK(d[0].shape == 2);
  CHECK(d[0].floor);
  CHECK(d[0].guarded == p.default_config);
  const auto weight = [](const GuardDiversion&) { return 1.0; };
  // The rule's own config was faster there: the floor goes, the guard stays.
  const GuardValidation v = judge_guards(
      p.rules.size(), 3, d,
      [&](const GuardDiversion&, const Config& c) { return c == p.default_config ? 2.0 : 1.0; },
      weight);
  CHECK(v.keep[0]);
  CHECK_FALSE(v.keep_floor[0]);
  CHECK(v.rules[0].diverted == 0);
  CHECK(v.floors[0].measured == 1);
  CHECK(v.summary() ==
        "1 diversion over 3 folds (1 measured, 1 by floors); floors dropped on rules 1");
  const GuardedWaves g =
      guard_waves(p, shapes, 16, {.ceilings = v.keep, .floors = v.keep_floor, .returns = false});
  CHECK(g.changes.size() == 1);
  CHECK(g.changes[0].find("<=") != std::string::npos);
  // The default's config faster: both kept.
  const GuardValidation w = judge_guards(
      p.rules.size(), 3, d,
      [&](const GuardDiversion&, const Config& c) { return c == p.default_config ? 1.0 : 2.0; },
      weight);
  CHECK(w.keep_floor[0]);
  CHECK(w.summary() == "1 diversion over 3 folds (1 measured, 1 by floors); every guard kept");
}

TEST_CASE("wave floors' option travels with the run, and older runs read it as off") {
  test::check_step_option("wave_floors", &EvolutionOptions::wave_floors);
}

} // namespace guard_validation_test
