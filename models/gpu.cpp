#include "models/gpu.hpp"

#include "ir/error.hpp"
#include "ir/nearest_word.hpp"
#include "models/data_dir.hpp"
#include "models/json_text.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <climits>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>

namespace tv {

namespace {

using nlohmann::json;

/// Top-level keys a profile may have; anything else is reported (it is most likely a typo).
const std::set<std::string> kTopLevelKeys = {"name",
                                             "full_name",
                                             "vendor",
                                             "units",
                                             "warp_size",
                                             "max_threads_per_block",
                                             "max_threads_per_unit",
                                             "max_blocks_per_unit",
                                             "registers_per_unit",
                                             "max_registers_per_thread",
                                             "shared_per_unit_bytes",
                                             "shared_per_block_bytes",
                                             "pipeline_buffers",
                                             "l2_bytes",
                                             "infinity_cache_bytes",
                                             "peak_tflops",
                                             "hbm_gbps",
                                             "l2_gbps",
                                             "clock_mhz",
                                             "mem_latency_ns",
                                             "launch_overhead_us",
                                             "config_space",
                                             "sources",
                                             "notes"};

/// The range a rate or size of a real device lies in (generously: about a thousand times
/// beyond today's devices either way).
struct Plausible {
  double lo, hi;
  const char* unit;
};

/// Reads the fields of one profile; every failure names the file and the field.
class FieldReader {
public:
  explicit FieldReader(std::string file) : file_(std::move(file)) {}

  [[noreturn]] void fail(std::string_view field, std::string_view what) const {
    throw InputError(fmt::format("{}: field '{}': {}", file_, field, what));
  }

  /// The member `key` of `obj` (reported as `path`), or a "missing" error naming `expected`.
  const json& member(const json& obj, const std::string& key, std::string_view path,
                     std::string_view expected) const {
    auto it = obj.find(key);
    if (it == obj.end()) fail(path, fmt::format("missing (expected {})", expected));
    return *it;
  }

  /// An integer in [lo, hi]; `expected` describes it for messages.
  long long integer(const json& v, std::string_view path, long long lo, long long hi,
                    std::string_view expected) const {
    if (!v.is_number_integer()) fail(path, fmt::format("expected {}", expected));
    if (v.is_number_unsigned()) {
      auto u = v.get<std::uint64_t>();
      if (lo > 0 && u < std::uint64_t(lo)) fail(path, fmt::format("expected {}", expected));
      if (u > std::uint64_t(hi)) fail(path, fmt::format("expected {} (at most {})", expected, hi));
      return static_cast<long long>(u);
    }
    long long x = v.get<long long>();
    if (x < lo) fail(path, fmt::format("expected {}", expected));
    if (x > hi) fail(path, fmt::format("expected {} (at most {})", expected, hi));
    return x;
  }

  /// A positive integer of at most `hi` (a physically plausible bound).
  int positive_int(const json& obj, const std::string& key, long long hi) const {
    const char* what = "a positive integer";
    return int(integer(member(obj, key, key, what), key, 1, hi, what));
  }

  long long positive_long(const json& obj, const std::string& key, long long hi) const {
    const char* what = "a positive integer";
    return integer(member(obj, key, key, what), key, 1, hi, what);
  }

  /// A finite number, > 0 (or >= 0 when `allow_zero`), and (unless 0) within the plausible
  /// range `r`: a bandwidth of 1e-300 GB/s parses but describes no device.
  double number_value(const json& v, std::string_view path, bool allow_zero,
                      const Plausible& r) const {
    const char* what = allow_zero ? "a non-negative number" : "a positive number";
    if (!v.is_number()) fail(path, fmt::format("expected {}", what));
    double x = v.get<double>();
    if (!std::isfinite(x) || x < 0 || (!allow_zero && x == 0))
      fail(path, fmt::format("expected {}", what));
    if (x != 0 && (x < r.lo || x > r.hi))
      fail(path, fmt::format("expected {} from {:g} to {:g} {} (a plausible device), got {:g}",
                             what, r.lo, r.hi, r.unit, x));
    return x;
  }

