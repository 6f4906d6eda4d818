#include "ir/error.hpp"
#include "models/shape_file.hpp"
#include "models/split.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <set>
#include <string>

// In a namespace of its own: the test files are compiled several to a unit (unity build).
namespace split_test {

using namespace tv;

namespace {

std::vector<Shape> numbered(int n) {
  std::vector<Shape> shapes;
  for (int i = 0; i < n; ++i) {
    Shape s;
    s.M = i + 1;
    s.name = (i % 2 ? "b:" : "a:") + std::to_string(i);
    shapes.push_back(s);
  }
  return shapes;
}

std::vector<Shape> lecture() {
  return load_shape_file(TILEVOLVE_SOURCE_DIR "/data/shapes/lecture.csv");
}

/// Position of each shape in `all` (shapes have unique names).
std::vector<std::size_t> positions(const std::vector<Shape>& part, const std::vector<Shape>& all) {
  std::vector<std::size_t> out;
  for (const Shape& s : part)
    out.push_back(std::size_t(std::find(all.begin(), all.end(), s) - all.begin()));
  return out;
}

std::string error_of(const std::vector<Shape>& shapes, const std::string& spec) {
  try {
    make_split(shapes, spec, 0);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

} // namespace

TEST_CASE("split: random is half/half, disjoint, covers all, keeps file order") {
  for (int n : {2, 3, 7, 88}) {
    const auto shapes = n == 88 ? lecture() : numbered(n);
    const Split sp = make_split(shapes, "random", 42);
    CHECK(sp.train.size() == std::size_t((n + 1) / 2));
    CHECK(sp.test.size() == std::size_t(n / 2));
    const auto tr = positions(sp.train, shapes), te = positions(sp.test, shapes);
    CHECK(std::is_sorted(tr.begin(), tr.end()));
    CHECK(std::is_sorted(te.begin(), te.end()));
    std::set<std::size_t> all(tr.begin(), tr.end());
    all.insert(te.begin(), te.end());
    CHECK(all.size() == std::size_t(n)); // disjoint and every shape present
    CHECK(*all.rbegin() == std::size_t(n - 1));
    CHECK(sp.description == "random half/half (seed 42)");
  }
}

TEST_CASE("split: random depends on the seed only") {
  const auto shapes = lecture();
  const Split a = make_split(shapes, "random", 7), b = make_split(shapes, "random", 7);
  CHECK(a.train == b.train);
  CHECK(a.test == b.test);
  const Split c = make_split(shapes, "random", 8);
  CHECK(c.train != a.train);
  // Not simply the first half of the file.
  CHECK(a.train != std::vector<Shape>(shapes.begin(), shapes.begin() + 44));
  std::set<std::vector<std::size_t>> distinct;
  for (std::uint64_t seed = 0; seed < 10; ++seed)
    distinct.insert(positions(make_split(shapes, "random", seed).train, shapes));
  CHECK(distinct.size() == 10);
}

TEST_CASE("split: model split on the lecture shapes") {
  const auto shapes = lecture();
  const Split sp = make_split(shapes, "model:llama3-8b", 3);
  REQUIRE(sp.train.size() == 44);
  REQUIRE(sp.test.size() == 44);
  CHECK(sp.train == std::vector<Shape>(shapes.begin(), shapes.begin() + 44));
  CHECK(sp.test == std::vector<Shape>(shapes.begin() + 44, shapes.end()));
  for (const Shape& s : sp.test)
    CHECK(s.name.starts_with("llama3-70b-tp8:"));
  CHECK(sp.description == "train on model llama3-8b (44 shapes), test on the rest (44)");
  const Split rev = make_split(shapes, "model:llama3-70b-tp8", 0);
  CHECK(rev.train == sp.test);
  CHECK(rev.test == sp.train);
  // The prefix must be a whole model name followed by ':'.
  CHECK(error_of(shapes, "model:llama3") ==
        "split 'model:llama3' selects no training shapes; names look like 'llama3-8b:qkv:M1'");
}

TEST_CASE("split: none uses every shape on both sides") {
  const auto shapes = numbered(5);
  const Split sp = make_split(shapes, "none", 1);
  CHECK(sp.train == shapes);
  CHECK(sp.test == shapes);
  CHECK(sp.description == "no split: train and test are all 5 shapes");
}

TEST_CASE("split: errors") {
  const auto shapes = numbered(4);
  CHECK(error_of(shapes, "model:foo") ==
        "split 'model:foo' selects no training shapes; names look like 'a:0'");
  CHECK(error_of(shapes, "x") ==
        "unknown split 'x' (expected random, random-mnk, range, model:NAME or none)");
  CHECK(error_of(shapes, "Random") ==
        "unknown split 'Random' (expected random, random-mnk, range, model:NAME or none)");
  std::vector<Shape> same(3); // three layouts of one size
  same[0].name = "s0";
  same[1].name = "s1";
  same[2].name = "s2";
  CHECK(error_of(same, "random-mnk") == "split 'random-mnk' needs at least 2 distinct (M, N, K) "
                                        "to fill both halves, got 1");
  CHECK(error_of(shapes, "model:") == "split 'model:' needs a model name (model:NAME)");
  CHECK(error_of(numbered(1), "random") ==
        "split 'random' needs at least 2 shapes to fill both halves, got 1");
  CHECK(error_of({}, "none") == "split 'none' has no shapes to train or test on");
  auto one_model = numbered(4);
  for (Shape& s : one_model)
    s.name = "m:" + std::to_string(s.M);
  CHECK(error_of(one_model, "model:m") ==
        "split 'model:m' leaves no test shapes: all 4 shapes are from model m");
  std::vector<Shape> unnamed(3);
  CHECK(error_of(unnamed, "model:m") ==
        "split 'model:m' selects no training shapes; the shapes have no names");
}

TEST_CASE("split: random-mnk keeps every (M, N, K) on one side") {
  const auto shapes = load_shape_file(TILEVOLVE_SOURCE_DIR "/data/replay/h100_shapes.csv");
  REQUIRE(shapes.size() == 212);
  std::set<std::array<std::int64_t, 3>> sizes;
  for (const Shape& s : shapes)
    sizes.insert({s.M, s.N, s.K});
  REQUIRE(sizes.size() < shapes.size()); // several dtypes/layouts per size: the case it is for
  std::set<std::string> train_sets;
  for (std::uint64_t seed = 0; seed < 5; ++seed) {
    CAPTURE(seed);
    const Split sp = make_split(shapes, "random-mnk", seed);
    CHECK(sp.train.size() + sp.test.size() == shapes.size());
    CHECK(2 * sp.train.size() >= shapes.size());
    CHECK(!sp.test.empty());
    std::set<std::array<std::int64_t, 3>> train_sizes;
    for (const Shape& s : sp.train)
      train_sizes.insert({s.M, s.N, s.K});
    for (const Shape& s : sp.test)
      CHECK(train_sizes.count({s.M, s.N, s.K}) == 0);
    // Each half keeps file order.
    const auto at = positions(sp.train, shapes);
    CHECK(std::is_sorted(at.begin(), at.end()));
    CHECK(make_split(shapes, "random-mnk", seed).train == sp.train);
    std::string names;
    for (const Shape& s : sp.train)
      names += s.name + ",";
    train_sets.insert(names);
    CHECK(sp.description.find("by (M, N, K)") != std::string::npos);
  }
  CHECK(train_sets.size() == 5); // the seed matters
  // With every size distinct it is a plain half/half split.
  const Split lec = make_split(lecture(), "random-mnk", 0);
  CHECK(lec.train.size() == 44);
  CHECK(lec.test.size() == 44);
}

TEST_CASE("split: range trains on one end of a feature and tests on the other") {
  const auto shapes = lecture();
  const auto value = [](const Shape& s, int feature) {
    return feature == 0   ? double(s.M) * double(s.N) * double(s.K)
           : feature == 1 ? double(s.M)
           : feature == 2 ? double(s.N)
                          : double(s.K);
  };
  for (std::uint64_t seed = 0; seed < 8; ++seed) {
    CAPTURE(seed);
    const RangeSide side = range_split_side(seed);
    CHECK(side.feature == int(seed / 2));
    CHECK(side.train_smallest == (seed % 2 == 0));
    const Split sp = make_split(shapes, "range", seed);
    CHECK(sp.train.size() + sp.test.size() == shapes.size());
    CHECK(2 * sp.train.size() >= shapes.size());
    REQUIRE_FALSE(sp.test.empty());
    // Every test shape lies beyond every training shape on that feature.
    double train_lo = 1e300, train_hi = 0, test_lo = 1e300, test_hi = 0;
    for (const Shape& s : sp.train) {
      train_lo = std::min(train_lo, value(s, side.feature));
      train_hi = std::max(train_hi, value(s, side.feature));
    }
    for (const Shape& s : sp.test) {
      test_lo = std::min(test_lo, value(s, side.feature));
      test_hi = std::max(test_hi, value(s, side.feature));
    }
    if (side.train_smallest)
      CHECK(test_lo > train_hi);
    else
      CHECK(test_hi < train_lo);
    // Each side keeps file order; the same seed, the same split; the description says which.
    const auto at = positions(sp.train, shapes);
    CHECK(std::is_sorted(at.begin(), at.end()));
    CHECK(make_split(shapes, "range", seed).train == sp.train);
    CHECK(make_split(shapes, "range", seed + kRangeSplits).train == sp.train);
    CHECK(sp.description.find(std::string(side.train_smallest ? "smallest " : "largest ") +
                              side.name) != std::string::npos);
  }
  // The lecture's 11 token counts: M = 1 to 256 (six values, 48 shapes) train with seed 2, the
  // rest test.
  const Split by_m = make_split(shapes, "range", 2);
  CHECK(by_m.description == "range: train on the 48 shapes of smallest M, test on the 40 of "
                            "largest (seed 2)");
  // A feature of one value cannot be split.
  std::vector<Shape> flat(4, shapes[0]);
  for (std::size_t i = 0; i < flat.size(); ++i)
    flat[i].M = std::int64_t(i + 1);
  CHECK_NOTHROW(make_split(flat, "range", 2));
  CHECK(error_of(flat, "range").empty()); // M*N*K varies with M
  try {
    make_split(flat, "range", 4); // N
    FAIL("a feature of one value was split");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()) ==
          "split 'range' (seed 4) needs at least 2 distinct values of N to fill both sides, got 1");
  }
}

} // namespace split_test
