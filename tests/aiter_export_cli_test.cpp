// End-to-end tests of `tilevolve export --format aiter` and `tilevolve import` of aiter files,
// and of the training-range signal in a run's exports, summary and per-shape view: the real
// binary on real files, python3 with a transcription of aiter's getter (written here from its
// documented behaviour), and g++.
#include "support/export_check.hpp"
#include "support/fixtures.hpp"
#include "support/shell.hpp"

#include "eval/training_coverage.hpp"
#include "ir/exporters/aiter_exporter.hpp"
#include "ir/exporters/aiter_format.hpp"
#include "ir/exporters/export_info.hpp"
#include "ir/text.hpp"
#include "models/data_dir.hpp"

#include <doctest/doctest.h>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

// In a namespace of its own: the test files are compiled several to a unit (unity build).
namespace aiter_export_cli_test {

using namespace tv;

namespace {

test::ShellResult tilevolve(const std::string& args, bool merge_stderr = true) {
  return test::run_shell(std::string(TILEVOLVE_BINARY) + " " + args +
                         (merge_stderr ? " 2>&1" : " 2>/dev/null"));
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

/// One MI300X evolve run on the lecture shapes (random split, seed 0), shared by the tests.
const std::string& mi300x_run() {
  static const std::string dir = [] {
    static const test::ScratchDir scratch("aiter_cli_run");
    const std::string d = scratch.path + "/run";
    const auto r = tilevolve("evolve --gpu mi300x --budget 300 --seed 1 --quiet --out " + d);
    REQUIRE_MESSAGE(r.status == 0, r.out);
    return d;
  }();
  return dir;
}

/// aiter's lookup as its getter does it, transcribed from the documented behaviour: the per-(N,
/// K) file under configs/gemm/, M_LEQ_m for m in the standard bounds increasing, M_GEQ_m
/// decreasing, then "any" (not tuned). Prints, for M = 1..9000 at N = K = 4096, the M where the
/// config it returns differs from the exported Python heuristic's (knobs filled as aiter's gfx942
/// files write them), then whether it reported tuned up to 8192 and not above.
const char* kAiterLookup = "import json, sys\n"
                           "sys.path.insert(0, sys.argv[2])\n"
                           "import best_heuristic as h\n"
                           "BOUNDS = (4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192)\n"
                           "def lookup(table, M):\n"
                           "    for b in BOUNDS:\n"
                           "        if M <= b and 'M_LEQ_%d' % b in table:\n"
                           "            return table['M_LEQ_%d' % b], True\n"
                           "    for b in reversed(BOUNDS):\n"
                           "        if M >= b and 'M_GEQ_%d' % b in table:\n"
                           "            return table['M_GEQ_%d' % b], True\n"
                           "    return table['any'], False\n"
                           "with open('%s/gemm/%s-GEMM-A16W16-N=%d-K=%d.json' % (sys.argv[1], "
                           "'gfx942', 4096, 4096)) as f:\n"
                           "    table = json.load(f)\n"
                           "bad, tuned = [], []\n"
                           "for M in range(1, 9001):\n"
                           "    cfg, is_tuned = lookup(table, M)\n"
                           "    tuned.append(is_tuned)\n"
                           "    want = dict(h.choose(M, 4096, 4096))\n"
                           "    want.setdefault('waves_per_eu', 2)\n"
                           "    want.setdefault('matrix_instr_nonkdim', 16)\n"
                           "    want.setdefault('kpack', 1)\n"
                           "    want.update(cache_modifier=None, NUM_KSPLIT=1)\n"
                           "    if cfg != want:\n"
                           "        bad.append(M)\n"
                           "print(' '.join(map(str, bad)))\n"
                           "print(all(tuned[:8192]), any(tuned[8192:]))\n";

} // namespace

TEST_CASE("aiter cli: an evolved MI300X program exports to aiter's file, aiter's lookup and the "
          "import choose as the program on every M but the ones the export names") {
  const std::string run = mi300x_run();
  const Program best = load_program_file(run + "/best_simplified.py");
  const test::ScratchDir scratch("aiter_cli_export");
  const std::string& dir = scratch.path;
  const auto e =
      tilevolve("export " + run + " --format aiter --n 4096 --k 4096 -o " + dir + "/configs/gemm");
  REQUIRE_MESSAGE(e.status == 0, e.out);
  const std::string file = dir + "/configs/gemm/gfx942-GEMM-A16W16-N=4096-K=4096.json";
  CHECK(contains(e.out, "wrote " + file + " (13 keys)"));
  // Only aiter's keys, and its field names.
  const auto j = nlohmann::ordered_json::parse(test::read_text(file));
  for (auto it = j.begin(); it != j.end(); ++it) {
    CHECK_MESSAGE(
        (it.key() == "any" || it.key().rfind("M_LEQ_", 0) == 0 || it.key().rfind("M_GEQ_", 0) == 0),
        it.key());
    for (const char* f :
         {"BLOCK_SIZE_M", "BLOCK_SIZE_N", "BLOCK_SIZE_K", "GROUP_SIZE_M", "num_warps", "num_stages",
          "waves_per_eu", "matrix_instr_nonkdim", "kpack", "cache_modifier", "NUM_KSPLIT"})
      CHECK_MESSAGE(it.value().contains(f), f);
  }
  // The file is the library's export of the run's program, with the run's training range.
  const Problem& problem = test::lecture_problem("mi300x");
  const TrainingRange range = problem_training_range(problem, best);
  AiterExportOptions o;
  o.N = o.K = 4096;
  o.device = "gfx942";
  const AiterExport lib = export_aiter(best, o, range);
  CHECK(test::read_text(file) == lib.json);
  const std::string prov =
      test::read_text(dir + "/configs/gemm/gfx942-GEMM-A16W16-N=4096-K=4096.provenance.txt");
  CHECK(contains(prov, "Program hash " + program_hash_text(best)));
  CHECK(contains(prov, "Training range: 44 training shapes, M 1..8192, N 1280..28672, K "
                       "1024..14336;"));
  CHECK(contains(prov, training_m_text(range, best, 4096, 4096)));
  for (const auto& n : lib.notes)
    CHECK(contains(prov, n));
  for (const auto& w : lib.warnings)
    CHECK(contains(e.out, "tilevolve export: warning: " + w));

  // aiter's lookup (python3) on the file against the Python export of the same run.
  std::ofstream(dir + "/aiter_lookup.py") << kAiterLookup;
  const auto look = test::run_shell("cd " + dir + " && python3 -B aiter_lookup.py configs " + run +
                                    "/exports 2>&1");
  REQUIRE_MESSAGE(look.status == 0, look.out);
  std::string want;
  for (std::int64_t m = 1; m <= 9000; ++m)
    for (const auto& [lo, hi] : lib.differs)
      if (lo <= m && m <= hi) want += (want.empty() ? "" : " ") + std::to_string(m);
  CHECK(look.out == want + "\nTrue False\n");

  // Imported back: the program chooses as aiter's lookup of the file, that is as the evolved
  // program (knobs as aiter launches them) on every M from 1 to 8192 but those named.
  const auto imp = tilevolve("import '" + file + "' -o " + dir + "/imported.py");
  REQUIRE_MESSAGE(imp.status == 0, imp.out);
  const Program imported = load_program_file(dir + "/imported.py");
  std::size_t same = 0;
  for (std::int64_t m = 1; m <= 8192; ++m) {
    const Shape s = test::grid_shape(m, 4096, 4096);
    const bool named = std::any_of(lib.differs.begin(), lib.differs.end(),
                                   [&](const auto& r) { return r.first <= m && m <= r.second; });
    const bool equal = imported.choose(s) == with_aiter_defaults(best.choose(s), true);
    same += equal;
    if (equal == named) {
      FAIL_CHECK("M=" << m);
      break;
    }
  }
  CHECK(same > 4096); // most M agree; the rest are the bucket boundaries aiter cannot follow
  CHECK(contains(test::read_text(dir + "/imported.py"),
                 "# Imported by tilevolve import from " + file));
  // Evolution starts from the imported file, and score takes it.
  const auto evo = tilevolve(
      "evolve --gpu mi300x --expert " + dir + "/imported.py --budget 100 --quiet --json", false);
  REQUIRE_MESSAGE(evo.status == 0, evo.out);
  CHECK(nlohmann::json::parse(evo.out)["problem"]["expert_file"] == dir + "/imported.py");
  CHECK(tilevolve("score " + dir + "/imported.py --gpu mi300x", false).status == 0);
  // export reads an aiter file directly, too.
  const auto cpp = tilevolve("export '" + file + "' --format cpp");
  REQUIRE(cpp.status == 0);
  CHECK(contains(cpp.out, "from aiter config " + file + " (imported by tilevolve)"));
}

TEST_CASE("aiter cli: a program whose decisions follow aiter's buckets round-trips exactly, and "
          "device names, vendor regions and hostile files") {
  const test::ScratchDir scratch("aiter_cli_file");
  const std::string& dir = scratch.path;
  // The AMD expert (M <= 16 or not): every M of 1..8192 round-trips.
  const std::string expert = data_path("experts/lecture_amd.py");
  const auto e =
      tilevolve("export " + expert + " --format aiter --n 4096 --k 4096 --gpu mi300x -o " + dir);
  REQUIRE_MESSAGE(e.status == 0, e.out);
  CHECK(contains(e.out, "returns the program's decision for every M >= 1"));
  CHECK_FALSE(contains(e.out, "warning"));
  const std::string file = dir + "/gfx942-GEMM-A16W16-N=4096-K=4096.json";
  REQUIRE(tilevolve("import " + file + " -o " + dir + "/back.py").status == 0);
  const Program back = load_program_file(dir + "/back.py");
  const Program ex = load_program_file(expert);
  for (std::int64_t m = 1; m <= 8192; ++m) {
    const Shape s = test::grid_shape(m, 4096, 4096);
    if (!(back.choose(s) == with_aiter_defaults(ex.choose(s), true))) {
      FAIL_CHECK("M=" << m);
      break;
    }
  }
  // Scored with problem options, the provenance states the training range.
  CHECK(contains(test::read_text(dir + "/gfx942-GEMM-A16W16-N=4096-K=4096.provenance.txt"),
                 "Training range: 44 training shapes"));
  // Device names: --device for older releases; gfx950 on MI355X, without kpack.
  REQUIRE(tilevolve("export " + expert + " --format aiter --n 64 --k 64 --device MI300X -o " + dir)
              .status == 0);
  CHECK(test::read_text(dir + "/MI300X-GEMM-A16W16-N=64-K=64.json").size() > 100);
  REQUIRE(tilevolve("export " + expert + " --format aiter --n 64 --k 64 --gpu mi355x -o " + dir)
              .status == 0);
  CHECK_FALSE(contains(test::read_text(dir + "/gfx950-GEMM-A16W16-N=64-K=64.json"), "kpack"));
  test::check_refused(std::string(TILEVOLVE_BINARY) + " export " + expert +
                          " --format aiter --n 64 --k 64 -o " + dir,
                      "the device name is not known: give --device NAME");
  test::check_refused(std::string(TILEVOLVE_BINARY) + " export " + expert + " --format aiter",
                      "--format aiter needs --n N and --k K");
  test::check_refused(std::string(TILEVOLVE_BINARY) + " export " + expert +
                          " --format cpp --device gfx942",
                      "--device belongs to --format vllm and --format aiter");
  test::check_refused(std::string(TILEVOLVE_BINARY) + " export " + expert +
                          " --format aiter --n 64 --k 64 --device gfx942 --m-keys 1,2",
                      "--m-keys belongs to --format vllm");
  // The vendor library: refused with the M named, or written as the fallback and named.
  std::ofstream(dir + "/v.py") << "def choose(M, N, K):\n"
                                  "    if M * N >= 268435456:\n"
                                  "        return \"vendor\"\n"
                                  "    return Config(BM=128, BN=128, BK=64, warps=4, stages=2, "
                                  "group=8)\n";
  const std::string vendor =
      " export " + dir + "/v.py --format aiter --n 16384 --k 4096 --device gfx942 -o " + dir;
  test::check_refused(std::string(TILEVOLVE_BINARY) + vendor,
                      "tilevolve: error: aiter export: the program calls the vendor library "
                      "(returns \"vendor\") at N=16384, K=4096 for M in 16384..;");
  const auto fb = tilevolve(vendor + " --vendor-fallback 'Config(BM=256, BN=256, BK=64, warps=8, "
                                     "stages=2, group=4)'");
  REQUIRE_MESSAGE(fb.status == 0, fb.out);
  CHECK(contains(fb.out, "tilevolve export: warning: The program calls the vendor library "
                         "(hipBLASLt) at N=16384, K=4096 for M in 16384..;"));
  CHECK(contains(test::read_text(dir + "/gfx942-GEMM-A16W16-N=16384-K=4096.provenance.txt"),
                 "256x256x64 w8 s2 g4 is written there"));
  // Hostile aiter files exit 2 naming the file and the key.
  std::ofstream(dir + "/bad.json") << "{\"M_LEQ_24\": {\"BLOCK_SIZE_M\": 16}}";
  test::check_refused(std::string(TILEVOLVE_BINARY) + " import " + dir + "/bad.json",
                      "tilevolve: error: " + dir + "/bad.json:1: at /M_LEQ_24: not a key aiter's");
  std::ofstream(dir + "/gap.json") << "{\"M_LEQ_64\": {\"BLOCK_SIZE_M\": 16, \"BLOCK_SIZE_N\": 16,"
                                      " \"BLOCK_SIZE_K\": 16, \"GROUP_SIZE_M\": 1, \"num_warps\": "
                                      "4, \"num_stages\": 2, \"NUM_KSPLIT\": 8}}";
  test::check_refused(std::string(TILEVOLVE_BINARY) + " export " + dir + "/gap.json --format cpp",
                      "at /M_LEQ_64/NUM_KSPLIT: NUM_KSPLIT 8: split-K has no place");
  test::check_refused(std::string(TILEVOLVE_BINARY) + " import " + dir +
                          "/gap.json --drop-unknown-fields",
                      "no key serves M >= 65 (after M_LEQ_64)");
}

TEST_CASE("aiter cli: a run's Python and C++ exports define in_training_range, true on every "
          "training shape and false far outside, its summary counts the test shapes outside and "
          "its per-shape view marks them") {
  const std::string run = mi300x_run();
  const Problem& problem = test::lecture_problem("mi300x");
  const Program best = load_program_file(run + "/best_simplified.py");
  const TrainingRange range = problem_training_range(problem, best);
  const test::ScratchDir scratch("aiter_cli_range");
  const std::string& dir = scratch.path;
  std::vector<Shape> shapes;
  for (const std::size_t r : problem.train_rows)
    shapes.push_back(problem.shape(r));
  const std::vector<Shape> far{test::grid_shape(1 << 24, 4096, 4096),
                               test::grid_shape(1, 1 << 22, 4096),
                               test::grid_shape(64, 4096, 1 << 22)};
  {
    std::ofstream in(dir + "/shapes.txt");
    for (const Shape& s : shapes)
      in << s.M << ' ' << s.N << ' ' << s.K << '\n';
    for (const Shape& s : far)
      in << s.M << ' ' << s.N << ' ' << s.K << '\n';
  }
  const std::string want = std::string(shapes.size(), '1') + std::string(far.size(), '0') + "\n";
  std::ofstream(dir + "/range.py") << "import sys\nsys.path.insert(0, sys.argv[1])\n"
                                      "import best_heuristic as h\n"
                                      "assert h.TRAINING_SHAPES == 44\n"
                                      "print(''.join('1' if h.in_training_range(*map(int, "
                                      "r.split())) else '0' for r in sys.stdin))\n";
  const auto py =
      test::run_shell("cd " + dir + " && python3 -B range.py " + run + "/exports < shapes.txt");
  REQUIRE_MESSAGE(py.status == 0, py.out);
  CHECK(py.out == want);
  std::ofstream(dir + "/range.cpp")
      << "#include <cstdio>\n#include HEADER\n"
         "int main() {\n  long long M, N, K;\n"
         "  while (std::scanf(\"%lld %lld %lld\", &M, &N, &K) == 3)\n"
         "    std::printf(\"%d\", tilevolve_heuristic::in_training_range(M, N, K) ? 1 : 0);\n"
         "  std::printf(\"\\n\");\n}\n";
  const auto cc =
      test::run_shell("g++ -std=c++17 -Wall -Wextra -Werror -DHEADER='\"" + run +
                      "/exports/best.hpp\"' -o " + dir + "/range " + dir + "/range.cpp 2>&1");
  REQUIRE_MESSAGE(cc.status == 0, cc.out);
  const auto cpp = test::run_shell(dir + "/range < " + dir + "/shapes.txt");
  CHECK(cpp.out == want);
  CHECK(
      contains(test::read_text(run + "/exports/best_triton.py"), "def in_training_range(M, N, K)"));
  // The JSON export and the summary record the range; the summary counts the test shapes
  // outside, as many as the per-shape view marks.
  const auto json = nlohmann::json::parse(test::read_text(run + "/exports/best.json"));
  CHECK(json["produced_by"]["training_range"]["shapes"] == 44);
  const auto summary = nlohmann::json::parse(test::read_text(run + "/summary.json"));
  CHECK(summary["training_range"]["program_hash"] == program_hash_text(best));
  const TestCoverage c = test_coverage(problem, best, range);
  CHECK(summary["test_outside_training_range"]["outside"] == c.outside);
  CHECK(summary["test_outside_training_range"]["shapes"] == 44);
  CHECK(
      contains(test::read_text(run + "/summary.txt"),
               fmt::format("Training range: {} of the 44 test shapes lie outside it", c.outside)));
  std::size_t marked = 0;
  const auto per_shape = nlohmann::json::parse(test::read_text(run + "/per_shape.json"));
  for (const auto& row : per_shape["shapes"])
    marked += row["split"] == "test" && row["in_training_range"] == false;
  CHECK(marked == c.outside);
  // A vLLM export of the run records the range, and the M in range at its (N, K).
  const auto v = tilevolve("export " + run + " --format vllm --n 4096 --k 4096 -o " + dir);
  REQUIRE(v.status == 0);
  const std::string vprov =
      test::read_text(dir + "/N=4096,K=4096,device_name=AMD_Instinct_MI300X.provenance.txt");
  CHECK(contains(vprov, "Training range: 44 training shapes"));
  CHECK(contains(vprov, training_m_text(range, best, 4096, 4096)));
  // A program file exported without problem options says the range is not known.
  const auto plain = tilevolve("export " + run + "/best_simplified.py --format python");
  CHECK(contains(plain.out, "# Training range: not known"));
  CHECK(contains(plain.out, "TRAINING_SHAPES = 0"));
}

} // namespace aiter_export_cli_test