  double number(const json& obj, const std::string& key, bool allow_zero,
                const Plausible& r) const {
    return number_value(
        member(obj, key, key, allow_zero ? "a non-negative number" : "a positive number"), key,
        allow_zero, r);
  }

  std::string text(const json& obj, const std::string& key) const {
    const json& v = member(obj, key, key, "a non-empty string");
    if (!v.is_string() || v.get<std::string>().empty()) fail(key, "expected a non-empty string");
    return v.get<std::string>();
  }

  /// A list of distinct integers >= `lo`; empty only when `allow_empty`. A missing key
  /// counts as an empty list when `allow_empty`.
  std::vector<int> int_list(const json& obj, const std::string& key, std::string_view path,
                            long long lo, bool allow_empty) const {
    std::string what = fmt::format("a {}list of {} integers", allow_empty ? "" : "non-empty ",
                                   lo > 0 ? "positive" : "non-negative");
    auto it = obj.find(key);
    if (it == obj.end()) {
      if (allow_empty) return {};
      fail(path, fmt::format("missing (expected {})", what));
    }
    if (!it->is_array() || (!allow_empty && it->empty()))
      fail(path, fmt::format("expected {}", what));
    const char* elem_what = lo > 0 ? "a positive integer" : "a non-negative integer";
    std::vector<int> out;
    for (std::size_t i = 0; i < it->size(); ++i) {
      std::string elem = fmt::format("{}[{}]", path, i);
      int x = int(integer((*it)[i], elem, lo, kMaxConfigValue, elem_what));
      if (std::find(out.begin(), out.end(), x) != out.end())
        fail(path, fmt::format("duplicate value {}", x));
      out.push_back(x);
    }
    return out;
  }

private:
  std::string file_;
};

std::string read_profile_text(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw InputError(fmt::format("{}: cannot read GPU profile: it is a directory", path));
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(fmt::format("{}: cannot open GPU profile", path));
  std::ostringstream buf;
  buf << in.rdbuf();
  return buf.str();
}

ConfigSpace read_space(const FieldReader& r, const json& root, bool amd) {
  const json& cs = r.member(root, "config_space", "config_space", "an object of value lists");
  if (!cs.is_object()) r.fail("config_space", "expected an object of value lists");
  static const std::set<std::string> known = {
      "BM",   "BN", "BK", "warps", "stages", "group", "waves_per_eu", "matrix_instr_nonkdim",
      "kpack"};
  for (const auto& [key, value] : cs.items())
    if (!known.count(key))
      r.fail("config_space." + key, "unknown config field (expected one of BM, BN, BK, warps, "
                                    "stages, group, waves_per_eu, matrix_instr_nonkdim, kpack)");
  auto list = [&](const char* key, long long lo, bool allow_empty) {
    return r.int_list(cs, key, std::string("config_space.") + key, lo, allow_empty);
  };
  ConfigSpace s;
  s.BM = list("BM", 1, false);
  s.BN = list("BN", 1, false);
  s.BK = list("BK", 1, false);
  s.warps = list("warps", 1, false);
  s.stages = list("stages", 1, false);
  s.group = list("group", 1, false);
  s.waves_per_eu = list("waves_per_eu", 0, true); // 0 = "no occupancy hint"
  s.matrix_instr_nonkdim = list("matrix_instr_nonkdim", 1, true);
  s.kpack = list("kpack", 1, true);
  if (!amd) {
    for (auto [key, values] :
         {std::pair{"waves_per_eu", &s.waves_per_eu},
          std::pair{"matrix_instr_nonkdim", &s.matrix_instr_nonkdim}, std::pair{"kpack", &s.kpack}})
      if (!values->empty())
        r.fail(std::string("config_space.") + key, "must be empty for vendor 'nvidia' "
                                                   "(an AMD-only knob)");
  }
  return s;
}

std::map<std::string, double, std::less<>> read_peaks(const FieldReader& r, const json& root) {
  const json& p =
      r.member(root, "peak_tflops", "peak_tflops", "an object of dense TFLOP/s by dtype");
  if (!p.is_object() || p.empty())
    r.fail("peak_tflops", "expected a non-empty object of dense TFLOP/s by dtype");
  std::map<std::string, double, std::less<>> out;
  for (const auto& [key, value] : p.items()) {
    std::string path = "peak_tflops." + key;
    auto d = parse_dtype(key);
    if (!d) r.fail(path, "unknown dtype (expected bf16, f16, f32 or fp8)");
    std::string canon(dtype_name(*d));
    if (out.count(canon)) r.fail(path, fmt::format("dtype '{}' given twice", canon));
    out[canon] = r.number_value(value, path, false, {1e-3, 1e6, "TFLOP/s"}) * 1e12;
  }
  if (!out.count("bf16")) r.fail("peak_tflops", "missing 'bf16' (the fallback rate)");
  return out;
}

std::string lowercase(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return char(std::tolower(c)); });
  return s;
}

} // namespace

