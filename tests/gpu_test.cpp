#include "models/gpu.hpp"

#include "ir/error.hpp"
#include "ir/rng.hpp"
#include "models/data_dir.hpp"
#include "support/temp_dir.hpp"

#include <doctest/doctest.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <unordered_set>

// In a namespace of its own: the test files are compiled several to a unit (unity build).
namespace gpu_test {

using namespace tv;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

const std::vector<std::string> kProfiles = {"a100", "h100", "h200", "mi300x", "mi325x", "mi355x"};

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream buf;
  buf << in.rdbuf();
  return buf.str();
}

using tv::test::ScratchDir;

json profile_json(const std::string& name) {
  return json::parse(read_text(data_path("gpus/" + name + ".json")));
}

/// Loads `text` from a temp file and returns the InputError message ("" when it loaded).
std::string load_error(const ScratchDir& dir, const std::string& text) {
  std::string path = dir.write("bad.json", text);
  try {
    load_gpu_file(path);
  } catch (const InputError& e) {
    std::string msg = e.what();
    CHECK(msg.rfind(path, 0) == 0); // every message starts with the file name
    return msg;
  }
  return "";
}

/// The error for a copy of profile `base` edited by `edit`.
std::string edit_error(const ScratchDir& dir, const std::string& base,
                       const std::function<void(json&)>& edit) {
  json j = profile_json(base);
  edit(j);
  return load_error(dir, j.dump(2));
}

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

} // namespace

TEST_CASE("gpu: all six profiles load with sane values") {
  for (const auto& name : kProfiles) {
    CAPTURE(name);
    Gpu g = find_gpu(name);
    CHECK(g.name == name);
    CHECK(!g.full_name.empty());
    CHECK((g.vendor == "nvidia" || g.vendor == "amd"));
    CHECK(g.warp_size == (g.vendor == "amd" ? 64 : 32));
    CHECK(g.units >= 100);
    CHECK(g.units <= 400);
    CHECK(g.max_threads_per_block == 1024);
    CHECK(g.shared_per_block <= g.shared_per_unit);
    CHECK(g.l2_bytes >= 32.0 * 1024 * 1024);
    // Rates are converted to FLOP/s and B/s.
    CHECK(g.peak(DType::bf16) > 3e14);
    CHECK(g.peak(DType::bf16) < 5e15);
    CHECK(g.peak(DType::f16) == g.peak(DType::bf16));
    // FP8 tensor cores run at twice the bf16 rate; a part without them (A100) lists none.
    if (g.peak_flops.count("fp8"))
      CHECK(g.peak(DType::fp8) == doctest::Approx(2 * g.peak(DType::bf16)).epsilon(0.001));
    else
      CHECK(g.name == "a100");
    CHECK(g.peak(DType::f32) < g.peak(DType::bf16));
    CHECK(g.hbm_bytes_per_s > 2e12);
    CHECK(g.hbm_bytes_per_s < 1e13);
    CHECK(g.l2_bytes_per_s > g.hbm_bytes_per_s);
    CHECK(g.clock_hz > 1.4e9);
    CHECK(g.clock_hz < 3e9);
    CHECK(g.mem_latency_s > 1e-7);
    CHECK(g.mem_latency_s < 2e-6);
    CHECK(g.launch_overhead_s > 1e-7);
    CHECK(g.launch_overhead_s < 2e-5);
    // The ridge point (FLOP per HBM byte) of these parts lies in the hundreds.
    double ridge = g.peak(DType::bf16) / g.hbm_bytes_per_s;
    CHECK(ridge > 100);
    CHECK(ridge < 600);
    bool amd = g.vendor == "amd";
    CHECK(g.space.waves_per_eu.empty() == !amd);
    CHECK(g.space.matrix_instr_nonkdim.empty() == !amd);
    CHECK(g.space.kpack.empty() == !amd);
    CHECK((amd ? g.infinity_cache_bytes > 0 : g.infinity_cache_bytes == 0));
  }
}

