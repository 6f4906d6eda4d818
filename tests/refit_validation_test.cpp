#include "evolve/refit_validation.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <omp.h>

// In a namespace of its own: the test files are compiled several to a unit (unity build).
namespace refit_validation_test {

using namespace tv;

namespace {

Config tile(int bm) {
  Config c;
  c.BM = bm;
  c.BN = 64;
  c.BK = 64;
  return c;
}

/// Shapes M = 16, 32, ..., 16 * n: config A (BM 32) takes 1 s below the middle and 2 s above it,
/// config B (BM 128) the other way round; the expert takes 2 s everywhere.
std::vector<ShapeFeedback> two_regimes(int n, int layouts = 1) {
  std::vector<ShapeFeedback> out;
  for (int i = 1; i <= n; ++i)
    for (int l = 0; l < layouts; ++l) {
      ShapeFeedback f;
      f.shape.M = 16 * i;
      f.shape.N = 4096;
      f.shape.K = 4096;
      f.shape.layout = l == 0 ? "NN" : "NT";
      const bool small = i <= n / 2;
      std::vector<MeasuredConfigs::Entry> m{{small ? 1.0 : 2.0, tile(32)},
                                            {small ? 2.0 : 1.0, tile(128)}};
      std::sort(m.begin(), m.end());
      f.measured = MeasuredConfigs(std::move(m));
      f.expert_seconds = 2.0;
      f.seconds = 2.0;
      out.push_back(f);
    }
  return out;
}

/// n shapes M = 16, 32, ...: which of two configs is 2x faster changes at random (seed `state`).
std::vector<ShapeFeedback> coin_flips(int n, std::uint64_t state) {
  std::vector<ShapeFeedback> noise;
  for (int i = 1; i <= n; ++i) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    const bool a_fast = (state >> 33) & 1;
    ShapeFeedback f;
    f.shape.M = 16 * i;
    f.shape.N = 4096;
    f.shape.K = 4096;
    std::vector<MeasuredConfigs::Entry> m{{a_fast ? 1.0 : 2.0, tile(32)},
                                          {a_fast ? 2.0 : 1.0, tile(128)}};
    std::sort(m.begin(), m.end());
    f.measured = MeasuredConfigs(std::move(m));
    f.expert_seconds = f.seconds = 2.0;
    noise.push_back(f);
  }
  return noise;
}

} // namespace

TEST_CASE("refit validation: a tree that finds the two regimes wins held out") {
  const auto fb = two_regimes(40);
  const RefitValidation v = validate_refit(fb, {.max_leaves = 8, .folds = 5, .seed = 1});
  REQUIRE(v.folds == 5);
  REQUIRE(v.leaves.size() == 8);
  CHECK(v.held_out_log.size() == 8);
  CHECK(v.held_out_log[0].size() == fb.size());
  // One leaf picks one config for all: half the shapes at 2x, half at 1x. Two leaves split
  // the regimes: nearly every held-out shape at 2x.
  CHECK(v.held_out[0] < 1.5);
  CHECK(v.held_out[1] > 1.9);
  CHECK(v.best_leaves >= 2);
  CHECK(v.best_held_out == doctest::Approx(v.held_out[std::size_t(v.best_leaves - 1)]));
  // The same seed gives the same figures.
  CHECK(validate_refit(fb, {.max_leaves = 8, .folds = 5, .seed = 1}).held_out == v.held_out);

  const std::vector<double> weights(fb.size(), 1.0);
  // Against a searched program at the expert's level, the tree's gain is clear.
  const RefitVerdict worse = compare_refit(v, std::vector<double>(fb.size(), 0.0), weights);
  CHECK(worse.tree_wins);
  CHECK(worse.leaves == v.best_leaves);
  CHECK(worse.gain > worse.standard_error);
  // Against a searched program that already takes the fast config everywhere, it is not.
  const RefitVerdict perfect =
      compare_refit(v, std::vector<double>(fb.size(), std::log(2.0)), weights);
  CHECK_FALSE(perfect.tree_wins);
}