double Gpu::peak(DType d) const {
  if (auto it = peak_flops.find(dtype_name(d)); it != peak_flops.end()) return it->second;
  if (auto it = peak_flops.find("bf16"); it != peak_flops.end()) return it->second;
  return 0.0;
}

Gpu load_gpu_file(const std::string& path) {
  return parse_gpu_profile(read_profile_text(path), path);
}

Gpu parse_gpu_profile(std::string_view text, const std::string& path) {
  const json root = parse_json_text(text, path);
  if (!root.is_object())
    throw InputError(fmt::format("{}: expected a JSON object at the top level", path));
  FieldReader r(path);
  for (const auto& [key, value] : root.items())
    if (!kTopLevelKeys.count(key)) r.fail(key, "unknown field");

  Gpu g;
  g.name = r.text(root, "name");
  g.full_name = r.text(root, "full_name");
  g.vendor = r.text(root, "vendor");
  if (g.vendor != "nvidia" && g.vendor != "amd") r.fail("vendor", "expected \"nvidia\" or \"amd\"");
  // Integer bounds keep every product the launch check and the model form far inside 64 bits.
  g.units = r.positive_int(root, "units", 1 << 20);
  g.warp_size = r.positive_int(root, "warp_size", 64);
  if (g.warp_size != 32 && g.warp_size != 64) r.fail("warp_size", "expected 32 or 64");
  g.max_threads_per_block = r.positive_int(root, "max_threads_per_block", 1 << 20);
  g.max_threads_per_unit = r.positive_int(root, "max_threads_per_unit", 1 << 20);
  g.max_blocks_per_unit = r.positive_int(root, "max_blocks_per_unit", 1 << 20);
  g.registers_per_unit = r.positive_int(root, "registers_per_unit", 1 << 30);
  g.max_registers_per_thread = r.positive_int(root, "max_registers_per_thread", 1 << 30);
  g.shared_per_unit = r.positive_long(root, "shared_per_unit_bytes", 1LL << 40);
  g.shared_per_block = r.positive_long(root, "shared_per_block_bytes", 1LL << 40);
  g.buffers_below_stages = g.vendor == "amd" ? 1 : 0;
  if (auto it = root.find("pipeline_buffers"); it != root.end()) {
    if (!it->is_string() || (*it != "stages" && *it != "stages-1"))
      r.fail("pipeline_buffers", "expected \"stages\" or \"stages-1\"");
    g.buffers_below_stages = *it == "stages-1" ? 1 : 0;
  }
  g.l2_bytes = r.number(root, "l2_bytes", false, {1024, 1e13, "bytes"});
  g.infinity_cache_bytes = r.number(root, "infinity_cache_bytes", true, {1024, 1e13, "bytes"});
  g.peak_flops = read_peaks(r, root);
  g.hbm_bytes_per_s = r.number(root, "hbm_gbps", false, {1, 1e7, "GB/s"}) * 1e9;
  g.l2_bytes_per_s = r.number(root, "l2_gbps", false, {1, 1e8, "GB/s"}) * 1e9;
  g.clock_hz = r.number(root, "clock_mhz", false, {1, 1e6, "MHz"}) * 1e6;
  g.mem_latency_s = r.number(root, "mem_latency_ns", false, {1e-3, 1e7, "ns"}) * 1e-9;
  g.launch_overhead_s = r.number(root, "launch_overhead_us", false, {1e-6, 1e7, "us"}) * 1e-6;
  g.space = read_space(r, root, g.vendor == "amd");
  if (auto it = root.find("sources"); it != root.end() && !it->is_object())
    r.fail("sources", "expected an object of strings");

  // Cross-field consistency.
  if (g.max_threads_per_block % g.warp_size != 0)
    r.fail("max_threads_per_block",
           fmt::format("expected a multiple of warp_size ({})", g.warp_size));
  if (g.max_threads_per_block > g.max_threads_per_unit)
    r.fail("max_threads_per_block",
           fmt::format("must not exceed max_threads_per_unit ({})", g.max_threads_per_unit));
  if (g.shared_per_block > g.shared_per_unit)
    r.fail("shared_per_block_bytes",
           fmt::format("must not exceed shared_per_unit_bytes ({})", g.shared_per_unit));
  if (g.max_registers_per_thread > g.registers_per_unit)
    r.fail("max_registers_per_thread",
           fmt::format("must not exceed registers_per_unit ({})", g.registers_per_unit));
  return g;
}