TEST_CASE("gpu: published facts of each profile") {
  Gpu h100 = find_gpu("h100"), h200 = find_gpu("h200");
  Gpu mi300x = find_gpu("mi300x"), mi325x = find_gpu("mi325x"), mi355x = find_gpu("mi355x");

  CHECK(h100.units == 132);
  CHECK(h200.units == 132);
  CHECK(h100.peak(DType::bf16) == doctest::Approx(989.4e12));
  CHECK(h100.peak(DType::f32) == doctest::Approx(494.7e12)); // TF32 tensor rate
  CHECK(h200.peak(DType::bf16) == h100.peak(DType::bf16));   // same die
  CHECK(h100.hbm_bytes_per_s == doctest::Approx(3.35e12));
  CHECK(h200.hbm_bytes_per_s == doctest::Approx(4.8e12));
  CHECK(h200.hbm_bytes_per_s > h100.hbm_bytes_per_s);
  CHECK(h100.shared_per_unit == 228 * 1024);
  CHECK(h100.shared_per_block == 227 * 1024);
  CHECK(h100.l2_bytes == 50.0 * 1024 * 1024);
  CHECK(h100.registers_per_unit == 65536);
  CHECK(h100.max_registers_per_thread == 255);
  CHECK(h100.clock_hz == doctest::Approx(1.98e9));
  CHECK(h100.mem_latency_s == doctest::Approx(600e-9));
  CHECK(h100.launch_overhead_s == doctest::Approx(2.5e-6));

  CHECK(mi300x.units == 304);
  CHECK(mi325x.units == 304);
  CHECK(mi355x.units == 256);
  CHECK(mi300x.shared_per_unit == 64 * 1024);
  CHECK(mi325x.shared_per_unit == 64 * 1024);
  CHECK(mi355x.shared_per_unit == 160 * 1024);
  CHECK(mi300x.hbm_bytes_per_s == doctest::Approx(5.3e12));
  CHECK(mi325x.hbm_bytes_per_s == doctest::Approx(6.0e12));
  CHECK(mi355x.hbm_bytes_per_s == doctest::Approx(8.0e12));
  CHECK(mi300x.peak(DType::bf16) == doctest::Approx(1307.4e12));
  CHECK(mi355x.peak(DType::bf16) == doctest::Approx(2516.6e12));
  CHECK(mi355x.peak(DType::fp8) == doctest::Approx(5033.2e12));
  CHECK(mi300x.l2_bytes == 32.0 * 1024 * 1024);
  CHECK(mi300x.infinity_cache_bytes == 256.0 * 1024 * 1024);
  for (const Gpu* g : {&mi300x, &mi325x, &mi355x}) {
    CHECK(g->registers_per_unit == 131072);
    CHECK(g->max_registers_per_thread == 512);
    CHECK(g->max_threads_per_unit == 2048);
    CHECK(g->space.waves_per_eu == std::vector<int>{0, 1, 2});
    CHECK(g->space.matrix_instr_nonkdim == std::vector<int>{16, 32});
    CHECK(g->space.stages == std::vector<int>{1, 2, 3});
  }
  CHECK(mi300x.space.kpack == std::vector<int>{1, 2});
  CHECK(mi355x.space.kpack == std::vector<int>{1}); // kpack is deprecated on gfx950
  CHECK(h100.space.stages == std::vector<int>{1, 2, 3, 4, 5});
}

