// The static check (models/static_check.hpp) in one pass over the rules (ir/simplify.hpp
// live_branches). Issue 13: computing every rule's region against all earlier rules made it
// about quadratic (20k rules: 10 s; bench/bench_static_check.cpp measures it). The one pass must
// decide exactly what the per-rule definition decides.
#include "ir/simplify.hpp"
#include "ir/text.hpp"
#include "models/launch.hpp"
#include "models/static_check.hpp"

#include "support/fixtures.hpp"
#include "tests/support/property_cases.hpp"
#include "tests/support/random_program.hpp"

#include <doctest/doctest.h>

#include <algorithm>

// In a namespace of its own: the test files are compiled several to a unit (unity build).
namespace static_check_test {

using namespace tv;

namespace {

/// The definition: rule i is checked when its region minus all earlier rules is not empty.
std::vector<StaticIssue> by_definition(const Program& p, const Gpu& g) {
  std::vector<StaticIssue> out;
  auto check = [&](int rule, const Config& c) {
    if (auto why = launch_problem(c, g, DType::bf16)) out.push_back({rule, c, *why});
  };
  for (std::size_t i = 0; i < p.rules.size(); ++i)
    if (!effective_region(p, i).empty()) check(int(i), p.rules[i].config);
  if (default_reachable(p)) check(-1, p.default_config);
  return out;
}

/// Random terms on M, N, K and the derived features (as in derived_features_test).
Comparison term(Rng& rng) {
  const int kind = int(rng.uniform_int(0, 4));
  if (kind <= 2) return test::random_comparison(rng, 64);
  Comparison t;
  t.op = CmpOp(rng.uniform_int(0, 4));
  if (kind == 3) {
    t.feature = Feature::MN;
    t.value = rng.uniform_int(0, 64 * 64);
  } else {
    t.feature = Feature::tiles;
    t.tile_m = t.tile_n = rng.chance(0.5) ? 8 : 16;
    t.value = rng.uniform_int(0, 40);
  }
  return t;
}

} // namespace

TEST_CASE("static_check: the one-pass check reports exactly the rules the definition does") {
  // Conditions on M, N and K: both the one pass and the definition are exact, so they agree.
  const Gpu& g = test::gpu("h100");
  Rng rng(1313);
  const std::vector<Config> pool = {test::cfg(256, 128, 64, 4, 3, 8), // 296 registers: rejected
                                    test::cfg(128, 128, 64, 4, 3, 8),
                                    test::cfg(256, 256, 128, 8, 5, 8)}; // shared memory
  int with_issues = 0;
  for (int trial = 0; trial < 600; ++trial) {
    Program p = test::random_program(rng, 8, 64, 3);
    for (auto& r : p.rules)
      r.config = rng.pick(pool);
    p.default_config = rng.pick(pool);
    const auto fast = static_check(p, g, {DType::bf16});
    const auto slow = by_definition(p, g);
    INFO(print_program(p));
    REQUIRE(fast.size() == slow.size());
    for (std::size_t i = 0; i < fast.size(); ++i) {
      CHECK(fast[i].rule == slow[i].rule);
      CHECK(fast[i].config == slow[i].config);
      CHECK(fast[i].reason == slow[i].reason);
    }
    const LiveBranches live = live_branches(p);
    CHECK(live.default_live == default_reachable(p));
    for (std::size_t i = 0, k = 0; i < p.rules.size(); ++i) {
      const bool is_live = k < live.rules.size() && live.rules[k] == i;
      CHECK(is_live == !effective_region(p, i).empty());
      if (is_live) ++k;
    }
    if (!fast.empty()) ++with_issues;
  }
  CHECK(with_issues > 100); // the comparison covered rejected programs, not only clean ones
}

TEST_CASE("static_check: with derived features every branch that decides a shape is checked") {
  // Over the relaxed space the one pass is sound: no rule that decides some shape is missed.
  Rng rng(1414);
  int live_rules = 0;
  const int trials = tv::test::property_cases(300);
  for (int trial = 0; trial < trials; ++trial) {
    Program p;
    const int n = int(rng.uniform_int(0, 8));
    for (int i = 0; i < n; ++i) {
      Rule r;
      const int terms = int(rng.uniform_int(0, 3));
      for (int k = 0; k < terms; ++k)
        r.condition.terms.push_back(term(rng));
      r.config = test::cfg(16 << rng.uniform_int(0, 4), 64, 64, 4, 3, 8);
      p.rules.push_back(r);
    }
    const LiveBranches live = live_branches(p);
    INFO(print_program(p));
    for (std::int64_t m = 1; m <= 160; m += 3)
      for (std::int64_t nn = 1; nn <= 160; nn += 5)
        for (std::int64_t k : {1, 16, 17, 64, 1 << 20}) {
          const int r = p.deciding_rule(test::shape(m, nn, k));
          if (r < 0) {
            CHECK(live.default_live);
          } else {
            CHECK(std::find(live.rules.begin(), live.rules.end(), std::size_t(r)) !=
                  live.rules.end());
          }
        }
    live_rules += int(live.rules.size());
  }
  CHECK(live_rules > trials);
}

TEST_CASE("static_check: many rules, one unlaunchable, named by its index") {
  const Gpu& g = test::gpu("h100");
  Program p;
  for (int i = 0; i < 5000; ++i) {
    Rule r;
    r.condition.terms.push_back({Feature::M, CmpOp::le, std::int64_t(i + 1)});
    r.config = i == 4321 ? test::cfg(256, 128, 64, 4, 3, 8) : test::cfg(128, 128, 64, 4, 3, 8);
    p.rules.push_back(r);
  }
  // A dead copy of the bad config after an always-true rule is not reported.
  p.rules.push_back(Rule{Condition{}, test::cfg(128, 128, 64, 4, 3, 8)});
  Rule dead;
  dead.condition.terms.push_back({Feature::N, CmpOp::ge, 1});
  dead.config = test::cfg(256, 128, 64, 4, 3, 8);
  p.rules.push_back(dead);
  const auto issues = static_check(p, g, {DType::bf16});
  REQUIRE(issues.size() == 1);
  CHECK(issues[0].rule == 4321);
  CHECK(issues[0].reason == "BM=256 BN=128 warps=4: 296 registers per thread > 255");
}

} // namespace static_check_test
