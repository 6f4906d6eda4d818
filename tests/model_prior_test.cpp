// The analytic model as a prior on refitted leaves: the tree fitter's pseudo-shapes
// (TreeOptions::prior_shapes) and the refit's gate on the model's agreement (refit.hpp).
#include "eval/decision_tree.hpp"
#include "evolve/refit.hpp"
#include "ir/rng.hpp"
#include "models/analytic_model.hpp"
#include "models/gpu.hpp"
#include "models/launch.hpp"

#include "support/fixtures.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <thread>

// In a namespace of its own: the test files are compiled several to a unit (unity build).
namespace model_prior_test {

using namespace tv;

namespace {

/// Shapes over M, N and K, and per shape and config a random cost and a random prior.
struct RandomTable {
  std::vector<Shape> shapes;
  std::vector<Config> configs;
  std::vector<double> cost, prior;
};

RandomTable random_table(std::uint64_t seed, int n) {
  RandomTable t;
  Rng rng(seed);
  for (int bm : {32, 64, 128})
    for (int bn : {64, 128})
      t.configs.push_back(test::tile_config(bm, bn));
  for (int i = 0; i < n; ++i) {
    Shape s;
    s.M = std::int64_t(1) << rng.uniform_int(0, 12);
    s.N = 256 * rng.uniform_int(1, 32);
    s.K = 256 * rng.uniform_int(1, 32);
    t.shapes.push_back(s);
    for (std::size_t c = 0; c < t.configs.size(); ++c) {
      t.cost.push_back(rng.uniform01());
      t.prior.push_back(2 * rng.uniform01());
    }
  }
  return t;
}

/// The cost of `items` as one leaf under `k` pseudo-shapes of the prior (fit_tree's rule).
double leaf_cost(const RandomTable& t, const std::vector<std::size_t>& items, double k) {
  const std::size_t cols = t.configs.size();
  double best = std::numeric_limits<double>::infinity();
  for (std::size_t c = 0; c < cols; ++c) {
    double sum = 0, p = 0;
    for (std::size_t i : items) {
      sum += t.cost[i * cols + c];
      p += t.prior[i * cols + c];
    }
    best = std::min(best, sum + k / double(items.size()) * p);
  }
  return best;
}

/// Feedback on one shape: the timed configs with the given times.
ShapeFeedback feedback_of(const Shape& s, const std::vector<std::pair<double, Config>>& timed) {
  ShapeFeedback f;
  f.shape = s;
  std::vector<MeasuredConfigs::Entry> m(timed.begin(), timed.end());
  std::sort(m.begin(), m.end());
  f.measured = MeasuredConfigs(std::move(m));
  f.seconds = f.measured[0].first;
  f.expert_seconds = f.seconds;
  return f;
}

/// The shape the agreement tests time configs on (512 x 4096 x 4096).
Shape one_shape() {
  Shape s;
  s.M = 512;
  s.N = 4096;
  s.K = 4096;
  return s;
}

/// Launchable configs of `g` on `s` with clearly different model times, the model's fastest
/// first (each at least 5% slower than the one before).
std::vector<std::pair<double, Config>> model_ranked(const Shape& s, const Gpu& g, std::size_t n) {
  std::vector<std::pair<double, Config>> all;
  for (const Config& c : all_configs(g))
    if (!launch_problem(c, g, s.dtype))
      if (const double t = model_time(s, c, g); std::isfinite(t)) all.emplace_back(t, c);
  std::sort(all.begin(), all.end());
  std::vector<std::pair<double, Config>> out;
  for (const auto& e : all)
    if (out.size() < n && (out.empty() || e.first > 1.05 * out.back().first)) out.push_back(e);
  return out;
}

} // namespace

TEST_CASE("fit_tree with a prior: one pseudo-shape decides a leaf of one shape, hardly one of "
          "many") {
  const std::vector<Config> configs{test::tile_config(64, 64), test::tile_config(128, 128)};
  // The measurements favour config 0 by 0.01 per shape; the prior favours config 1 by 0.5.
  const auto table = [](std::size_t n) {
    std::vector<double> cost, prior;
    for (std::size_t i = 0; i < n; ++i) {
      cost.insert(cost.end(), {1.00, 1.01});
      prior.insert(prior.end(), {0.5, 0.0});
    }
    return std::pair{cost, prior};
  };
  TreeOptions o;
  o.max_leaves = 1;
  Shape s;
  s.M = s.N = s.K = 1024;
  {
    const auto [cost, prior] = table(1);
    CHECK(fit_tree({s}, configs, cost, o).default_config == configs[0]); // no weight: no prior
    o.prior_shapes = 1;
    CHECK(fit_tree({s}, configs, cost, o, prior).default_config == configs[1]);
    CHECK(fit_tree({s}, configs, cost, o).default_config == configs[0]); // no table: no prior
  }
  // 100 shapes: 1.0 of measured difference against 0.5 of prior (one pseudo-shape).
  const std::vector<Shape> many(100, s);
  const auto [cost, prior] = table(100);
  CHECK(fit_tree(many, configs, cost, o, prior).default_config == configs[0]);
  o.prior_shapes = 3; // three pseudo-shapes: 1.5 of prior
  CHECK(fit_tree(many, configs, cost, o, prior).default_config == configs[1]);
  // A prior table of another size is misuse.
  CHECK_THROWS_AS(fit_tree(many, configs, cost, o, {0.0, 1.0}), std::invalid_argument);
  CHECK_THROWS_AS(fit_tree_sequence(many, configs, cost, o, {0.0}), std::invalid_argument);
}

TEST_CASE("fit_tree with a prior: the first split is the best cut of any feature, each child "
          "weighed with its pseudo-shapes") {
  for (std::uint64_t seed : {1, 2, 3, 4, 5}) {
    CAPTURE(seed);
    const RandomTable t = random_table(seed, 40);
    TreeOptions o;
    o.max_leaves = 2;
    o.prior_shapes = 2;
    o.features = default_tree_features();
    const Program tree = fit_tree(t.shapes, t.configs, t.cost, o, t.prior);
    REQUIRE(tree.rules.size() == 1);
    // The fitted split's cost: the shapes its rule takes and the rest, each weighed as a leaf.
    std::vector<std::size_t> left, right;
    for (std::size_t i = 0; i < t.shapes.size(); ++i)
      (tree.rules[0].condition.matches(t.shapes[i]) ? left : right).push_back(i);
    const double fitted = leaf_cost(t, left, 2) + leaf_cost(t, right, 2);
    // Every cut of every feature, by brute force.
    double best = std::numeric_limits<double>::infinity();
    for (const Comparison& f : o.features) {
      std::vector<std::int64_t> values;
      for (const Shape& s : t.shapes)
        values.push_back(f.value_of(s));
      std::sort(values.begin(), values.end());
      values.erase(std::unique(values.begin(), values.end()), values.end());
      for (std::size_t v = 0; v + 1 < values.size(); ++v) {
        std::vector<std::size_t> l, r;
        for (std::size_t i = 0; i < t.shapes.size(); ++i)
          (f.value_of(t.shapes[i]) <= values[v] ? l : r).push_back(i);
        best = std::min(best, leaf_cost(t, l, 2) + leaf_cost(t, r, 2));
      }
    }
    CHECK(fitted == doctest::Approx(best).epsilon(1e-12));
    // And the sequence of growth gives the same trees as fits of each size.
    o.max_leaves = 6;
    const auto each = fit_tree_sequence(t.shapes, t.configs, t.cost, o, t.prior);
    REQUIRE(each.size() == 6);
    for (int leaves = 1; leaves <= 6; ++leaves) {
      TreeOptions one = o;
      one.max_leaves = leaves;
      CHECK(each[std::size_t(leaves - 1)] == fit_tree(t.shapes, t.configs, t.cost, one, t.prior));
    }
  }
}

TEST_CASE("model_agreement: Kendall's tau of the model's times with the measured ones") {
  const Gpu& g = test::gpu("h100");
  const Shape s = one_shape();
  const auto ranked = model_ranked(s, g, 8);
  REQUIRE(ranked.size() == 8);
  // The model's own times: every pair in order.
  const ModelAgreement same = model_agreement({feedback_of(s, ranked)}, g);
  CHECK(same.concordant == 28);
  CHECK(same.discordant == 0);
  CHECK(same.tau() == 1.0);
  CHECK(same.trusted());
  // Reversed: every pair the other way.
  std::vector<std::pair<double, Config>> reversed;
  for (std::size_t k = 0; k < ranked.size(); ++k)
    reversed.emplace_back(ranked[ranked.size() - 1 - k].first, ranked[k].second);
  const ModelAgreement other = model_agreement({feedback_of(s, reversed)}, g);
  CHECK(other.discordant == 28);
  CHECK(other.tau() == -1.0);
  CHECK_FALSE(other.trusted());
  // A vendor call, which the model does not time, takes part in no pair; nor do tied times.
  auto with_vendor = ranked;
  Config vendor;
  vendor.vendor = true;
  with_vendor.emplace_back(1e-9, vendor);
  with_vendor.emplace_back(ranked[0].first, ranked[1].second); // ties config 0, replaces 1
  with_vendor.erase(with_vendor.begin() + 1);
  const ModelAgreement left_out = model_agreement({feedback_of(s, with_vendor)}, g);
  CHECK(left_out.concordant + left_out.discordant == 27); // 8 configs, one tied pair
  // No pairs: tau 0, not trusted.
  CHECK(model_agreement({feedback_of(s, {ranked[0]})}, g).tau() == 0.0);
  CHECK_FALSE(model_agreement({feedback_of(s, {ranked[0]})}, g).trusted());
}

TEST_CASE("refit with the model: a near-tie goes the model's way only where the model agrees "
          "with the measurements") {
  const Gpu& g = test::gpu("h100");
  const Shape s = one_shape();
  const auto ranked = model_ranked(s, g, 8);
  REQUIRE(ranked.size() == 8);
  const Config& first = ranked[0].second;  // the model's favourite
  const Config& second = ranked[1].second; // at least 5% slower by the model
  RefitChoice choice;
  choice.max_leaves = 1;
  choice.features = default_tree_features();
  // Measured as the model says, but the model's second 0.1% faster than its first: tau stays
  // near 1 (one pair of 28 the other way).
  auto timed = ranked;
  timed[1].first = timed[0].first * 0.999;
  const std::vector<ShapeFeedback> agreeing{feedback_of(s, timed)};
  REQUIRE(model_agreement(agreeing, g).trusted());
  CHECK(refit_program(agreeing, choice)->default_config == second); // measurements alone
  choice.model = &g;
  CHECK(refit_program(agreeing, choice)->default_config == first);
  // The same near-tie among times the model orders badly (the rest reversed): no prior.
  std::vector<std::pair<double, Config>> disagreeing{{timed[0].first, first},
                                                     {timed[1].first, second}};
  for (std::size_t k = 2; k < ranked.size(); ++k)
    disagreeing.emplace_back(ranked[ranked.size() + 1 - k].first * 10, ranked[k].second);
  const std::vector<ShapeFeedback> against{feedback_of(s, disagreeing)};
  REQUIRE_FALSE(model_agreement(against, g).trusted());
  CHECK(refit_program(against, choice)->default_config == second);
  // The per-thread table is kept per device: another device's model gives what a fresh thread
  // gives.
  const Gpu& other = test::gpu("mi300x");
  RefitChoice on_other = choice;
  on_other.model = &other;
  std::optional<Program> fresh;
  std::thread([&] { fresh = refit_program(agreeing, on_other); }).join();
  REQUIRE(fresh);
  CHECK(refit_program(agreeing, choice)->default_config == first);
  CHECK(refit_program(agreeing, on_other) == fresh);
}

} // namespace model_prior_test