TEST_CASE("gpu: published facts of the a100 profile (the AutoHeuristic A100 tables' device)") {
  Gpu a100 = find_gpu("a100");
  CHECK(a100.vendor == "nvidia");
  CHECK(a100.units == 108);
  CHECK(a100.peak(DType::bf16) == doctest::Approx(312e12));
  CHECK(a100.peak(DType::f16) == doctest::Approx(312e12));
  CHECK(a100.peak(DType::f32) == doctest::Approx(156e12)); // TF32 tensor rate
  CHECK(a100.peak_flops.count("fp8") == 0);                // no FP8 tensor cores on Ampere
  CHECK(a100.hbm_bytes_per_s == doctest::Approx(2.039e12));
  CHECK(a100.shared_per_unit == 164 * 1024);
  CHECK(a100.shared_per_block == 166912); // 163 KiB, as the A100 files' JSON line records
  CHECK(a100.l2_bytes == 40.0 * 1024 * 1024);
  CHECK(a100.registers_per_unit == 65536);
  CHECK(a100.max_registers_per_thread == 255);
  CHECK(a100.max_threads_per_unit == 2048);
  CHECK(a100.max_blocks_per_unit == 32);
  CHECK(a100.clock_hz == doctest::Approx(1.41e9));
  CHECK(a100.space.stages == find_gpu("h100").space.stages);
  CHECK(a100.buffers_below_stages == 1); // stages-1 tiles in shared memory (see launch_test)
  CHECK(find_gpu("h100").buffers_below_stages == 0);
  CHECK(find_gpu("mi300x").buffers_below_stages == 1); // AMD's default
}

TEST_CASE("gpu: peak falls back to bf16 for unlisted dtypes") {
  Gpu g;
  CHECK(g.peak(DType::fp8) == 0.0);
  g.peak_flops["bf16"] = 7e14;
  CHECK(g.peak(DType::fp8) == 7e14);
  CHECK(g.peak(DType::f32) == 7e14);
  g.peak_flops["fp8"] = 14e14;
  CHECK(g.peak(DType::fp8) == 14e14);
  CHECK(g.peak(DType::bf16) == 7e14);
}

TEST_CASE("gpu: known_gpus lists the data directory sorted") {
  std::vector<std::string> known = known_gpus();
  CHECK(std::is_sorted(known.begin(), known.end()));
  for (const auto& name : kProfiles)
    CHECK(std::find(known.begin(), known.end(), name) != known.end());
  CHECK(std::find(known.begin(), known.end(), "README") == known.end());
}

TEST_CASE("gpu: find_gpu by name, by path and case-insensitively") {
  CHECK(find_gpu("H100").name == "h100");
  CHECK(find_gpu("MI355X").name == "mi355x");
  CHECK(find_gpu(data_path("gpus/mi300x.json")).name == "mi300x");

  ScratchDir dir("tv_gpu_test");
  json j = profile_json("h100");
  j["name"] = "custom";
  j["units"] = 100;
  j["config_space"].erase("kpack"); // a missing AMD knob is an empty one
  Gpu g = find_gpu(dir.write("custom.json", j.dump()));
  CHECK(g.name == "custom");
  CHECK(g.units == 100);
  CHECK(g.space.kpack.empty());
}

TEST_CASE("gpu: find_gpu of an unknown name lists the known ones, and the near ones first") {
  std::vector<std::string> known = known_gpus();
  std::string expected = fmt::format("unknown GPU 'x9000'; known: {}", fmt::join(known, ", "));
  CHECK_THROWS_WITH_AS(find_gpu("x9000"), expected.c_str(), InputError);
  CHECK(contains(expected, "h100, h200, mi300x, mi325x, mi355x"));
  // A typo of one or more known names names them (each one edit away here).
  expected = fmt::format("unknown GPU 'h300' (did you mean h100 or h200?); known: {}",
                         fmt::join(known, ", "));
  CHECK_THROWS_WITH_AS(find_gpu("h300"), expected.c_str(), InputError);
  CHECK_THROWS_WITH_AS(find_gpu("b200"), doctest::Contains("(did you mean h200?)"), InputError);
  CHECK_THROWS_WITH_AS(find_gpu("MI300"), doctest::Contains("(did you mean mi300x?)"), InputError);
  // Names never reach outside the data directory.
  CHECK_THROWS_AS(find_gpu("../gpus/h100"), InputError);
  CHECK_THROWS_AS(find_gpu(""), InputError);
  // A missing path is an InputError too.
  CHECK_THROWS_WITH_AS(find_gpu("/nonexistent/dir/x.json"),
                       "/nonexistent/dir/x.json: cannot open GPU profile", InputError);
}

