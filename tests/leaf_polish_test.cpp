// Leaf polish: one-field neighbours replace a leaf's config while they are faster on its shapes.
#include "eval/problem.hpp"
#include "evolve/evolution.hpp"
#include "evolve/leaf_polish.hpp"
#include "evolve/mock_llm.hpp"
#include "ir/text.hpp"
#include "support/fixtures.hpp"
#include "support/step_option.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <map>

// In a namespace of its own: the test files are compiled several to a unit (unity build).
namespace leaf_polish_test {

using namespace tv;

using test::cfg;

TEST_CASE("leaf_polish: one field apart") {
  const Config a = cfg(64, 64, 64, 4, 3, 8);
  CHECK(one_field_apart(a, cfg(64, 64, 128, 4, 3, 8)));
  CHECK(one_field_apart(a, cfg(64, 64, 64, 4, 3, 1)));
  CHECK_FALSE(one_field_apart(a, a));
  CHECK_FALSE(one_field_apart(a, cfg(64, 64, 128, 4, 3, 1))); // two fields
  Config k = a;
  k.kpack = 2;
  CHECK(one_field_apart(a, k)); // an AMD knob set is one field
  CHECK_FALSE(one_field_apart(a, vendor_config()));
}

TEST_CASE("leaf_polish: each leaf walks to its fastest neighbour on its own shapes, then stops") {
  // Two leaves: M <= 64 (shapes 0, 1) and the default (shapes 2, 3). The cost of a config on a
  // shape is made up: the small leaf likes BK 128 and then stages 4, the large one group 4.
  const Program p = parse_program_or_throw("def choose(M, N, K):\n"
                                           "    if M <= 64:\n"
                                           "        return Config(BM=64, BN=64, BK=64, "
                                           "warps=4, stages=3, group=8)\n"
                                           "    return Config(BM=128, BN=128, BK=64, warps=4, "
                                           "stages=3, group=8)\n",
                                           "test");
  std::vector<Shape> shapes;
  for (std::int64_t m : {16, 64, 512, 4096})
    shapes.push_back(Shape{m, 4096, 4096, DType::bf16, "", 1.0});
  shapes[3].weight = 2;
  std::vector<Config> space;
  for (int bk : {32, 64, 128})
    for (int stages : {3, 4})
      for (int group : {4, 8}) {
        space.push_back(cfg(64, 64, bk, 4, stages, group));
        space.push_back(cfg(128, 128, bk, 4, stages, group));
      }
  space.push_back(cfg(64, 64, 128, 4, 4, 4)); // a duplicate changes nothing
  auto seconds = [](const Shape& s, const Config& c) {
    if (s.M <= 64) return 1.0 - 0.2 * (c.BK == 128) - 0.1 * (c.BK == 128 && c.stages == 4);
    return 1.0 - 0.3 * (c.group == 4) + 0.5 * (c.BM == 64);
  };
  std::map<std::vector<std::size_t>, int> calls;
  const LeafCost cost = [&](const std::vector<std::size_t>& which,
                            const Config& c) -> std::optional<double> {
    ++calls[which];
    double sum = 0;
    for (std::size_t i : which)
      sum += shapes[i].weight * std::log(seconds(shapes[i], c));
    return sum;
  };
  const PolishedLeaves out = polish_leaves(p, space, shapes, cost, 1.0);
  CHECK(out.program.rules.size() == 1);
  CHECK(out.program.rules[0].condition == p.rules[0].condition); // conditions never change
  CHECK(out.program.rules[0].config == cfg(64, 64, 128, 4, 4, 8));
  CHECK(out.program.default_config == cfg(128, 128, 64, 4, 3, 4));
  // Round 1: rule 1 to BK 128, the default to group 4; round 2: rule 1 to stages 4; round 3:
  // nothing.
  REQUIRE(out.changes.size() == 3);
  CHECK(out.changes[0].find(rule_reference(p, 0) +
                            " (2 training shapes): 64x64x64 w4 s3 g8 -> 64x64x128 w4 s3 "
                            "g8, 25.00% faster there") == 0);
  CHECK(out.changes[1].find("the default (2 training shapes): 128x128x64 w4 s3 g8 -> 128x128x64 w4 "
                            "s3 g4") == 0);
  CHECK(out.changes[2].find(rule_reference(p, 0) +
                            " (2 training shapes): 64x64x128 w4 s3 g8 -> 64x64x128 w4 s4 "
                            "g8") == 0);
  CHECK(calls.size() == 2); // each leaf is costed on its own shapes only
  CHECK(calls.count({0, 1}) == 1);
  CHECK(calls.count({2, 3}) == 1);
  CHECK(out.tried > 0);

  // A bar above every gain: nothing moves. One round: only the first step of each leaf.
  CHECK(polish_leaves(p, space, shapes, cost, 1.5).changes.empty());
  const PolishedLeaves once = polish_leaves(p, space, shapes, cost, 1.0, 1);
  CHECK(once.changes.size() == 2);
  CHECK(once.program.rules[0].config == cfg(64, 64, 128, 4, 3, 8));

  // A neighbour whose cost cannot be had (failed, over a kernel-run limit) is never taken.
  const LeafCost no_bk128 = [&](const std::vector<std::size_t>& which,
                                const Config& c) -> std::optional<double> {
    if (c.BK == 128) return std::nullopt;
    return cost(which, c);
  };
  const PolishedLeaves limited = polish_leaves(p, space, shapes, no_bk128, 1.0);
  CHECK(limited.program.rules[0].config == p.rules[0].config);
  CHECK(limited.program.default_config == cfg(128, 128, 64, 4, 3, 4));

  // A leaf no shape reaches is left alone.
  const std::vector<Shape> large(shapes.begin() + 2, shapes.end());
  const LeafCost large_cost = [&](const std::vector<std::size_t>& which,
                                  const Config& c) -> std::optional<double> {
    double sum = 0;
    for (std::size_t i : which)
      sum += large[i].weight * std::log(seconds(large[i], c));
    return sum;
  };
  const PolishedLeaves only_default = polish_leaves(p, space, large, large_cost, 1.0);
  CHECK(only_default.program.rules[0].config == p.rules[0].config);
  CHECK(only_default.changes.size() == 1);
}

TEST_CASE("leaf_polish: a run's result is polished within its budget, counted, and optional") {
  const Problem& p = test::lecture_problem("h100");
  MockLlm m(p.gpu);
  EvolutionOptions o;
  o.seed = 0;
  o.budget = 300;
  const EvolutionResult r = Evolution(p, m, o).run();
  const PassReport& polish = *r.pass("leaf-polish");
  REQUIRE_FALSE(polish.lines.empty());
  // It only ever replaces a config by a faster one on the shapes that config decides.
  const double searched = p.train->score(r.best_searched.program).speedup_vs_expert;
  CHECK(r.best_train.speedup_vs_expert > searched);
  // Its kernel runs: counted in the run's total and under its own name, within the allowance.
  CHECK(polish.kernel_runs > 0);
  CHECK(polish.kernel_runs <= kPolishShare * double(r.counters.kernel_runs - polish.kernel_runs));
  CHECK(r.per_operator.count("polish") == 0); // a pass, not an operator
  long long sum = 0;
  for (const auto& [op, c] : r.per_operator)
    sum += c.kernel_runs;
  for (const PassReport& pass : r.passes)
    sum += pass.kernel_runs;
  CHECK(sum == r.counters.kernel_runs);

  o.skip("leaf-polish");
  const EvolutionResult off = Evolution(p, m, o).run();
  CHECK_FALSE(off.pass("leaf-polish")->ran);
  CHECK(off.pass("leaf-polish")->why == "skipped (--skip-pass)");
  CHECK(off.best_searched.program == r.best_searched.program); // the search itself is the same
  // Options: written, read back, and absent (skipped) in a run written before polish existed.
  test::check_pass_option("leaf-polish", "polish");
}

} // namespace leaf_polish_test
