// The shape sets in data/shapes/ that scripts write: random5000.csv is exactly what
// scripts/random_shapes.py writes with the arguments its header names, and six_models.csv and
// seven_models_tp.csv what scripts/preset_shapes.py writes from the model presets (through the
// real binary).
#include "models/data_dir.hpp"
#include "models/shape_file.hpp"
#include "support/shell.hpp"

#include <doctest/doctest.h>
#include <set>
#include <tuple>

// In a namespace of its own: the test files are compiled several to a unit (unity build).
namespace shape_sets_test {

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

TEST_CASE("shape sets: other_models.csv is the script's output, each size once, none a lecture "
          "shape") {
  const std::string path = data_path("shapes/other_models.csv");
  const auto made = test::run_shell("python3 " TILEVOLVE_SOURCE_DIR "/scripts/other_models.py");
  REQUIRE(made.status == 0);
  CHECK(made.out == test::read_text(path));
  std::set<std::tuple<long long, long long, long long>> sizes, lecture;
  for (const Shape& s : load_shape_file(data_path("shapes/lecture.csv")))
    lecture.insert({s.M, s.N, s.K});
  int lm_heads = 0, shared = 0, widest = 0;
  const std::vector<Shape> shapes = load_shape_file(path);
  for (const Shape& s : shapes) {
    sizes.insert({s.M, s.N, s.K});
    shared += lecture.count({s.M, s.N, s.K}) > 0;
    lm_heads += s.name.find(":lm_head:") != std::string::npos;
    widest = std::max<int>(widest, int(s.N));
  }
  CHECK(shapes.size() == 351);
  CHECK(sizes.size() == shapes.size());
  CHECK(shared == 0);
  CHECK(lm_heads == 40);   // 8 token counts x 5 (mixtral-8x22b's is its gate_up size)
  CHECK(widest == 256000); // gemma2-9b's vocabulary
}

namespace {

/// The set data/shapes/`file`, after checking that scripts/preset_shapes.py with `args` (the
/// presets and options after `--exclude lecture.csv`) writes exactly it and that none of its
/// shapes has a lecture shape's (M, N, K). `out`: what the script printed.
std::vector<Shape> preset_set(const std::string& file, const std::string& args, std::string& out) {
  const std::string path = data_path("shapes/" + file);
  const auto made = test::run_shell("python3 " TILEVOLVE_SOURCE_DIR
                                    "/scripts/preset_shapes.py --tilevolve " TILEVOLVE_BINARY
                                    " --exclude " TILEVOLVE_SOURCE_DIR "/data/shapes/lecture.csv " +
                                    args);
  REQUIRE(made.status == 0);
  CHECK(made.out == test::read_text(path));
  out = made.out;
  const std::vector<Shape> shapes = load_shape_file(path);
  std::set<std::tuple<long long, long long, long long>> lecture;
  for (const Shape& s : load_shape_file(data_path("shapes/lecture.csv")))
    lecture.insert({s.M, s.N, s.K});
  int shared = 0;
  for (const Shape& s : shapes)
    shared += lecture.count({s.M, s.N, s.K}) > 0;
  CHECK(shared == 0);
  return shapes;
}

} // namespace

TEST_CASE("shape sets: six_models.csv is the presets' GEMMs, none of them a lecture shape") {
  std::string out;
  const std::vector<Shape> shapes =
      preset_set("six_models.csv",
                 "llama3-405b qwen2.5-7b qwen2.5-72b mixtral-8x7b deepseek-v3 gemma2-27b", out);
  CHECK(shapes.size() == 297); // 337 GEMMs less the 40 of Mixtral that are Llama-3 8B's
  // An unknown preset is refused with the binary's message.
  const auto bad = test::run_shell("python3 " TILEVOLVE_SOURCE_DIR
                                   "/scripts/preset_shapes.py --tilevolve " TILEVOLVE_BINARY
                                   " no-such-model 2>&1");
  CHECK(bad.status != 0);
  CHECK(bad.out.find("no-such-model") != std::string::npos);
}

TEST_CASE("shape sets: seven_models_tp.csv is the presets' sharded GEMMs, each size once") {
  std::string out;
  const std::vector<Shape> shapes =
      preset_set("seven_models_tp.csv",
                 "--tp 2,4,8 llama3-405b qwen2.5-7b qwen2.5-72b mixtral-8x7b deepseek-v3 "
                 "gemma2-27b llama3-70b",
                 out);
  // Qwen2.5-7B's 28 heads do not shard 8 ways: left out and said so.
  CHECK(out.find("# Left out (heads not divisible by the degree): qwen2.5-7b at tp 8.") !=
        std::string::npos);
  CHECK(shapes.size() == 878);
  std::set<std::tuple<long long, long long, long long>> sizes;
  for (const Shape& s : shapes) {
    sizes.insert({s.M, s.N, s.K});
    CHECK(s.name.find("-tp") != std::string::npos);
  }
  CHECK(sizes.size() == shapes.size());
  // A degree that is not a number is refused.
  CHECK(test::run_shell("python3 " TILEVOLVE_SOURCE_DIR
                        "/scripts/preset_shapes.py --tilevolve " TILEVOLVE_BINARY
                        " --tp 2,x llama3-8b 2>/dev/null")
            .status != 0);
}

} // namespace shape_sets_test