TEST_CASE("gpu: loader reports missing fields and wrong types") {
  ScratchDir dir("tv_gpu_test");
  auto err = [&](const std::function<void(json&)>& edit) { return edit_error(dir, "h100", edit); };

  CHECK(err([](json&) {}) == ""); // the unedited profile loads

  std::string e = err([](json& j) { j.erase("units"); });
  CHECK(contains(e, ": field 'units': missing (expected a positive integer)"));
  for (json bad : {json("132"), json(0), json(-3), json(1.5), json(132.0), json(true),
                   json(nullptr), json::array({132})}) {
    CAPTURE(bad.dump());
    e = err([&](json& j) { j["units"] = bad; });
    CHECK(contains(e, ": field 'units': expected a positive integer"));
  }
  e = err([](json& j) { j["units"] = 3000000000ULL; });
  CHECK(contains(e, "field 'units': expected a positive integer (at most 1048576)"));

  for (json bad : {json(0), json(-1.5), json("fast"), json(false)}) {
    CAPTURE(bad.dump());
    e = err([&](json& j) { j["hbm_gbps"] = bad; });
    CHECK(contains(e, ": field 'hbm_gbps': expected a positive number"));
  }
  for (const char* key :
       {"l2_gbps", "clock_mhz", "mem_latency_ns", "launch_overhead_us", "l2_bytes"}) {
    CAPTURE(key);
    e = err([&](json& j) { j.erase(key); });
    CHECK(contains(e, fmt::format("field '{}': missing (expected a positive number)", key)));
    e = err([&](json& j) { j[key] = -2; });
    CHECK(contains(e, fmt::format("field '{}': expected a positive number", key)));
  }
  for (const char* key : {"max_threads_per_block", "max_threads_per_unit", "max_blocks_per_unit",
                          "registers_per_unit", "max_registers_per_thread", "shared_per_unit_bytes",
                          "shared_per_block_bytes", "warp_size"}) {
    CAPTURE(key);
    e = err([&](json& j) { j[key] = "many"; });
    CHECK(contains(e, fmt::format("field '{}': expected a positive integer", key)));
  }
  CHECK(err([](json& j) { j["infinity_cache_bytes"] = 0; }) == "");
  e = err([](json& j) { j["infinity_cache_bytes"] = -1; });
  CHECK(contains(e, "field 'infinity_cache_bytes': expected a non-negative number"));

  e = err([](json& j) { j["name"] = ""; });
  CHECK(contains(e, "field 'name': expected a non-empty string"));
  e = err([](json& j) { j["full_name"] = 5; });
  CHECK(contains(e, "field 'full_name': expected a non-empty string"));
  e = err([](json& j) { j.erase("vendor"); });
  CHECK(contains(e, "field 'vendor': missing (expected a non-empty string)"));
  e = err([](json& j) { j["vendor"] = "intel"; });
  CHECK(contains(e, "field 'vendor': expected \"nvidia\" or \"amd\""));
  for (json bad : {json("stages-2"), json(1), json(nullptr)}) {
    CAPTURE(bad.dump());
    e = err([&](json& j) { j["pipeline_buffers"] = bad; });
    CHECK(contains(e, "field 'pipeline_buffers': expected \"stages\" or \"stages-1\""));
  }
  CHECK(err([](json& j) { j["pipeline_buffers"] = "stages-1"; }) == "");
  e = err([](json& j) { j["warp_size"] = 48; });
  CHECK(contains(e, "field 'warp_size': expected 32 or 64"));
  e = err([](json& j) { j["hbm_gbs"] = 3000; });
  CHECK(contains(e, "field 'hbm_gbs': unknown field"));
  e = err([](json& j) { j["sources"] = "datasheet"; });
  CHECK(contains(e, "field 'sources': expected an object of strings"));
}