TEST_CASE("refit validation: a positive held-out gain is enough, a negative one is not") {
  // The searched program's figure is its training one (optimistic), so no margin is asked on
  // top: a gain inside one standard error wins too.
  RefitValidation v;
  v.folds = 5;
  v.leaves = {1};
  v.best_leaves = 1;
  v.held_out_log.emplace_back();
  for (int i = 0; i < 10; ++i)
    v.held_out_log[0].push_back(i % 2 ? -0.18 : 0.2); // mean +0.01, noisy
  const std::vector<double> weights(10, 1.0);
  const RefitVerdict small = compare_refit(v, std::vector<double>(10, 0.0), weights);
  CHECK(small.gain == doctest::Approx(0.01));
  CHECK(small.standard_error > small.gain);
  CHECK(small.tree_wins);
  const RefitVerdict behind = compare_refit(v, std::vector<double>(10, 0.02), weights);
  CHECK(behind.gain < 0);
  CHECK_FALSE(behind.tree_wins);
}

TEST_CASE(
    "refit validation: trees fitted on noise are optimistic, and the charge says by how much") {
  // Which config is faster changes from shape to shape at random: a tree of many leaves fits
  // the shapes it was fitted on and no held-out ones, so its optimism is large; one leaf has
  // little to fit. On the two clean regimes, two leaves carry over whole.
  const std::vector<ShapeFeedback> noise = coin_flips(60, 7);
  const RefitValidation v = validate_refit(noise, {.max_leaves = 8, .folds = 5, .seed = 1});
  REQUIRE(v.optimism.size() == 8);
  CHECK(v.optimism[7] > 0.05);
  CHECK(v.optimism[7] > v.optimism[0]);
  const RefitValidation clean =
      validate_refit(two_regimes(40), {.max_leaves = 8, .folds = 5, .seed = 1});
  CHECK(std::abs(clean.optimism[1]) < 0.05);

  // The charge: the optimism at the searched program's leaf count (capped at the largest tree,
  // never negative) is added to the gain. A searched program whose training figure is ahead of
  // the tree by less than that charge loses to it.
  RefitValidation w;
  w.folds = 5;
  w.leaves = {1, 2};
  w.best_leaves = 1;
  w.held_out_log.assign(1, std::vector<double>(10, 0.0));
  w.optimism = {0.01, 0.05};
  const std::vector<double> weights(10, 1.0), ahead(10, 0.03);
  CHECK_FALSE(compare_refit(w, ahead, weights).tree_wins); // no charge
  CHECK_FALSE(compare_refit(w, ahead, weights, 1).tree_wins);
  const RefitVerdict charged = compare_refit(w, ahead, weights, 6); // capped: 2 leaves
  CHECK(charged.charge == doctest::Approx(0.05));
  CHECK(charged.gain == doctest::Approx(0.02));
  CHECK(charged.tree_wins);
  w.optimism = {-0.5, -0.5};
  CHECK(compare_refit(w, ahead, weights, 2).charge == 0);
}

