#include "ir/error.hpp"
#include "models/workloads/keep_threshold.hpp"

#include "support/fixtures.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <fmt/format.h>

// In a namespace of its own: the test files are compiled several to a unit (unity build).
namespace keep_threshold_test {

using namespace tv;

namespace {

std::vector<Shape> weighted(const std::vector<double>& weights) {
  std::vector<Shape> out;
  for (std::size_t i = 0; i < weights.size(); ++i) {
    Shape s = test::shape(16 * std::int64_t(i + 1), 4096, 4096);
    s.name = fmt::format("s{}", i);
    s.weight = weights[i];
    out.push_back(s);
  }
  return out;
}

} // namespace

TEST_CASE("keep_threshold: keeps the largest shares of weight x time, in their order") {
  // Costs 5, 50, 15, 30 (weight x seconds) of 100: 50 + 30 = 80%, + 15 = 95%.
  const auto shapes = weighted({1, 10, 3, 2});
  const std::vector<double> secs = {5, 5, 5, 15};
  const KeepResult k80 = keep_time_share(shapes, secs, 0.8);
  REQUIRE(k80.kept.size() == 2);
  CHECK(k80.kept[0].name == "s1");
  CHECK(k80.kept[1].name == "s3");
  CHECK(k80.kept_share == doctest::Approx(0.8));
  CHECK(k80.summary() == "kept 2 of 4 shapes, 80.0% of the time");
  const KeepResult k81 = keep_time_share(shapes, secs, 0.81);
  REQUIRE(k81.kept.size() == 3);
  CHECK(k81.kept[0].name == "s1");
  CHECK(k81.kept[1].name == "s2");
  CHECK(k81.kept[2].name == "s3");
  CHECK(k81.summary() == "kept 3 of 4 shapes, 95.0% of the time");
  CHECK(keep_time_share(shapes, secs, 1.0).kept.size() == 4);
  CHECK(keep_time_share(shapes, secs, 1e-9).kept.size() == 1);
  // A zero-weight shape is no share of the time: kept by nothing short of it.
  CHECK(keep_time_share(weighted({1, 0, 1}), {1, 1, 1}, 1.0).kept.size() == 2);
}

TEST_CASE("keep_threshold: bad shares and estimates are errors") {
  const auto shapes = weighted({1, 1});
  CHECK_THROWS_WITH_AS(keep_time_share(shapes, {1, 1}, 0),
                       "--keep must be a share of the time in (0, 1], e.g. 0.99; got 0",
                       InputError);
  CHECK_THROWS_AS(keep_time_share(shapes, {1, 1}, 1.5), InputError);
  CHECK_THROWS_AS(keep_time_share(shapes, {1, 1}, std::nan("")), InputError);
  CHECK_THROWS_AS(keep_time_share(shapes, {1}, 0.5), InputError);
  CHECK_THROWS_AS(keep_time_share(shapes, {1, INFINITY}, 0.5), InputError);
  CHECK_THROWS_AS(keep_time_share(weighted({0, 0}), {1, 1}, 0.5), InputError);
}

TEST_CASE("keep_threshold: the estimate is the analytic model's fastest config per shape") {
  const auto& shapes = test::lecture_shapes();
  const Gpu& g = test::gpu("mi300x");
  const std::vector<double> est = estimated_seconds(shapes, g);
  const TimeTable t = build_model_table(shapes, g);
  REQUIRE(est.size() == shapes.size());
  for (std::size_t r = 0; r < shapes.size(); ++r) {
    CHECK(std::isfinite(est[r]));
    CHECK(est[r] == t.oracle_time(r));
  }
  // The lecture's prefill shapes (M = 8192) take most of the time of the whole set.
  const KeepResult k = keep_time_share(shapes, est, 0.5);
  for (const Shape& s : k.kept)
    CHECK(s.M >= 2048);
}

} // namespace keep_threshold_test
