#include "eval/decision_tree.hpp"
#include "evolve/refit.hpp"
#include "evolve/refit_validation.hpp"
#include "ir/rng.hpp"

#include "support/fixtures.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <thread>

// In a namespace of its own: the test files are compiled several to a unit (unity build).
namespace refit_test {

using namespace tv;

namespace {

std::vector<Config> some_configs() {
  std::vector<Config> out;
  for (int bm : {16, 32, 64, 128})
    for (int bn : {64, 128, 256})
      out.push_back(test::tile_config(bm, bn));
  return out;
}

/// 60 shapes over M, N and K with random costs per config: trees of every size differ.
std::vector<Shape> some_shapes() {
  std::vector<Shape> out;
  Rng rng(7);
  for (int i = 0; i < 60; ++i) {
    Shape s;
    s.M = std::int64_t(1) << rng.uniform_int(0, 13);
    s.N = 1024 * rng.uniform_int(1, 16);
    s.K = 512 * rng.uniform_int(1, 16);
    out.push_back(s);
  }
  return out;
}

/// Per shape the configs' times: a smooth trend in M and N plus noise, some configs unmeasured.
std::vector<ShapeFeedback> some_feedback(std::uint64_t seed) {
  std::vector<ShapeFeedback> out;
  Rng rng(seed);
  for (const Shape& s : some_shapes()) {
    ShapeFeedback f;
    f.shape = s;
    std::vector<MeasuredConfigs::Entry> m;
    for (const Config& c : some_configs())
      if (rng.chance(0.7))
        m.emplace_back(1e-6 * (1.0 + std::abs(std::log2(double(s.M)) - std::log2(double(c.BM))) +
                               std::abs(std::log2(double(s.N) / 8) - std::log2(double(c.BN))) +
                               rng.uniform01()),
                       c);
    std::sort(m.begin(), m.end());
    f.measured = MeasuredConfigs(std::move(m));
    f.seconds = f.measured.empty() ? 1e-3 : f.measured[0].first * 2;
    f.expert_seconds = f.seconds;
    out.push_back(f);
  }
  return out;
}

} // namespace

TEST_CASE("fit_tree_sequence: the tree of L leaves is fit_tree with max_leaves L") {
  const auto shapes = some_shapes();
  const auto configs = some_configs();
  Rng rng(3);
  std::vector<double> cost(shapes.size() * configs.size());
  for (std::size_t i = 0; i < shapes.size(); ++i)
    for (std::size_t c = 0; c < configs.size(); ++c)
      cost[i * configs.size() + c] =
          std::abs(std::log2(double(shapes[i].M)) - std::log2(double(configs[c].BM))) +
          rng.uniform01();
  for (int units : {0, 132}) {
    TreeOptions o;
    o.max_leaves = 8;
    o.round_thresholds_units = units;
    const auto each = fit_tree_sequence(shapes, configs, cost, o);
    REQUIRE(each.size() == 8);
    for (int leaves = 1; leaves <= 8; ++leaves) {
      TreeOptions one = o;
      one.max_leaves = leaves;
      CHECK(each[std::size_t(leaves - 1)] == fit_tree(shapes, configs, cost, one));
    }
    CHECK(each[0].rules.empty());
    CHECK(each[7].rules.size() > each[1].rules.size());
    // Unsimplified: one rule per leaf but the last, the same config for every shape.
    TreeOptions grown = o;
    grown.simplified = false;
    const auto raw = fit_tree_sequence(shapes, configs, cost, grown);
    REQUIRE(raw.size() == 8);
    for (int leaves = 1; leaves <= 8; ++leaves) {
      const Program& r = raw[std::size_t(leaves - 1)];
      CHECK(r.rules.size() == std::size_t(leaves - 1));
      for (const Shape& s : shapes)
        CHECK(r.choose(s) == each[std::size_t(leaves - 1)].choose(s));
      for (std::int64_t m = 1; m <= 1 << 14; m *= 3) {
        Shape unseen; // sizes between and past the training ones
        unseen.M = m;
        unseen.N = 3000 + 700 * (m % 11);
        unseen.K = 100 + 900 * (m % 7);
        CHECK(r.choose(unseen) == each[std::size_t(leaves - 1)].choose(unseen));
      }
    }
  }
  // Growth that stops early (two shapes: one split at most) pads with the last tree.
  const std::vector<Shape> two(shapes.begin(), shapes.begin() + 2);
  const std::vector<double> two_cost(cost.begin(), cost.begin() + long(2 * configs.size()));
  TreeOptions o;
  o.max_leaves = 5;
  const auto padded = fit_tree_sequence(two, configs, two_cost, o);
  REQUIRE(padded.size() == 5);
  CHECK(padded[4] == padded[1]);
  CHECK(padded[4] == fit_tree(two, configs, two_cost, o));
  CHECK_THROWS_AS(fit_tree_sequence({}, configs, {}, o), std::invalid_argument);
}

TEST_CASE("tree lookahead: weighing one split is greedy growth, and weighing ten fits "
          "some tables better") {
  const auto shapes = some_shapes();
  const auto configs = some_configs();
  const std::size_t cols = configs.size();
  const auto training_cost = [&](const Program& p, const std::vector<double>& cost) {
    double sum = 0;
    for (std::size_t i = 0; i < shapes.size(); ++i) {
      const Config c = p.choose(shapes[i]);
      const auto at = std::find(configs.begin(), configs.end(), c) - configs.begin();
      sum += cost[i * cols + std::size_t(at)];
    }
    return sum;
  };
  int better = 0, worse = 0;
  for (std::uint64_t seed = 0; seed < 40; ++seed) {
    Rng rng(seed);
    std::vector<double> cost(shapes.size() * cols);
    for (std::size_t i = 0; i < shapes.size(); ++i)
      for (std::size_t c = 0; c < cols; ++c)
        cost[i * cols + c] =
            std::abs(std::log2(double(shapes[i].M)) - std::log2(double(configs[c].BM))) / 4 +
            std::abs(std::log2(double(shapes[i].K)) - std::log2(double(configs[c].BN)) - 3) / 4 +
            rng.uniform01();
    TreeOptions greedy;
    greedy.max_leaves = 8;
    TreeOptions one = greedy, ten = greedy;
    one.lookahead = 1;
    ten.lookahead = 10;
    CHECK(fit_tree_sequence(shapes, configs, cost, one) ==
          fit_tree_sequence(shapes, configs, cost, greedy));
    const auto g = fit_tree_sequence(shapes, configs, cost, greedy);
    const auto l = fit_tree_sequence(shapes, configs, cost, ten);
    REQUIRE(l.size() == 8);
    CHECK(l[7] == fit_tree(shapes, configs, cost, ten));
    const double gc = training_cost(g[7], cost), lc = training_cost(l[7], cost);
    better += lc < gc - 1e-9;
    worse += lc > gc + 1e-9;
  }
  // At eight leaves a split that sets up a good next one fits some tables better than greedy
  // growth, and its detours fit others worse (16 and 16 of these 40): neither growth is better
  // everywhere, so refit validation chooses between them per run, on held-out folds.
  CHECK(better > 0);
  CHECK(worse > 0);
}

TEST_CASE("refit validation with the lookahead: the growth with the better held-out figure") {
  int chosen = 0;
  for (std::uint64_t seed = 0; seed < 12; ++seed) {
    const auto fb = some_feedback(seed);
    const RefitValidation greedy = validate_refit(fb, {.max_leaves = 8, .folds = 5, .seed = seed});
    const RefitValidation v =
        validate_refit(fb, {.max_leaves = 8, .folds = 5, .seed = seed, .lookahead = 10});
    REQUIRE(v.folds == greedy.folds);
    CHECK(greedy.lookahead == 0);
    CHECK(v.best_held_out >= greedy.best_held_out);
    if (v.lookahead == 0) {
      CHECK(v.held_out == greedy.held_out);
    } else {
      CHECK(v.lookahead == 10);
      CHECK(v.best_held_out > greedy.best_held_out);
      ++chosen;
    }
    CHECK(
        validate_refit(fb, {.max_leaves = 8, .folds = 5, .seed = seed, .lookahead = 10}).held_out ==
        v.held_out); // deterministic
  }
  CHECK(chosen > 0);
}

TEST_CASE("refit_sequence: each tree is refit_program's, on every subset of the shapes") {
  const auto fb = some_feedback(11);
  RefitChoice choice;
  choice.features = default_tree_features();
  choice.max_leaves = 6;
  for (int subset = 0; subset < 3; ++subset) {
    choice.use.clear();
    if (subset > 0)
      for (std::size_t i = 0; i < fb.size(); ++i)
        choice.use.push_back(i % 3 != std::size_t(subset));
    RefitChoice all = choice;
    const auto each = refit_sequence(fb, all);
    REQUIRE(each.size() == 6);
    for (int leaves = 1; leaves <= 6; ++leaves) {
      RefitChoice one = choice;
      one.max_leaves = leaves;
      const auto p = refit_program(fb, one);
      REQUIRE(p);
      CHECK(each[std::size_t(leaves - 1)] == *p);
    }
  }
  // Nothing measured: nothing to fit.
  std::vector<ShapeFeedback> none = fb;
  for (auto& f : none)
    f.measured = MeasuredConfigs();
  CHECK(refit_sequence(none, choice).empty());
  CHECK_FALSE(refit_program(none, choice));
}

TEST_CASE("refit_program: feedback that shares lists with the last one is not mistaken for it") {
  // The refit keeps the last measured table per thread, keyed by the very lists the feedback
  // holds. Feedback with the same lists on other shapes, or the same shapes with other lists
  // of equal length, must give what a fresh thread gives.
  const auto a = some_feedback(21);
  auto moved = a; // same lists, other shapes
  for (auto& f : moved)
    f.shape.M = f.shape.M * 3 + 1;
  const auto b = some_feedback(22); // other lists
  RefitChoice choice;
  choice.features = default_tree_features();
  auto fresh = [&](const std::vector<ShapeFeedback>& fb) {
    std::optional<Program> out;
    std::thread t([&] { out = refit_program(fb, choice); });
    t.join();
    return out;
  };
  const auto want_a = fresh(a), want_moved = fresh(moved), want_b = fresh(b);
  REQUIRE(want_a);
  REQUIRE(want_moved);
  REQUIRE(want_b);
  CHECK_FALSE(*want_a == *want_moved);
  CHECK_FALSE(*want_a == *want_b);
  for (int round = 0; round < 2; ++round) {
    CHECK(refit_program(a, choice) == want_a);
    CHECK(refit_program(a, choice) == want_a); // from the kept table
    CHECK(refit_program(moved, choice) == want_moved);
    CHECK(refit_program(b, choice) == want_b);
  }
}

} // namespace refit_test
