// The vLLM/SGLang export and import: file names and layouts, exact key sets, the nearest-key
// round trip, the vendor region, and the lookup checked against Python running vLLM's expression.
#include "support/export_check.hpp"
#include "support/shell.hpp"

#include "ir/error.hpp"
#include "ir/exporters/m_segments.hpp"
#include "ir/exporters/nearest_key.hpp"
#include "ir/exporters/vllm_exporter.hpp"
#include "ir/exporters/vllm_importer.hpp"

#include <doctest/doctest.h>
#include <fstream>
#include <sstream>

// In a namespace of its own: the test files are compiled several to a unit (unity build).
namespace vllm_exporter_test {

using namespace tv;

namespace {

VllmExportOptions options(std::int64_t n, std::int64_t k,
                          std::string device = "AMD_Instinct_MI300X") {
  VllmExportOptions o;
  o.N = n;
  o.K = k;
  o.device = std::move(device);
  return o;
}

/// A program without vendor branches (the vLLM format cannot hold them).
Program tile_only(const Program& p) {
  Program q = p;
  Config fallback;
  for (auto& r : q.rules)
    if (r.config.vendor) r.config = fallback;
  if (q.default_config.vendor) q.default_config = fallback;
  return q;
}

/// Every M to check: 1 .. 20000 and the ends of every segment with their neighbours.
std::vector<std::int64_t> check_ms(const Program& p, std::int64_t N, std::int64_t K) {
  std::vector<std::int64_t> ms;
  for (std::int64_t m = 1; m <= 20000; ++m)
    ms.push_back(m);
  for (const auto& s : m_segments(p, N, K))
    for (std::int64_t d : {-1, 0, 1})
      for (std::int64_t m : {s.lo + d, s.hi + d})
        if (m >= 1 && m <= kDimMax) ms.push_back(m);
  ms.push_back(kDimMax);
  return ms;
}

} // namespace

TEST_CASE("m_segments: the runs of one decision along M match a brute-force walk") {
  Rng rng(41);
  for (int i = 0; i < 150; ++i) {
    const Program p = test::random_export_program(rng);
    for (const auto& [N, K] :
         {std::pair<std::int64_t, std::int64_t>{4096, 4096}, {5120, 64}, {7, 14336}}) {
      const std::int64_t m_max = 6000;
      const auto segs = m_segments(p, N, K, m_max);
      REQUIRE(!segs.empty());
      CHECK(segs.front().lo == 1);
      CHECK(segs.back().hi == m_max);
      std::size_t s = 0;
      for (std::int64_t m = 1; m <= m_max; ++m) {
        while (segs[s].hi < m)
          ++s;
        if (!(segs[s].config == p.choose(test::grid_shape(m, N, K)))) {
          FAIL_CHECK("M=" << m << " N=" << N << " K=" << K << "\n" << print_program(p));
          break;
        }
        if (m == segs[s].lo && s > 0) CHECK(!(segs[s - 1].config == segs[s].config));
      }
    }
  }
}

TEST_CASE("vllm export: file names, layouts and fields follow vLLM's and SGLang's conventions") {
  const Program p = parse_program_or_throw(
      "def choose(M, N, K):\n"
      "    if M <= 16:\n"
      "        return Config(BM=16, BN=64, BK=128, warps=4, stages=4, group=1)\n"
      "    return Config(BM=128, BN=128, BK=64, warps=8, stages=2, group=8, waves_per_eu=2, "
      "matrix_instr_nonkdim=16, kpack=2)\n",
      "p");
  VllmExportOptions moe = options(14336, 4096, "AMD Instinct MI300X");
  moe.E = 8;
  const VllmExport v = export_vllm(p, moe);
  CHECK(v.file_name == "E=8,N=14336,device_name=AMD_Instinct_MI300X.json");
  CHECK(v.folder.empty());
  const auto j = nlohmann::ordered_json::parse(v.json);
  CHECK(j.begin().key() == "triton_version");
  CHECK(j["1"] == nlohmann::ordered_json::parse(R"({"BLOCK_SIZE_M": 16, "BLOCK_SIZE_N": 64,
      "BLOCK_SIZE_K": 128, "GROUP_SIZE_M": 1, "num_warps": 4, "num_stages": 4})"));
  CHECK(j["4096"]["waves_per_eu"] == 2);
  CHECK(j["4096"]["kpack"] == 2);
  CHECK(j["16"]["BLOCK_SIZE_M"] == 16);
  CHECK(j["17"]["BLOCK_SIZE_M"] == 128); // the exact key set holds both ends of each range
  // Keys ascending, as vLLM's tuning script writes them.
  std::int64_t last = 0;
  for (auto it = std::next(j.begin()); it != j.end(); ++it) {
    CHECK(std::stoll(it.key()) > last);
    last = std::stoll(it.key());
  }
  for (const std::int64_t k : standard_m_keys())
    CHECK(j.contains(std::to_string(k)));
  CHECK(v.exact);

  VllmExportOptions dense = options(4096, 14336, "NVIDIA_H100_80GB_HBM3");
  dense.dtype = "fp8_w8a8";
  dense.block_shape = std::pair<int, int>(128, 128);
  dense.triton_version = "3.1.0";
  const VllmExport d = export_vllm(p, dense);
  CHECK(d.file_name == "N=4096,K=14336,device_name=NVIDIA_H100_80GB_HBM3,dtype=fp8_w8a8,"
                       "block_shape=[128,128].json");
  CHECK(nlohmann::json::parse(d.json)["triton_version"] == "3.1.0");

  VllmExportOptions sg = dense;
  sg.sglang_triton = "3.2.0";
  sg.E = 257;
  sg.file_N = 256;
  const VllmExport s = export_vllm(p, sg);
  CHECK(s.folder == "triton_3_2_0");
  CHECK(s.file_name == "E=257,N=256,device_name=NVIDIA_H100_80GB_HBM3,dtype=fp8_w8a8,"
                       "block_shape=[128, 128].json");
  // SGLang turns every key into an int: no triton_version there.
  CHECK(!nlohmann::json::parse(s.json).contains("triton_version"));

  CHECK(vllm_device_name("h100") == "NVIDIA_H100_80GB_HBM3");
  CHECK(vllm_device_name("mi300x") == "AMD_Instinct_MI300X");
  CHECK(!vllm_device_name("a100"));
  for (auto bad : {options(0, 1), options(1, 1, ""), options(1, 1, "a/b")})
    CHECK_THROWS_AS(export_vllm(p, bad), InputError);
  VllmExportOptions bad_version = moe;
  bad_version.sglang_triton = "3.x";
  CHECK_THROWS_AS(export_vllm(p, bad_version), InputError);
}

TEST_CASE("vllm export: the exact key set makes the nearest-key lookup give the program's "
          "decision for every M, through import") {
  std::vector<Program> programs{tile_only(test::mixed_export_program())};
  Rng rng(43);
  for (int i = 0; i < 25; ++i)
    programs.push_back(tile_only(test::random_export_program(rng)));
  for (const Program& p : programs)
    for (const auto& [N, K] :
         {std::pair<std::int64_t, std::int64_t>{8192, 8192}, {5120, 4097}, {128, 64}}) {
      const VllmExport e = export_vllm(p, options(N, K));
      CHECK(e.exact);
      const VllmImport imp = import_vllm_config(e.json, "exported.json");
      CHECK(imp.keys == e.keys);
      for (const std::int64_t m : check_ms(p, N, K)) {
        const Shape s = test::grid_shape(m, N, K);
        if (!(imp.program.choose(s) == p.choose(s))) {
          FAIL_CHECK("M=" << m << " N=" << N << " K=" << K << "\n" << print_program(p));
          break;
        }
      }
    }
}

TEST_CASE("vllm export and import: at chosen keys the imported program gives, at every M, the "
          "config of the nearest key") {
  Rng rng(47);
  const std::vector<std::int64_t> keys{1, 3, 16, 24, 64, 100, 256, 1000, 4096};
  for (int i = 0; i < 30; ++i) {
    const Program p = tile_only(test::random_export_program(rng));
    VllmExportOptions o = options(4096, 4096);
    o.m_keys = keys;
    const VllmExport e = export_vllm(p, o);
    CHECK(e.keys == keys);
    const VllmImport imp = import_vllm_config(e.json, "exported.json");
    bool all_nearest = true;
    for (std::int64_t m = 1; m <= 10000 && all_nearest; ++m) {
      // The nearest key by brute force; ties (M = 2, 20, 550, ...) to the smaller, earlier key.
      std::int64_t best = keys[0];
      for (const std::int64_t k : keys)
        if (std::llabs(k - m) < std::llabs(best - m)) best = k;
      all_nearest = imp.program.choose(test::grid_shape(m, 4096, 4096)) ==
                    p.choose(test::grid_shape(best, 4096, 4096));
      if (!all_nearest) FAIL_CHECK("M=" << m << " nearest key " << best);
    }
    CHECK(all_nearest);
    if (!e.exact)
      CHECK(e.notes.front().find("differs from the program for M in") != std::string::npos);
  }
}

TEST_CASE("vllm import: keys in any order, ties to the key earlier in the file, as Python's "
          "min() over json.load does") {
  // Keys out of order; M = 3 ties 2 and 4 (2 is earlier), M = 5 ties 4 and 6 (4 is earlier),
  // M = 7 ties 6 and 8 (8 is earlier in the file), M = 10 ties 8 and 12 (8 earlier).
  std::string text = "{\"triton_version\": \"3.1.0\",\n";
  const std::vector<std::pair<int, int>> entries{{8, 128}, {2, 16}, {12, 256}, {4, 32}, {6, 64}};
  for (std::size_t i = 0; i < entries.size(); ++i)
    text +=
        fmt::format("  \"{}\": {{\"BLOCK_SIZE_M\": {}, \"BLOCK_SIZE_N\": 64, \"BLOCK_SIZE_K\": 64, "
                    "\"GROUP_SIZE_M\": 1, \"num_warps\": 4, \"num_stages\": 2}}{}\n",
                    entries[i].first, entries[i].second, i + 1 < entries.size() ? "," : "");
  text += "}\n";
  const VllmImport imp = import_vllm_config(text, "ties.json");
  CHECK(imp.triton_version == "3.1.0");
  CHECK(imp.keys == std::vector<std::int64_t>{8, 2, 12, 4, 6});
  const test::ScratchDir scratch("vllm_ties_test");
  const std::string& dir = scratch.path;
  std::ofstream(dir + "/E=8,N=64,device_name=X.json") << text;
  // vLLM's loader and lookup, as in fused_moe.py (get_moe_configs, try_get_optimal_moe_config).
  std::ofstream(dir + "/lookup.py")
      << "import json, os\n"
         "with open(os.path.join('.', 'E=8,N=64,device_name=X.json')) as f:\n"
         "    tuned_config = json.load(f)\n"
         "tuned_config.pop('triton_version', None)\n"
         "configs = {int(key): val for key, val in tuned_config.items()}\n"
         "for M in range(-3, 40):\n"
         "    config = configs[min(configs.keys(), key=lambda x: abs(x - M))]\n"
         "    print(M, config['BLOCK_SIZE_M'])\n";
  const auto r = test::run_shell("cd " + dir + " && python3 lookup.py 2>&1");
  REQUIRE_MESSAGE(r.status == 0, r.out);
  std::istringstream out(r.out);
  std::int64_t m = 0;
  int bm = 0, lines = 0;
  while (out >> m >> bm) {
    ++lines;
    CHECK_MESSAGE(imp.program.choose(test::grid_shape(m, 64, 64)).BM == bm, "M=" << m);
  }
  CHECK(lines == 43);
  CHECK(imp.program.choose(test::grid_shape(3, 1, 1)).BM == 16);
  CHECK(imp.program.choose(test::grid_shape(5, 1, 1)).BM == 32);
  CHECK(imp.program.choose(test::grid_shape(7, 1, 1)).BM == 128);
  CHECK(imp.program.choose(test::grid_shape(10, 1, 1)).BM == 128);
  // The same, for the transcription used by the tests, over a wider range.
  for (std::int64_t x = -50; x <= 200; ++x)
    CHECK(imp.program.choose(test::grid_shape(x, 1, 1)).BM ==
          entries[std::size_t(
                      std::find_if(entries.begin(), entries.end(),
                                   [&](auto& e) { return e.first == nearest_key(imp.keys, x); }) -
                      entries.begin())]
              .second);
}

TEST_CASE("vllm import: neighbouring keys with one config share a rule, and bad files are "
          "refused with the line") {
  const std::string cfg =
      R"({"BLOCK_SIZE_M": 16, "BLOCK_SIZE_N": 64, "BLOCK_SIZE_K": 64, "GROUP_SIZE_M": 1, "num_warps": 4, "num_stages": 2})";
  const std::string other =
      R"({"BLOCK_SIZE_M": 64, "BLOCK_SIZE_N": 64, "BLOCK_SIZE_K": 64, "GROUP_SIZE_M": 8, "num_warps": 4, "num_stages": 3, "waves_per_eu": 0})";
  const VllmImport imp = import_vllm_config("{\"1\": " + cfg + ", \"2\": " + cfg +
                                                ", \"4\": " + cfg + ", \"8\": " + other + "}",
                                            "a.json");
  REQUIRE(imp.program.rules.size() == 1);
  CHECK(print_program(imp.program) ==
        "def choose(M, N, K):\n"
        "    if M <= 6:\n"
        "        return Config(BM=16, BN=64, BK=64, warps=4, stages=2, group=1)\n"
        "    return Config(BM=64, BN=64, BK=64, warps=4, stages=3, group=8, waves_per_eu=0)\n");
  const auto error = [](const std::string& text, VllmImportOptions o = {}) -> std::string {
    try {
      import_vllm_config(text, "c.json", o);
    } catch (const InputError& e) {
      return e.what();
    }
    return "";
  };
  CHECK(error("{\n\"1\": " + cfg + ",\n\"01\": " + cfg + "}")
            .find("c.json:3: at /01: expected an M value") == 0);
  CHECK(error("{\"+1\": " + cfg + "}").find("expected an M value") != std::string::npos);
  CHECK(error("{\"1\": " + cfg + ",\n \"1\": " + cfg + "}") ==
        "c.json:2: key \"1\" appears twice in one object");
  CHECK(error("{}") == "c.json:1: no M keys: nothing to import");
  CHECK(error("{\"triton_version\": \"3.1.0\"}") == "c.json:1: no M keys: nothing to import");
  CHECK(error("{\"1\": {\"BLOCK_SIZE_M\": 16}}").find("c.json:1: at /1: missing BLOCK_SIZE_N") ==
        0);
  CHECK(error("{\"1\": {\"BLOCK_SIZE_M\": 16.0}}")
            .find("at /1/BLOCK_SIZE_M: BLOCK_SIZE_M must be an integer") != std::string::npos);
  const std::string split_k =
      "{\"1\": {\"BLOCK_SIZE_M\": 16, \"BLOCK_SIZE_N\": 64, \"BLOCK_SIZE_K\": "
      "64, \"GROUP_SIZE_M\": 1, \"num_warps\": 4, \"num_stages\": 2, "
      "\"SPLIT_K\": 1}}";
  CHECK(error(split_k).find("at /1/SPLIT_K: a field tilevolve's config cannot hold") !=
        std::string::npos);
  VllmImportOptions drop;
  drop.drop_unknown_fields = true;
  CHECK(error(split_k, drop) == "");
  CHECK(import_vllm_config(split_k, "c.json", drop).dropped_fields ==
        std::vector<std::string>{"SPLIT_K"});
}

TEST_CASE("vllm export: a vendor decision at a key is refused with the keys named, or written as "
          "the fallback and stated") {
  const Program p =
      parse_program_or_throw("def choose(M, N, K):\n"
                             "    if M >= 1000:\n"
                             "        return \"vendor\"\n"
                             "    return Config(BM=64, BN=64, BK=64, warps=4, stages=3, group=8)\n",
                             "v");
  VllmExportOptions o = options(4096, 4096);
  o.m_keys = {1, 512, 1024, 4096};
  try {
    export_vllm(p, o);
    FAIL("a vendor decision must be refused");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()).find("for the M keys 1024, 4096;") != std::string::npos);
    CHECK(std::string(e.what()).find("--vendor-fallback") != std::string::npos);
  }
  o.vendor_fallback = parse_config("Config(BM=128, BN=128, BK=64, warps=4, stages=3, group=8)");
  const VllmExport e = export_vllm(p, o);
  const auto j = nlohmann::json::parse(e.json);
  CHECK(j["1024"]["BLOCK_SIZE_M"] == 128);
  CHECK(j["512"]["BLOCK_SIZE_M"] == 64);
  CHECK(!e.exact);
  bool stated = false;
  for (const auto& n : e.notes)
    stated = stated || n.find("calls the vendor library for M in 1000..; the format cannot say so, "
                              "so 128x128x64 w4 s3 g8 is written there") != std::string::npos;
  CHECK(stated);
  // With the exact key set the only difference is the vendor region.
  o.m_keys.clear();
  const VllmExport x = export_vllm(p, o);
  CHECK(x.notes.front().find("returns the program's decision for every M >= 1 where it returns a "
                             "tile config") != std::string::npos);
}

} // namespace vllm_exporter_test