TEST_CASE("gpu: loader checks peak rates") {
  ScratchDir dir("tv_gpu_test");
  auto err = [&](const std::function<void(json&)>& edit) { return edit_error(dir, "h100", edit); };
  std::string e = err([](json& j) { j["peak_tflops"].erase("bf16"); });
  CHECK(contains(e, "field 'peak_tflops': missing 'bf16' (the fallback rate)"));
  e = err([](json& j) { j["peak_tflops"]["fp4"] = 4000; });
  CHECK(contains(e, "field 'peak_tflops.fp4': unknown dtype"));
  e = err([](json& j) { j["peak_tflops"]["fp16"] = 900; });
  CHECK(contains(e, "dtype 'f16' given twice"));
  e = err([](json& j) { j["peak_tflops"]["bf16"] = 0; });
  CHECK(contains(e, "field 'peak_tflops.bf16': expected a positive number"));
  e = err([](json& j) { j["peak_tflops"] = json::array({989.4}); });
  CHECK(contains(e, "field 'peak_tflops': expected a non-empty object"));
  e = err([](json& j) { j["peak_tflops"] = json::object(); });
  CHECK(contains(e, "field 'peak_tflops': expected a non-empty object"));
  e = err([](json& j) { j.erase("peak_tflops"); });
  CHECK(contains(e, "field 'peak_tflops': missing"));
  // Aliases are canonicalised.
  json j = profile_json("h100");
  j["peak_tflops"] = {{"bfloat16", 100.0}, {"float32", 50.0}};
  Gpu g = load_gpu_file(dir.write("alias.json", j.dump()));
  CHECK(g.peak(DType::bf16) == doctest::Approx(1e14));
  CHECK(g.peak(DType::f32) == doctest::Approx(5e13));
}

TEST_CASE("gpu: loader checks the config space") {
  ScratchDir dir("tv_gpu_test");
  auto err = [&](const std::function<void(json&)>& edit) { return edit_error(dir, "h100", edit); };
  auto amd_err = [&](const std::function<void(json&)>& edit) {
    return edit_error(dir, "mi300x", edit);
  };
  std::string e = err([](json& j) { j["config_space"]["BM"] = json::array(); });
  CHECK(contains(e, "field 'config_space.BM': expected a non-empty list of positive integers"));
  e = err([](json& j) { j["config_space"].erase("stages"); });
  CHECK(contains(e, "field 'config_space.stages': missing (expected a non-empty list"));
  e = err([](json& j) { j["config_space"]["group"] = 8; });
  CHECK(contains(e, "field 'config_space.group': expected a non-empty list"));
  e = err([](json& j) { j["config_space"]["BK"] = {16, "x"}; });
  CHECK(contains(e, "field 'config_space.BK[1]': expected a positive integer"));
  e = err([](json& j) { j["config_space"]["warps"] = {4, 0}; });
  CHECK(contains(e, "field 'config_space.warps[1]': expected a positive integer"));
  e = err([](json& j) { j["config_space"]["BN"] = {64, 128, 64}; });
  CHECK(contains(e, "field 'config_space.BN': duplicate value 64"));
  e = err([](json& j) { j["config_space"]["split_k"] = {1, 2}; });
  CHECK(contains(e, "field 'config_space.split_k': unknown config field"));
  e = err([](json& j) { j["config_space"]["kpack"] = {1}; });
  CHECK(contains(e, "field 'config_space.kpack': must be empty for vendor 'nvidia'"));
  e = err([](json& j) { j["config_space"] = json::array(); });
  CHECK(contains(e, "field 'config_space': expected an object"));

  e = amd_err([](json& j) { j["config_space"]["waves_per_eu"] = {-1}; });
  CHECK(contains(e, "field 'config_space.waves_per_eu[0]': expected a non-negative integer"));
  e = amd_err([](json& j) { j["config_space"]["matrix_instr_nonkdim"] = {0}; });
  CHECK(contains(e, "field 'config_space.matrix_instr_nonkdim[0]': expected a positive integer"));
  CHECK(amd_err([](json& j) { j["config_space"]["kpack"] = json::array(); }) == "");
}