std::vector<std::string> known_gpus() {
  namespace fs = std::filesystem;
  std::vector<std::string> names;
  std::error_code ec;
  fs::directory_iterator it(data_path("gpus"), ec), end;
  for (; !ec && it != end; it.increment(ec)) {
    std::error_code file_ec;
    if (it->path().extension() == ".json" && it->is_regular_file(file_ec))
      names.push_back(it->path().stem().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

Gpu find_gpu(const std::string& name_or_path) {
  const std::string ext = ".json";
  if (name_or_path.size() >= ext.size() &&
      name_or_path.compare(name_or_path.size() - ext.size(), ext.size(), ext) == 0)
    return load_gpu_file(name_or_path);
  std::vector<std::string> known = known_gpus();
  // Exact name first, then case-insensitive ("H100" finds h100.json).
  for (const std::string& candidate : {name_or_path, lowercase(name_or_path)})
    if (std::find(known.begin(), known.end(), candidate) != known.end())
      return load_gpu_file(data_path("gpus/" + candidate + ext));
  std::string list = known.empty() ? fmt::format("(none: no *.json in {})", data_path("gpus"))
                                   : fmt::format("{}", fmt::join(known, ", "));
  // A typo of a known name is named: "h300" (did you mean h100 or h200?).
  throw InputError(fmt::format("unknown GPU '{}'{}; known: {}", name_or_path,
                               did_you_mean(nearest_words(lowercase(name_or_path), known)), list));
}

std::vector<Config> all_configs(const Gpu& gpu) {
  // An empty AMD knob list means "unset": one nullopt choice.
  auto knob = [](const std::vector<int>& values) {
    std::vector<std::optional<int>> out(values.begin(), values.end());
    if (out.empty()) out.push_back(std::nullopt);
    return out;
  };
  const ConfigSpace& s = gpu.space;
  const auto wpe = knob(s.waves_per_eu), mik = knob(s.matrix_instr_nonkdim), kp = knob(s.kpack);
  std::vector<Config> out;
  out.reserve(s.BM.size() * s.BN.size() * s.BK.size() * s.warps.size() * s.stages.size() *
              s.group.size() * wpe.size() * mik.size() * kp.size());
  // Nesting order (outermost first): BM, BN, BK, warps, stages, group, waves_per_eu,
  // matrix_instr_nonkdim, kpack; each in the order the profile lists its values.
  for (int bm : s.BM)
    for (int bn : s.BN)
      for (int bk : s.BK)
        for (int w : s.warps)
          for (int st : s.stages)
            for (int gr : s.group)
              for (const auto& a : wpe)
                for (const auto& b : mik)
                  for (const auto& c : kp) {
                    Config cfg;
                    cfg.BM = bm;
                    cfg.BN = bn;
                    cfg.BK = bk;
                    cfg.warps = w;
                    cfg.stages = st;
                    cfg.group = gr;
                    cfg.waves_per_eu = a;
                    cfg.matrix_instr_nonkdim = b;
                    cfg.kpack = c;
                    out.push_back(cfg);
                  }
  return out;
}

} // namespace tv
