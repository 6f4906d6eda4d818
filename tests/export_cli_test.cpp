// End-to-end tests of `tilevolve export` and `tilevolve import` and of the exports an evolve
// run directory holds: the real binary, real files, g++ and python3.
#include "support/export_check.hpp"
#include "support/shell.hpp"

#include "ir/exporters/export_info.hpp"
#include "ir/text.hpp"
#include "models/data_dir.hpp"

#include <doctest/doctest.h>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

// In a namespace of its own: the test files are compiled several to a unit (unity build).
namespace export_cli_test {

using namespace tv;

namespace {

test::ShellResult tilevolve(const std::string& args, bool merge_stderr = true) {
  return test::run_shell(std::string(TILEVOLVE_BINARY) + " " + args +
                         (merge_stderr ? " 2>&1" : " 2>/dev/null"));
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

/// Runs `driver_cmd` on the grid of `p` and checks each line against the IR.
void check_driver(const Program& p, const std::string& dir, const std::string& driver_cmd) {
  const std::vector<Program> ps{p};
  const auto grid = test::export_grid(ps);
  {
    std::ofstream in(dir + "/grid.txt");
    for (const Shape& s : grid)
      in << s.M << ' ' << s.N << ' ' << s.K << '\n';
  }
  const auto r = test::run_shell("cd " + dir + " && " + driver_cmd + " < grid.txt 2>&1");
  REQUIRE_MESSAGE(r.status == 0, r.out.substr(0, 2000));
  std::istringstream out(r.out);
  std::size_t wrong = 0;
  for (const Shape& s : grid) {
    std::string line;
    REQUIRE(std::getline(out, line));
    if (line != test::expected_line(ps, s) && ++wrong <= 3)
      FAIL_CHECK(s.M << "x" << s.N << "x" << s.K << ": " << line);
  }
  CHECK(wrong == 0);
}

const char* kPythonDriver =
    "import sys\nsys.path.insert(0, sys.argv[1])\nimport importlib\n"
    "mod = importlib.import_module(sys.argv[2])\n"
    "KEYS = ('BLOCK_SIZE_M', 'BLOCK_SIZE_N', 'BLOCK_SIZE_K', 'GROUP_SIZE_M', 'num_warps',\n"
    "        'num_stages', 'waves_per_eu', 'matrix_instr_nonkdim', 'kpack')\n"
    "for row in sys.stdin:\n"
    "    M, N, K = map(int, row.split())\n"
    "    c = mod.choose(M, N, K)\n"
    "    print('v' if c is None else ' '.join(str(c.get(k, -1)) for k in KEYS))\n";

const char* kCppDriver =
    "#include <cstdio>\n#include HEADER\n"
    "int main() {\n  long long M, N, K;\n"
    "  while (std::scanf(\"%lld %lld %lld\", &M, &N, &K) == 3) {\n"
    "    const auto c = tilevolve_heuristic::choose(M, N, K);\n"
    "    if (c.vendor) std::printf(\"v\\n\");\n"
    "    else std::printf(\"%d %d %d %d %d %d %d %d %d\\n\", c.block_m, c.block_n, c.block_k,\n"
    "                     c.group_m, c.num_warps, c.num_stages, c.waves_per_eu,\n"
    "                     c.matrix_instr_nonkdim, c.kpack);\n  }\n}\n";

/// One short evolve run with a run directory, shared by the tests below.
const std::string& short_run() {
  static const std::string dir = [] {
    static const test::ScratchDir scratch("export_cli_run");
    const std::string d = scratch.path + "/run";
    const auto r = tilevolve("evolve --budget 300 --seed 1 --quiet --out " + d);
    REQUIRE_MESSAGE(r.status == 0, r.out);
    return d;
  }();
  return dir;
}

} // namespace

TEST_CASE("export cli: an evolve run directory holds the exports of its best program, and they "
          "decide as the IR does") {
  const std::string run = short_run();
  const Program best = load_program_file(run + "/best_simplified.py");
  for (const char* f : {"best.hpp", "best_heuristic.py", "best_triton.py", "best.json"}) {
    const std::string text = test::read_text(run + "/exports/" + f);
    INFO(f);
    CHECK(contains(text, program_hash_text(best)));
    CHECK(contains(text, "mi300x (AMD Instinct MI300X 192GB)"));
    CHECK(contains(text, "analytic"));
  }
  const std::string hpp = test::read_text(run + "/exports/best.hpp");
  CHECK(contains(hpp, "(tilevolve evolve) from run directory " + run));
  CHECK(contains(hpp, "// Scores: train "));
  CHECK(contains(hpp, "% of the per-shape oracle"));
  // The evolved best, compiled with the system compiler and run on a dense grid.
  const test::ScratchDir scratch("export_cli_best");
  const std::string& dir = scratch.path;
  std::ofstream(dir + "/driver.cpp") << kCppDriver;
  const auto cc =
      test::run_shell("g++ -std=c++17 -Wall -Wextra -Werror -DHEADER='\"" + run +
                      "/exports/best.hpp\"' -o " + dir + "/driver " + dir + "/driver.cpp 2>&1");
  REQUIRE_MESSAGE(cc.status == 0, cc.out);
  check_driver(best, dir, "./driver");
  std::ofstream(dir + "/driver.py") << kPythonDriver;
  check_driver(best, dir, "python3 -B driver.py " + run + "/exports best_heuristic");
  // The JSON export re-imports to the same program.
  const auto imp = tilevolve("import " + run + "/exports/best.json -o " + dir + "/back.py");
  REQUIRE_MESSAGE(imp.status == 0, imp.out);
  CHECK(load_program_file(dir + "/back.py") == best);
}

TEST_CASE("export cli: a run directory exports to vLLM, the file imports back, and evolution "
          "starts from the import") {
  const std::string run = short_run();
  const test::ScratchDir scratch("export_cli_vllm");
  const std::string& dir = scratch.path;
  const auto e = tilevolve("export " + run + " --format vllm --n 4096 --k 4096 -o " + dir + "/cfg");
  REQUIRE_MESSAGE(e.status == 0, e.out);
  const std::string file = dir + "/cfg/N=4096,K=4096,device_name=AMD_Instinct_MI300X.json";
  CHECK(contains(e.out, "wrote " + file));
  CHECK(contains(e.out, "returns the program's decision for every M >= 1"));
  const auto j = nlohmann::ordered_json::parse(test::read_text(file));
  CHECK(j.begin().key() == "triton_version");
  const std::string prov =
      test::read_text(dir + "/cfg/N=4096,K=4096,device_name=AMD_Instinct_MI300X.provenance.txt");
  const Program best = load_program_file(run + "/best_simplified.py");
  CHECK(contains(prov, "Program hash " + program_hash_text(best)));
  CHECK(contains(prov, "Scores: train "));

  const auto imp = tilevolve("import '" + file + "' -o " + dir + "/imported.py");
  REQUIRE_MESSAGE(imp.status == 0, imp.out);
  const Program imported = load_program_file(dir + "/imported.py");
  for (std::int64_t m = 1; m <= 9000; ++m) {
    const Shape s = test::grid_shape(m, 4096, 4096);
    if (!(imported.choose(s) == best.choose(s))) {
      FAIL_CHECK("M=" << m);
      break;
    }
  }
  const std::string text = test::read_text(dir + "/imported.py");
  CHECK(contains(text, "# Imported by tilevolve import from " + file));
  CHECK(contains(text, "key earlier in the file"));
  // Evolution starts from the imported program, and score takes it too.
  const auto evo =
      tilevolve("evolve --expert " + dir + "/imported.py --budget 100 --quiet --json", false);
  REQUIRE_MESSAGE(evo.status == 0, evo.out);
  CHECK(nlohmann::json::parse(evo.out)["problem"]["expert_file"] == dir + "/imported.py");
  CHECK(tilevolve("score " + dir + "/imported.py", false).status == 0);
  // export reads a vLLM file directly, too.
  const auto cpp = tilevolve("export '" + file + "' --format cpp");
  REQUIRE(cpp.status == 0);
  CHECK(contains(cpp.out, "from vLLM/SGLang config " + file + " (imported by tilevolve)"));
}

TEST_CASE("export cli: a program file states scores only when problem options are given, and "
          "bad requests exit 2 with the reason") {
  const test::ScratchDir scratch("export_cli_file");
  const std::string& dir = scratch.path;
  std::ofstream(dir + "/p.py") << "def choose(M, N, K):\n"
                                  "    if M <= 16:\n"
                                  "        return Config(BM=16, BN=64, BK=128, warps=4, stages=4, "
                                  "group=1)\n"
                                  "    if M * N >= 268435456:\n"
                                  "        return \"vendor\"\n"
                                  "    return Config(BM=128, BN=128, BK=64, warps=4, stages=3, "
                                  "group=8)\n";
  const auto plain = tilevolve("export " + dir + "/p.py --format python");
  REQUIRE(plain.status == 0);
  CHECK(contains(plain.out, "# GPU: not known; timing backend: not known."));
  CHECK(contains(plain.out, "# Scores: not known."));
  CHECK(contains(plain.out, "# Scores not computed: give the problem options"));
  const std::string tile_only = dir + "/t.py";
  std::ofstream(tile_only) << "def choose(M, N, K):\n"
                              "    if M <= 16:\n"
                              "        return Config(BM=16, BN=64, BK=128, warps=4, stages=4, "
                              "group=1)\n"
                              "    return Config(BM=128, BN=128, BK=64, warps=4, stages=3, "
                              "group=8)\n";
  const auto scored = tilevolve("export " + tile_only + " --format json --gpu h100");
  REQUIRE_MESSAGE(scored.status == 0, scored.out);
  const auto j = nlohmann::json::parse(scored.out);
  CHECK(j["produced_by"]["gpu"] == "h100 (NVIDIA H100 SXM5 80GB)");
  CHECK(j["produced_by"]["backend"] == "analytic (h100)");
  CHECK(j["produced_by"]["scores"]["train"]["shapes"] == 44);
  // The expert itself: speedup 1 on both halves.
  CHECK(j["produced_by"]["scores"]["test"]["speedup_vs_expert"].get<double>() ==
        doctest::Approx(1.0));
  // Without a GPU the device name of a vLLM file is not known.
  const auto unknown =
      tilevolve("export " + tile_only + " --format vllm --n 64 --k 64 -o " + dir + "/x");
  CHECK(unknown.status == 2);
  CHECK(contains(unknown.out, "the device name is not known: give --device NAME"));
  const auto h100 =
      tilevolve("export " + tile_only + " --format vllm --n 64 --k 64 --gpu h100 -o " + dir + "/h");
  CHECK(contains(h100.out, "N=64,K=64,device_name=NVIDIA_H100_80GB_HBM3.json"));
  // The vendor branch has no place in a vLLM file.
  const std::string vllm =
      " --format vllm --n 16384 --k 4096 --device 'AMD Instinct MI300X' -o " + dir;
  const auto refused = tilevolve("export " + dir + "/p.py" + vllm);
  CHECK(refused.status == 2);
  CHECK(contains(refused.out, "tilevolve: error: vllm export: the program calls the vendor "
                              "library (returns \"vendor\") at N=16384, K=4096 for the M keys "
                              "16384;"));
  const auto fallback = tilevolve("export " + dir + "/p.py" + vllm +
                                  " --vendor-fallback 'Config(BM=256, BN=128, BK=64, warps=8, "
                                  "stages=3, group=8)'");
  REQUIRE_MESSAGE(fallback.status == 0, fallback.out);
  CHECK(contains(fallback.out, "256x128x64 w8 s3 g8 is written there"));
  CHECK(contains(
      test::read_text(dir + "/N=16384,K=4096,device_name=AMD_Instinct_MI300X.provenance.txt"),
      "Vendor region written as 256x128x64 w8 s3 g8"));
  CHECK(tilevolve("export " + tile_only + " --format cpp --n 5").status == 2);
  CHECK(contains(tilevolve("export " + tile_only + " --format vllm").out,
                 "--format vllm needs --n N and --k K"));
  CHECK(contains(tilevolve("export " + tile_only + " --format cpp --namespace 9x").out,
                 "C++ namespace '9x'"));
  CHECK(tilevolve("export " + dir + " --format cpp").status == 2); // not a run directory
  std::ofstream(dir + "/bad.json") << "{\"1\": {\"BLOCK_SIZE_M\": 16}}";
  const auto bad = tilevolve("import " + dir + "/bad.json");
  CHECK(bad.status == 2);
  CHECK(contains(bad.out, "tilevolve: error: " + dir + "/bad.json:1: at /1: missing BLOCK_SIZE_N"));
}

TEST_CASE("export cli: the README walk-through, from a hipBLASLt log to a file in vLLM's config "
          "folder") {
  const test::ScratchDir scratch("export_cli_readme");
  const std::string& dir = scratch.path;
  // 1. The log (a capture with HIPBLASLT_LOG_MASK=64), evolved on all of its GEMMs.
  const auto evo =
      tilevolve("evolve --workload-log " + data_path("workloads/llama3_8b_vllm_mi300x.yaml") +
                " --gpu mi300x --split none --budget 300 --quiet --out " + dir + "/runs/llama8b");
  REQUIRE_MESSAGE(evo.status == 0, evo.out);
  // 2. Export for a C++ kernel library and for Python.
  REQUIRE(
      tilevolve("export " + dir + "/runs/llama8b --format cpp -o " + dir + "/tiling.hpp").status ==
      0);
  REQUIRE(tilevolve("export " + dir + "/runs/llama8b --format python -o " + dir + "/tiling.py")
              .status == 0);
  CHECK(contains(test::read_text(dir + "/tiling.hpp"), "constexpr TileConfig choose("));
  CHECK(contains(test::read_text(dir + "/tiling.py"), "def choose(M, N, K):"));
  // 3. vLLM reads per-M files for its fused MoE kernel: evolve on Mixtral's GEMMs, export its
  //    gate_up GEMM under vLLM's name for E=8 experts and w2.shape[2] = 14336.
  const auto moe = tilevolve("evolve --preset mixtral-8x7b --gpu mi300x --split none --budget 300 "
                             "--quiet --out " +
                             dir + "/runs/mixtral");
  REQUIRE_MESSAGE(moe.status == 0, moe.out);
  const auto ex = tilevolve("export " + dir +
                            "/runs/mixtral --format vllm --e 8 --n 28672 --k 4096 "
                            "--file-n 14336 -o " +
                            dir + "/vllm_configs");
  REQUIRE_MESSAGE(ex.status == 0, ex.out);
  CHECK(contains(ex.out, "E=8,N=14336,device_name=AMD_Instinct_MI300X.json"));
  REQUIRE(tilevolve("export " + dir + "/runs/mixtral --format python -o " + dir + "/mixtral.py")
              .status == 0);
  // 4. "Drop it into vLLM's config folder": vLLM's loader, as fused_moe.py does it, finds the
  //    file through VLLM_TUNED_CONFIG_FOLDER and its lookup gives the heuristic's decision.
  std::ofstream(dir + "/vllm_loader.py")
      << "import json, os, sys\n"
         "sys.path.insert(0, sys.argv[1])\nimport mixtral\n"
         "def get_config_file_name(E, N, device_name):\n"
         "    return f\"E={E},N={N},device_name={device_name.replace(' ', '_')}.json\"\n"
         "path = os.path.join(os.environ['VLLM_TUNED_CONFIG_FOLDER'],\n"
         "                    get_config_file_name(8, 14336, 'AMD Instinct MI300X'))\n"
         "with open(path) as f:\n"
         "    tuned_config = json.load(f)\n"
         "tuned_config.pop('triton_version', None)\n"
         "configs = {int(key): val for key, val in tuned_config.items()}\n"
         "bad = 0\n"
         "for M in range(1, 9000):\n"
         "    config = configs[min(configs.keys(), key=lambda x: abs(x - M))]\n"
         "    bad += config != mixtral.choose(M, 28672, 4096)\n"
         "print('mismatches', bad)\n";
  const auto load = test::run_shell("cd " + dir + " && VLLM_TUNED_CONFIG_FOLDER=" + dir +
                                    "/vllm_configs python3 -B vllm_loader.py " + dir + " 2>&1");
  REQUIRE_MESSAGE(load.status == 0, load.out);
  CHECK(load.out == "mismatches 0\n");
}

TEST_CASE("export cli: evolve --export-vllm writes the best program's vLLM files into the run "
          "directory") {
  const test::ScratchDir scratch("export_cli_evolve_vllm");
  const std::string run = scratch.path + "/run";
  const auto r = tilevolve("evolve --gpu h100 --budget 200 --quiet --out " + run +
                           " --export-vllm 4096,4096 --export-vllm 28672,4096,8");
  REQUIRE_MESSAGE(r.status == 0, r.out);
  const Program best = load_program_file(run + "/best_simplified.py");
  for (const char* name : {"N=4096,K=4096,device_name=NVIDIA_H100_80GB_HBM3",
                           "E=8,N=28672,device_name=NVIDIA_H100_80GB_HBM3"}) {
    INFO(name);
    const std::string json = test::read_text(run + "/exports/vllm/" + name + ".json");
    REQUIRE(!json.empty());
    const std::string prov = test::read_text(run + "/exports/vllm/" + name + ".provenance.txt");
    CHECK(contains(prov, "Program hash " + program_hash_text(best)));
    CHECK(contains(prov, "tilevolve evolve --export-vllm"));
    CHECK(contains(prov, "returns the program's decision for every M >= 1"));
    CHECK(contains(prov, "Training range: 44 training shapes"));
    CHECK(contains(prov, "At N=4096, K=4096 ") == (name[0] == 'N'));
  }
  CHECK(contains(tilevolve("evolve --budget 10 --export-vllm 64,64").out,
                 "--export-vllm needs --out DIR"));
  CHECK(contains(tilevolve("evolve --budget 10 --out " + scratch.path + "/b --export-vllm 64").out,
                 "--export-vllm '64': expected N,K or N,K,E"));
}

} // namespace export_cli_test