TEST_CASE("gpu: loader checks cross-field consistency") {
  ScratchDir dir("tv_gpu_test");
  auto err = [&](const std::function<void(json&)>& edit) { return edit_error(dir, "h100", edit); };
  std::string e = err([](json& j) { j["shared_per_block_bytes"] = 300000; });
  CHECK(contains(e, "field 'shared_per_block_bytes': must not exceed shared_per_unit_bytes"));
  e = err([](json& j) { j["max_threads_per_block"] = 1000; });
  CHECK(contains(e, "field 'max_threads_per_block': expected a multiple of warp_size (32)"));
  e = err([](json& j) { j["max_threads_per_block"] = 4096; });
  CHECK(contains(e, "field 'max_threads_per_block': must not exceed max_threads_per_unit"));
  e = err([](json& j) { j["max_registers_per_thread"] = 100000; });
  CHECK(contains(e, "field 'max_registers_per_thread': must not exceed registers_per_unit"));
}

TEST_CASE("gpu: malformed JSON names the file and the position") {
  ScratchDir dir("tv_gpu_test");
  std::string e = load_error(dir, "{\n  \"name\": \"x\",\n  \"units\": ,\n}\n");
  CHECK(contains(e, "bad.json:3:12: malformed JSON: syntax error"));
  e = load_error(dir, "");
  CHECK(contains(e, "bad.json:1:1: malformed JSON:"));
  e = load_error(dir, "{\"name\": \"unterminated");
  CHECK(contains(e, "bad.json:1:"));
  CHECK(contains(e, "malformed JSON"));
  e = load_error(dir, "[1, 2, 3]");
  CHECK(contains(e, "bad.json: expected a JSON object at the top level"));
  e = load_error(dir, "{\"units\": 1e999}");
  CHECK(contains(e, "bad.json:1:11: malformed JSON: number overflow"));
}

TEST_CASE("gpu: corrupted profiles never crash the loader") {
  const std::string text = read_text(data_path("gpus/mi300x.json"));
  ScratchDir dir("tv_gpu_test");
  Rng rng(20240611);
  const std::string alphabet = "{}[]\":,-.0123456789eE abcxyz\n\\";
  int loaded = 0;
  for (int trial = 0; trial < 300; ++trial) {
    std::string t = text;
    int edits = int(rng.uniform_int(1, 4));
    for (int k = 0; k < edits && !t.empty(); ++k) {
      std::size_t at = rng.index(t.size());
      switch (rng.uniform_int(0, 2)) {
      case 0:
        t[at] = alphabet[rng.index(alphabet.size())];
        break;
      case 1:
        t.erase(at, std::size_t(rng.uniform_int(1, 20)));
        break;
      default:
        t.insert(at, 1, alphabet[rng.index(alphabet.size())]);
      }
    }
    std::string path = dir.write("fuzz.json", t);
    try {
      load_gpu_file(path);
      ++loaded;
    } catch (const InputError& e) {
      CHECK(std::string(e.what()).rfind(path, 0) == 0);
    }
  }
  CHECK(loaded < 300); // the corruption is noticed at least sometimes
}

TEST_CASE("gpu: all_configs is the full product, in a fixed order, without duplicates") {
  for (const auto& name : kProfiles) {
    CAPTURE(name);
    Gpu g = find_gpu(name);
    const ConfigSpace& s = g.space;
    auto n = [](const std::vector<int>& v) { return v.empty() ? std::size_t(1) : v.size(); };
    std::size_t product = s.BM.size() * s.BN.size() * s.BK.size() * s.warps.size() *
                          s.stages.size() * s.group.size() * n(s.waves_per_eu) *
                          n(s.matrix_instr_nonkdim) * n(s.kpack);
    std::vector<Config> all = all_configs(g);
    REQUIRE(all.size() == product);
    std::unordered_set<Config> unique(all.begin(), all.end());
    CHECK(unique.size() == all.size());

    bool amd = g.vendor == "amd";
    std::size_t knobs_wrong = 0;
    for (const Config& c : all)
      if (c.waves_per_eu.has_value() != amd || c.matrix_instr_nonkdim.has_value() != amd ||
          c.kpack.has_value() != amd)
        ++knobs_wrong;
    CHECK(knobs_wrong == 0);
    // First config takes the first value of every list; BM is the outermost loop.
    const Config& first = all.front();
    CHECK(first.BM == s.BM.front());
    CHECK(first.BN == s.BN.front());
    CHECK(first.BK == s.BK.front());
    CHECK(first.warps == s.warps.front());
    CHECK(first.stages == s.stages.front());
    CHECK(first.group == s.group.front());
    CHECK(all.back().BM == s.BM.back());
    CHECK(all[product / s.BM.size()].BM == s.BM[1]);
    CHECK(all[product / s.BM.size() - 1].BM == s.BM[0]);
    // The innermost loop is kpack on AMD (when it has several values) and group on NVIDIA.
    if (amd && s.kpack.size() > 1) {
      CHECK(all[1].kpack == s.kpack[1]);
      CHECK(all[1].BM == first.BM);
    } else if (!amd) {
      CHECK(all[1].group == s.group[1]);
    }
  }
  CHECK(all_configs(find_gpu("h100")).size() == 6000);
  CHECK(all_configs(find_gpu("mi300x")).size() == 43200);
  CHECK(all_configs(find_gpu("mi355x")).size() == 21600);
}

