// The training range of a program (ir/training_range.hpp): true on every training shape, false
// far outside, narrower than the box of all training shapes where a rule's own shapes span
// less; its JSON form read back strictly; its M ranges at one (N, K); and in_training_range in
// the Python, Triton and C++ exports, run with python3 and compiled with g++, agreeing with the
// IR on a dense grid.
#include "support/export_check.hpp"
#include "support/shell.hpp"

#include "ir/error.hpp"
#include "ir/exporters/cpp_exporter.hpp"
#include "ir/exporters/m_segments.hpp"
#include "ir/exporters/python_exporter.hpp"
#include "ir/exporters/triton_exporter.hpp"
#include "ir/training_range.hpp"

#include <doctest/doctest.h>
#include <fstream>
#include <sstream>

// In a namespace of its own: the test files are compiled several to a unit (unity build).
namespace training_range_test {

using namespace tv;

namespace {

Shape at(std::int64_t M, std::int64_t N, std::int64_t K) {
  return test::grid_shape(M, N, K);
}

/// Random training shapes of the sizes the export tests' programs compare against.
std::vector<Shape> random_shapes(Rng& rng, int n) {
  std::vector<Shape> out;
  for (int i = 0; i < n; ++i)
    out.push_back(at(std::int64_t(1) << rng.uniform_int(0, 13),
                     rng.pick(std::vector<std::int64_t>{1024, 4096, 5120, 14336}),
                     rng.pick(std::vector<std::int64_t>{1024, 4096, 8192})));
  return out;
}

const Program& two_rule_program() {
  static const Program p = parse_program_or_throw("def choose(M, N, K):\n"
                                                  "    if M <= 16:\n"
                                                  "        return Config(BM=16, BN=64, BK=128, "
                                                  "warps=4, stages=2, group=1)\n"
                                                  "    if N >= 100000:\n"
                                                  "        return \"vendor\"\n"
                                                  "    return Config(BM=128, BN=128, BK=64, "
                                                  "warps=4, stages=2, group=8)\n",
                                                  "two rules");
  return p;
}

} // namespace

TEST_CASE("training range: true on every training shape, false far outside, and the box of the "
          "rule that decides a shape, not only of all shapes") {
  const Program& p = two_rule_program();
  const std::vector<Shape> train{at(1, 4096, 4096), at(16, 14336, 4096), at(128, 4096, 4096),
                                 at(8192, 4096, 14336)};
  const TrainingRange t = training_range(p, train);
  CHECK(t.shapes == 4);
  CHECK(t.box.dim[0] == Interval{1, 8192});
  CHECK(t.box.dim[1] == Interval{4096, 14336});
  REQUIRE(t.fits(p));
  CHECK(t.branches[0].shapes == 2);
  CHECK(t.branches[0].box.dim[1] == Interval{4096, 14336});
  CHECK(t.branches[1].shapes == 0); // the vendor rule decided no training shape
  CHECK(t.branches[2].shapes == 2);
  CHECK(t.branches[2].box.dim[2] == Interval{4096, 14336});
  CHECK(t.branches[2].box.dim[1] == Interval{4096, 4096});
  for (const Shape& s : train)
    CHECK(t.contains(p, s));
  CHECK_FALSE(t.contains(p, at(1, 1 << 20, 4096)));      // the vendor rule: no training shape
  CHECK_FALSE(t.contains(p, at(100000000, 4096, 4096))); // far above every M
  CHECK_FALSE(t.contains(p, at(8, 4096, 64)));           // K below every training K
  // Inside the box of all training shapes, yet the default's own shapes all have N = 4096.
  const Shape mid = at(512, 8192, 8192);
  CHECK(t.box.contains(mid));
  CHECK_FALSE(t.contains(p, mid));
  CHECK(t.contains(p, at(512, 4096, 8192)));
  // The coarser signal for an edited program: the box of all training shapes everywhere.
  const TrainingRange coarse = box_only_range(t, p);
  CHECK(coarse.contains(p, mid));
  CHECK_FALSE(coarse.contains(p, at(1, 100, 4096)));
  // Random programs and training sets: every training shape is in range, and in range implies
  // inside the box of all of them.
  Rng rng(66);
  for (int i = 0; i < 200; ++i) {
    const Program q = test::random_export_program(rng);
    const std::vector<Shape> shapes = random_shapes(rng, int(rng.uniform_int(1, 30)));
    const TrainingRange r = training_range(q, shapes);
    for (const Shape& s : shapes)
      CHECK(r.contains(q, s));
    for (const Shape& s : random_shapes(rng, 20))
      if (r.contains(q, s)) CHECK(r.box.contains(s));
    CHECK_FALSE(r.contains(q, at(std::int64_t(1) << 40, 4096, 4096)));
  }
}

TEST_CASE("training range: the JSON form reads back, and malformed ones are refused with the "
          "source named") {
  const Program& p = two_rule_program();
  const TrainingRange t = training_range(p, {at(1, 4096, 4096), at(128, 4096, 8192)});
  const nlohmann::json j = training_range_json(t);
  CHECK(j["shapes"] == 2);
  CHECK(j["M"] == nlohmann::json::array({1, 128}));
  CHECK(j["branches"][1]["rule"] == 2);
  CHECK_FALSE(j["branches"][1].contains("M"));
  CHECK(j["branches"][2]["rule"] == "default");
  CHECK(training_range_from_json(j, "s.json") == t);
  const auto refused = [&](const std::function<void(nlohmann::json&)>& edit,
                           const std::string& part) {
    nlohmann::json bad = j;
    edit(bad);
    try {
      training_range_from_json(bad, "s.json");
      FAIL("accepted: " << bad.dump());
    } catch (const InputError& e) {
      CHECK_MESSAGE(std::string(e.what()).find(part) != std::string::npos, std::string(e.what()));
      CHECK(std::string(e.what()).rfind("s.json: training_range", 0) == 0);
    }
  };
  refused([](auto& b) { b["shapes"] = -1; }, "\"shapes\" must be a non-negative integer");
  refused([](auto& b) { b["M"] = {5, 1}; }, "\"M\" must be [lo, hi] with 1 <= lo <= hi");
  refused([](auto& b) { b["N"] = {1, "x"}; }, "\"N\" must be [lo, hi], two integers");
  refused([](auto& b) { b["K"] = {1, 18446744073709551615ULL}; }, "\"K\" is out of range");
  refused([](auto& b) { b["branches"] = nlohmann::json::array(); }, "non-empty array");
  refused([](auto& b) { b["branches"][0] = 3; }, "branch 1: expected an object");
  refused([](auto& b) { b["branches"][0]["shapes"] = 99; }, "more shapes than the training");
  refused([](auto& b) { b.erase("M"); }, "\"M\" must be [lo, hi]");
  CHECK_THROWS_AS(training_range_from_json(nlohmann::json::array(), "s.json"), InputError);
}

TEST_CASE("training range: its M ranges at one (N, K) are the M whose shapes are in range") {
  Rng rng(7);
  for (int i = 0; i < 60; ++i) {
    const Program q = test::random_export_program(rng);
    const TrainingRange r = training_range(q, random_shapes(rng, int(rng.uniform_int(1, 25))));
    for (const std::int64_t n : {1024, 4096, 14336})
      for (const std::int64_t k : {1024, 8192}) {
        const MRanges got = training_m_ranges(r, q, n, k, 3000);
        MRanges want;
        for (std::int64_t m = 1; m <= 3000; ++m)
          if (r.contains(q, at(m, n, k))) add_m_range(want, m, m);
        CHECK(got == want);
      }
  }
  CHECK(training_m_text(training_range(two_rule_program(), {}), two_rule_program(), 64, 64)
            .find("no M is in the training range") != std::string::npos);
}

TEST_CASE("training range: in_training_range of the Python and Triton exports, run with "
          "python3, is the IR's on a dense grid") {
  Rng rng(5);
  std::vector<Program> programs{test::mixed_export_program()};
  for (int i = 0; i < 8; ++i)
    programs.push_back(test::random_export_program(rng));
  const test::ScratchDir scratch("training_range_python");
  const std::string& dir = scratch.path;
  std::filesystem::create_directories(dir + "/stand_in/triton");
  std::ofstream(dir + "/stand_in/triton/__init__.py")
      << "class Config:\n"
         "    def __init__(self, kwargs, num_warps=4, num_stages=3):\n"
         "        self.kwargs, self.num_warps, self.num_stages = kwargs, num_warps, num_stages\n";
  std::vector<TrainingRange> ranges;
  std::string script = "import sys\nmods = []\n";
  for (std::size_t i = 0; i < programs.size(); ++i) {
    ExportInfo info;
    info.training = training_range(programs[i], random_shapes(rng, 12));
    ranges.push_back(*info.training);
    std::ofstream(dir + "/p" + std::to_string(i) + ".py") << export_python(programs[i], info);
    std::ofstream(dir + "/t" + std::to_string(i) + ".py") << export_triton(programs[i], info);
    script += fmt::format("import p{0}, t{0}\nmods.append((p{0}, t{0}))\n"
                          "assert p{0}.TRAINING_SHAPES == 12\n",
                          i);
  }
  // A module without training shapes says so and answers False everywhere.
  std::ofstream(dir + "/unknown.py") << export_python(programs[0], ExportInfo{});
  script += "import unknown\nassert unknown.TRAINING_SHAPES == 0\n"
            "assert not unknown.in_training_range(1, 4096, 4096)\n"
            "def one(p, t, M, N, K):\n"
            "    a, b = p.in_training_range(M, N, K), t.in_training_range(M, N, K)\n"
            "    assert a is b, (M, N, K)\n"
            "    if not a and t.choose_index(M, N, K) is not None:\n"
            "        t.AUTOTUNE_OUTSIDE_TRAINING_RANGE = True\n"
            "        kept = t.early_config_prune(t.CONFIGS, {'M': M, 'N': N, 'K': K})\n"
            "        t.AUTOTUNE_OUTSIDE_TRAINING_RANGE = False\n"
            "        assert kept == list(t.CONFIGS)\n"
            "    return '1' if a else '0'\n"
            "for row in sys.stdin:\n"
            "    M, N, K = map(int, row.split())\n"
            "    print(' | '.join(one(p, t, M, N, K) for p, t in mods))\n";
  std::vector<Shape> grid = test::export_grid(programs);
  for (const TrainingRange& r : ranges) // the box ends and their neighbours
    for (const BranchRange& b : r.branches)
      if (b.shapes > 0)
        for (const std::int64_t d : {-1, 0, 1})
          grid.push_back(at(b.box.dim[0].lo + d, b.box.dim[1].hi + d, b.box.dim[2].lo - d));
  {
    std::ofstream in(dir + "/grid.txt");
    for (const Shape& s : grid)
      in << s.M << ' ' << s.N << ' ' << s.K << '\n';
  }
  std::ofstream(dir + "/driver.py") << script;
  const auto r =
      test::run_shell("cd " + dir + " && PYTHONPATH=stand_in python3 -B driver.py < grid.txt 2>&1");
  REQUIRE_MESSAGE(r.status == 0, r.out.substr(0, 2000));
  std::istringstream out(r.out);
  std::size_t wrong = 0, inside = 0;
  for (const Shape& s : grid) {
    std::string line, want;
    REQUIRE(std::getline(out, line));
    for (std::size_t i = 0; i < programs.size(); ++i) {
      const bool in = ranges[i].contains(programs[i], s);
      inside += in;
      want += std::string(i ? " | " : "") + (in ? "1" : "0");
    }
    if (line != want && ++wrong <= 5)
      FAIL_CHECK(s.M << "x" << s.N << "x" << s.K << ": got " << line << "; the IR says " << want);
  }
  CHECK(wrong == 0);
  CHECK(inside > 0);
}

TEST_CASE("training range: in_training_range of the C++ export, compiled with g++, is the IR's "
          "on a dense grid and usable at compile time") {
  Rng rng(9);
  std::vector<Program> programs{test::mixed_export_program()};
  for (int i = 0; i < 8; ++i)
    programs.push_back(test::random_export_program(rng));
  const test::ScratchDir scratch("training_range_cpp");
  const std::string& dir = scratch.path;
  std::vector<TrainingRange> ranges;
  std::string driver = "#include <cstdio>\n";
  for (std::size_t i = 0; i < programs.size(); ++i) {
    ExportInfo info;
    std::vector<Shape> shapes = random_shapes(rng, 12);
    if (i == 0) shapes.push_back(at(1, 4096, 4096));
    info.training = training_range(programs[i], shapes);
    ranges.push_back(*info.training);
    CppExportOptions o;
    o.name_space = "tr" + std::to_string(i);
    std::ofstream(dir + "/p" + std::to_string(i) + ".hpp") << export_cpp(programs[i], info, o);
    driver += "#include \"p" + std::to_string(i) + ".hpp\"\n";
  }
  CppExportOptions o;
  o.name_space = "unknown";
  std::ofstream(dir + "/unknown.hpp") << export_cpp(programs[0], ExportInfo{}, o);
  driver += "#include \"unknown.hpp\"\n"
            "static_assert(tr0::in_training_range(1, 4096, 4096), \"a training shape\");\n"
            "static_assert(!unknown::in_training_range(1, 4096, 4096), \"not known: false\");\n"
            "static_assert(unknown::kTrainingShapes == 0 && tr0::kTrainingShapes == 13, \"\");\n"
            "int main() {\n  long long M, N, K;\n"
            "  while (std::scanf(\"%lld %lld %lld\", &M, &N, &K) == 3) {\n";
  for (std::size_t i = 0; i < programs.size(); ++i)
    driver += fmt::format("    std::printf(\"{}%d\", tr{}::in_training_range(M, N, K) ? 1 : 0);\n",
                          i ? " | " : "", i);
  driver += "    std::printf(\"\\n\");\n  }\n}\n";
  std::ofstream(dir + "/driver.cpp") << driver;
  const auto cc = test::run_shell("cd " + dir +
                                  " && g++ -std=c++17 -Wall -Wextra -Werror -o driver driver.cpp "
                                  "2>&1");
  REQUIRE_MESSAGE(cc.status == 0, cc.out.substr(0, 3000));
  const std::vector<Shape> grid = test::export_grid(programs);
  {
    std::ofstream in(dir + "/grid.txt");
    for (const Shape& s : grid)
      in << s.M << ' ' << s.N << ' ' << s.K << '\n';
  }
  const auto r = test::run_shell("cd " + dir + " && ./driver < grid.txt");
  REQUIRE(r.status == 0);
  std::istringstream out(r.out);
  std::size_t wrong = 0;
  for (const Shape& s : grid) {
    std::string line, want;
    REQUIRE(std::getline(out, line));
    for (std::size_t i = 0; i < programs.size(); ++i)
      want += std::string(i ? " | " : "") + (ranges[i].contains(programs[i], s) ? "1" : "0");
    if (line != want && ++wrong <= 5)
      FAIL_CHECK(s.M << "x" << s.N << "x" << s.K << ": got " << line << "; the IR says " << want);
  }
  CHECK(wrong == 0);
}

} // namespace training_range_test