TEST_CASE("refit validation: cost-complexity chooses a charge per leaf on the folds") {
  // The two clean regimes: any charge up to the split's whole gain keeps two leaves; the figure
  // is that of the folds' trees under the chosen charge.
  const auto fb = two_regimes(40);
  const RefitValidation v =
      validate_refit(fb, {.max_leaves = 8, .folds = 5, .seed = 1, .complexity = true});
  REQUIRE(v.folds == 5);
  CHECK(v.complexity);
  CHECK(v.best_leaves == 2);
  CHECK(v.leaf_charge >= 0);
  REQUIRE(v.charged_log.size() == fb.size());
  CHECK(&v.chosen_log() == &v.charged_log);
  double mean = 0;
  for (double l : v.charged_log)
    mean += l / double(fb.size());
  CHECK(v.best_held_out == doctest::Approx(std::exp(mean)));
  CHECK(v.best_held_out > 1.9);
  // The leaf-count choice is what it was, and says so.
  const RefitValidation by_count = validate_refit(fb, {.max_leaves = 8, .folds = 5, .seed = 1});
  CHECK_FALSE(by_count.complexity);
  CHECK(by_count.charged_log.empty());
  CHECK(&by_count.chosen_log() == &by_count.held_out_log[std::size_t(by_count.best_leaves - 1)]);
  const std::vector<double> weights(fb.size(), 1.0);
  CHECK(compare_refit(v, std::vector<double>(fb.size(), 0.0), weights).tree_wins);
  CHECK_FALSE(compare_refit(v, std::vector<double>(fb.size(), std::log(2.0)), weights).tree_wins);

  // On coin flips no split carries over: the charge chosen is one that keeps the tree small,
  // on every table of ten.
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    CAPTURE(seed);
    const RefitValidation n = validate_refit(
        coin_flips(60, seed), {.max_leaves = 8, .folds = 5, .seed = 1, .complexity = true});
    REQUIRE(n.complexity);
    CHECK(n.leaf_charge > 0);
    CHECK(n.best_leaves <= 3);
  }
}

TEST_CASE("refit validation: the extreme folds hold out the largest and smallest M, N and K") {
  // Ten shapes, five folds: a fold at each end is two values' worth, with every shape tied at
  // the cut; N takes one value and has no extremes.
  const std::vector<std::int64_t> ms{1, 1, 1, 2, 3, 4, 5, 6, 7, 8};
  const std::vector<std::int64_t> ks{3, 9, 4, 8, 5, 7, 6, 100, 2, 1};
  std::vector<Shape> shapes;
  for (std::size_t i = 0; i < ms.size(); ++i) {
    Shape s;
    s.M = ms[i];
    s.N = 64;
    s.K = ks[i];
    shapes.push_back(s);
  }
  using Folds = std::vector<std::vector<std::size_t>>;
  CHECK(extreme_folds(shapes, 5) == Folds{{8, 9}, {0, 1, 2}, {1, 7}, {8, 9}});
  // Three folds: a third of the shapes at each end; M's smallest are 1, 1, 1.
  CHECK(extreme_folds(shapes, 3)[1] == std::vector<std::size_t>{0, 1, 2});
  // Too few shapes or folds: none; a value tied across half the shapes is no extreme.
  CHECK(extreme_folds(std::vector<Shape>(shapes.begin(), shapes.begin() + 3), 5).empty());
  CHECK(extreme_folds(shapes, 1).empty());
  std::vector<Shape> flat(10, shapes[0]);
  flat[9].M = 2;
  CHECK(extreme_folds(flat, 5).empty());
}

TEST_CASE("refit validation: the extreme folds choose among the charges within one standard "
          "error") {
  for (const bool clean : {true, false}) {
    CAPTURE(clean);
    const auto fb = clean ? two_regimes(40) : coin_flips(60, 3);
    const RefitValidation best =
        validate_refit(fb, {.max_leaves = 8, .folds = 5, .seed = 1, .complexity = true});
    const RefitValidation v = validate_refit(
        fb, {.max_leaves = 8, .folds = 5, .seed = 1, .complexity = true, .extremes = true});
    CHECK(best.extreme_folds == 0);
    CHECK(best.folds_best_leaves == best.best_leaves);
    // M is the one feature that varies: its two ends.
    CHECK(v.extreme_folds == 2);
    CHECK(v.close_charges >= 1);
    CHECK(v.folds_best_leaves == best.best_leaves);
    // The chosen charge's held-out figure is at most the best one.
    CHECK(v.best_held_out <= best.best_held_out * (1 + 1e-12));
    // Deterministic.
    const RefitValidation again = validate_refit(
        fb, {.max_leaves = 8, .folds = 5, .seed = 1, .complexity = true, .extremes = true});
    CHECK(again.best_leaves == v.best_leaves);
    CHECK(again.leaf_charge == v.leaf_charge);
  }
  // The two clean regimes: every size that splits them does as well held out; two leaves.
  CHECK(
      validate_refit(two_regimes(40),
                     {.max_leaves = 8, .folds = 5, .seed = 1, .complexity = true, .extremes = true})
          .best_leaves == 2);
  // Without cost-complexity there is no charge to choose: no extreme folds.
  CHECK(validate_refit(two_regimes(40), {.max_leaves = 8, .folds = 5, .seed = 1, .extremes = true})
            .extreme_folds == 0);
}

