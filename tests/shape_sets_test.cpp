// The shape sets in data/shapes/: each loads, and random5000.csv is exactly what
// scripts/random_shapes.py writes with the arguments its header names.
#include "models/data_dir.hpp"
#include "models/shape_file.hpp"
#include "support/shell.hpp"

#include <doctest/doctest.h>
#include <set>
#include <tuple>

using namespace tv;

TEST_CASE("shape sets: random5000.csv is the script's output, 5,000 distinct shapes") {
  const std::string path = data_path("shapes/random5000.csv");
  const auto made = test::run_shell("python3 " TILEVOLVE_SOURCE_DIR
                                    "/scripts/random_shapes.py --count 5000 --seed 0");
  REQUIRE(made.status == 0);
  CHECK(made.out == test::read_text(path));
  const std::vector<Shape> shapes = load_shape_file(path);
  REQUIRE(shapes.size() == 5000);
  std::set<std::tuple<long long, long long, long long>> sizes;
  std::set<long long> ms;
  int off_grid = 0;
  for (const Shape& s : shapes) {
    sizes.insert({s.M, s.N, s.K});
    ms.insert(s.M);
    for (long long d : {s.N, s.K})
      off_grid += d % 128 != 0 || d < 256 || d > 65536;
  }
  CHECK(off_grid == 0);
  CHECK(sizes.size() == 5000);
  CHECK(ms.size() == 25);
  // Another seed, another set; a bad count is refused.
  const auto other = test::run_shell("python3 " TILEVOLVE_SOURCE_DIR
                                     "/scripts/random_shapes.py --count 5000 --seed 1");
  REQUIRE(other.status == 0);
  const auto first_shape = [](const std::string& csv) {
    const std::size_t at = csv.find("\nrandom:0:");
    return at == std::string::npos ? std::string() : csv.substr(at, csv.find('\n', at + 1) - at);
  };
  CHECK_FALSE(first_shape(made.out).empty());
  CHECK(first_shape(other.out) != first_shape(made.out));
  CHECK(test::run_shell("python3 " TILEVOLVE_SOURCE_DIR
                        "/scripts/random_shapes.py --count 0 2>/dev/null")
            .status != 0);
}