TEST_CASE("gpu: physically absurd rates and sizes are refused with the plausible range") {
  // Issue 13: a bandwidth of 1e-300 GB/s loaded and gave times of 1e290 s.
  ScratchDir dir("tv_gpu_test");
  auto err = [&](const std::function<void(json&)>& edit) { return edit_error(dir, "h100", edit); };
  std::string e = err([](json& j) { j["hbm_gbps"] = 1e-300; });
  CHECK(contains(e, "field 'hbm_gbps': expected a positive number from 1 to 1e+07 GB/s (a "
                    "plausible device), got 1e-300"));
  e = err([](json& j) { j["l2_gbps"] = 1e300; });
  CHECK(contains(e, "field 'l2_gbps': expected a positive number from 1 to 1e+08 GB/s"));
  e = err([](json& j) { j["clock_mhz"] = 1e-9; });
  CHECK(contains(e, "field 'clock_mhz': expected a positive number from 1 to 1e+06 MHz"));
  e = err([](json& j) { j["peak_tflops"]["bf16"] = 1e300; });
  CHECK(contains(e, "field 'peak_tflops.bf16': expected a positive number from 0.001 to 1e+06"));
  e = err([](json& j) { j["l2_bytes"] = 5; });
  CHECK(contains(e, "field 'l2_bytes': expected a positive number from 1024 to 1e+13 bytes"));
  e = err([](json& j) { j["mem_latency_ns"] = 1e300; });
  CHECK(contains(e, "field 'mem_latency_ns': expected a positive number from 0.001 to 1e+07"));
  e = err([](json& j) { j["launch_overhead_us"] = 1e-300; });
  CHECK(contains(e, "field 'launch_overhead_us': expected a positive number from 1e-06"));
  CHECK(err([](json& j) { j["infinity_cache_bytes"] = 0; }) == ""); // 0 = none, allowed
  e = err([](json& j) { j["infinity_cache_bytes"] = 1e300; });
  CHECK(contains(e, "field 'infinity_cache_bytes': expected a non-negative number from 1024"));
  e = err([](json& j) { j["registers_per_unit"] = 4294967296LL; });
  CHECK(
      contains(e, "field 'registers_per_unit': expected a positive integer (at most 1073741824)"));
  e = err([](json& j) { j["shared_per_unit_bytes"] = 1LL << 50; });
  CHECK(contains(e, "field 'shared_per_unit_bytes': expected a positive integer (at most "));
  // Config values are bounded so resource products stay inside 64 bits.
  e = err([](json& j) { j["config_space"]["BM"] = {16, 65537}; });
  CHECK(contains(e, "field 'config_space.BM[1]': expected a positive integer (at most 65536)"));
  e = err([](json& j) { j["config_space"]["stages"] = {2147483647}; });
  CHECK(contains(e, "field 'config_space.stages[0]': expected a positive integer (at most 65536)"));
  CHECK(err([](json& j) { j["config_space"]["BM"] = {16, 65536}; }) == "");
}

} // namespace gpu_test