TEST_CASE("refit validation: the folds fitted side by side give the serial result") {
  // Every fold's fit and every extreme fold's runs on the OpenMP threads; each writes only its
  // own slot, so one thread and two give the same validation, field by field.
  const int threads = omp_get_max_threads();
  for (const auto& fb : {two_regimes(40), coin_flips(60, 7)}) {
    const RefitValidationOptions o{.max_leaves = 8,
                                   .folds = 5,
                                   .seed = 3,
                                   .lookahead = 10,
                                   .complexity = true,
                                   .extremes = true};
    omp_set_num_threads(1);
    const RefitValidation one = validate_refit(fb, o);
    omp_set_num_threads(2);
    const RefitValidation two = validate_refit(fb, o);
    omp_set_num_threads(threads);
    REQUIRE(one.folds == 5);
    CHECK(one.extreme_folds > 0);
    // Every field, the off-range tree's included.
    CHECK(two == one);
  }
}

TEST_CASE("refit validation: sizes stay in one fold when asked, and too few of them stop it") {
  // 3 sizes with 4 layouts each: dealt by shape there are 12, enough for 5 folds; dealt by size
  // only 3, too few for two folds (each needs a held-out size and a fit on the others).
  const auto fb = two_regimes(3, 4);
  CHECK(validate_refit(fb, {.max_leaves = 4, .folds = 5, .seed = 1}).folds == 5);
  CHECK(validate_refit(fb, {.max_leaves = 4, .folds = 5, .seed = 1, .group_sizes = true}).folds ==
        0);
  const auto many = two_regimes(20, 2);
  CHECK(validate_refit(many, {.max_leaves = 4, .folds = 5, .seed = 1, .group_sizes = true}).folds ==
        5);
  // Nothing measured or no expert time: nothing is validated.
  auto bad = two_regimes(20);
  bad[3].expert_seconds = 0;
  CHECK(validate_refit(bad, {.max_leaves = 4, .folds = 5, .seed = 1}).folds == 0);
  CHECK_FALSE(compare_refit(RefitValidation{}, {}, {}).tree_wins);
}

TEST_CASE("refit validation: where the extreme folds choose another size, their tree decides "
          "only past the training shapes' box") {
  // Coin flips: sizes the folds cannot tell apart, so the extreme folds often pick another.
  int split = 0;
  for (std::uint64_t seed = 0; seed < 40; ++seed) {
    CAPTURE(seed);
    const auto fb = coin_flips(60, seed);
    const RefitValidation v = validate_refit(
        fb, {.max_leaves = 8, .folds = 5, .seed = 1, .complexity = true, .extremes = true});
    REQUIRE(v.extreme_folds == 2);
    if (v.off_range_leaves == 0) {
      CHECK(v.off_range_charge == 0);
      continue;
    }
    ++split;
    // Inside: the best charge's tree; outside: the extreme folds' tree, of another size.
    CHECK(v.best_leaves == v.folds_best_leaves);
    CHECK(v.off_range_leaves != v.best_leaves);
    CHECK(v.off_range_charge != v.leaf_charge);
    // The figure averages each held-out shape under the tree that decides it.
    double sum = 0;
    for (std::size_t i = 0; i < fb.size(); ++i) {
      sum += v.charged_log[i];
      bool one_of_the_trees = false;
      for (const auto& logs : v.held_out_log)
        one_of_the_trees = one_of_the_trees || logs[i] == v.charged_log[i];
      CHECK(one_of_the_trees);
    }
    CHECK(v.best_held_out == doctest::Approx(std::exp(sum / double(fb.size()))));
  }
  CHECK(split >= 5);
}

} // namespace refit_validation_test
