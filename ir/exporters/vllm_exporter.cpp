#include "ir/exporters/vllm_exporter.hpp"

#include "ir/error.hpp"
#include "ir/exporters/m_segments.hpp"
#include "ir/exporters/nearest_key.hpp"
#include "ir/exporters/triton_meta.hpp"
#include "ir/version.hpp"

#include <algorithm>
#include <cctype>
#include <fmt/format.h>

namespace tv {

namespace {

void check_options(const VllmExportOptions& o) {
  if (o.N < 1 || o.K < 1) throw InputError("vllm export: --n and --k must be positive");
  if (o.E && *o.E < 1) throw InputError("vllm export: --e must be positive");
  if (o.file_N && *o.file_N < 1) throw InputError("vllm export: --file-n must be positive");
  if (o.device.empty())
    throw InputError("vllm export: the device name is not known: give --device NAME (the name "
                     "torch.cuda.get_device_name() prints, e.g. AMD_Instinct_MI300X)");
  for (const char c : o.device)
    if (c == '/' || c == ',' || static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
      throw InputError("vllm export: --device must not contain '/', ',' or control characters");
  for (const char c : o.dtype)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_'))
      throw InputError("vllm export: --vllm-dtype takes letters, digits and '_' (e.g. fp8_w8a8)");
  if (o.block_shape && (o.block_shape->first < 1 || o.block_shape->second < 1))
    throw InputError("vllm export: --block-shape takes two positive integers");
  if (!o.sglang_triton.empty()) {
    bool ok = std::isdigit(static_cast<unsigned char>(o.sglang_triton.front())) &&
              std::isdigit(static_cast<unsigned char>(o.sglang_triton.back()));
    for (const char c : o.sglang_triton)
      ok = ok && (std::isdigit(static_cast<unsigned char>(c)) || c == '.');
    if (!ok)
      throw InputError(fmt::format("vllm export: --sglang-triton '{}': expected a Triton version "
                                   "like 3.1.0",
                                   comment_safe(o.sglang_triton)));
  }
  for (const char c : o.triton_version)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
      throw InputError("vllm export: --triton-version must be printable");
  for (const std::int64_t k : o.m_keys)
    if (k < 1 || k > kDimMax)
      throw InputError(fmt::format("vllm export: M key {} out of range (1 to {})", k, kDimMax));
}

} // namespace

const std::vector<std::int64_t>& standard_m_keys() {
  static const std::vector<std::int64_t> keys{1,  2,   4,   8,   16,   24,   32,   48,   64,
                                              96, 128, 256, 512, 1024, 1536, 2048, 3072, 4096};
  return keys;
}

VllmExport export_vllm(const Program& p, const VllmExportOptions& o) {
  check_options(o);
  const bool sglang = !o.sglang_triton.empty();
  VllmExport e;
  std::string device = o.device;
  std::replace(device.begin(), device.end(), ' ', '_'); // as both stacks do
  const std::int64_t name_n = o.file_N.value_or(o.N);
  e.file_name = o.E ? fmt::format("E={},N={},device_name={}", *o.E, name_n, device)
                    : fmt::format("N={},K={},device_name={}", name_n, o.K, device);
  if (!o.dtype.empty()) e.file_name += ",dtype=" + o.dtype;
  if (o.block_shape)
    e.file_name +=
        sglang ? fmt::format(",block_shape=[{}, {}]", o.block_shape->first, o.block_shape->second)
               : fmt::format(",block_shape=[{},{}]", o.block_shape->first, o.block_shape->second);
  e.file_name += ".json";
  if (sglang) {
    e.folder = "triton_" + o.sglang_triton;
    std::replace(e.folder.begin(), e.folder.end(), '.', '_');
  }

  const std::vector<MSegment> segments = m_segments(p, o.N, o.K);
  if (o.m_keys.empty()) {
    for (const auto& s : segments) {
      e.keys.push_back(s.lo);
      if (s.hi < kDimMax) e.keys.push_back(s.hi);
    }
    e.keys.insert(e.keys.end(), standard_m_keys().begin(), standard_m_keys().end());
  } else {
    e.keys = o.m_keys;
  }
  std::sort(e.keys.begin(), e.keys.end());
  e.keys.erase(std::unique(e.keys.begin(), e.keys.end()), e.keys.end());

  // The config at each key; the vendor library has no spelling in this format.
  std::vector<Config> table;
  std::vector<std::int64_t> vendor_keys;
  for (const std::int64_t m : e.keys) {
    const Config& c = p.choose(shape_at(m, o.N, o.K));
    if (c.vendor) vendor_keys.push_back(m);
    table.push_back(c.vendor && o.vendor_fallback ? *o.vendor_fallback : c);
  }
  if (!vendor_keys.empty() && !o.vendor_fallback) {
    std::string list;
    for (std::size_t i = 0; i < vendor_keys.size() && i < 20; ++i)
      list += (i ? ", " : "") + std::to_string(vendor_keys[i]);
    if (vendor_keys.size() > 20) list += fmt::format(" and {} more", vendor_keys.size() - 20);
    throw InputError(fmt::format(
        "vllm export: the program calls the vendor library (returns \"vendor\") at N={}, K={} for "
        "the M keys {}; a vLLM/SGLang config file can only hold Triton configs. Give "
        "--vendor-fallback 'Config(BM=.., BN=.., BK=.., warps=.., stages=.., group=..)' to write "
        "that config at those keys, or export another format (cpp, python, triton, json keep "
        "the vendor branch)",
        o.N, o.K, list));
  }

  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  if (!sglang)
    j["triton_version"] =
        o.triton_version.empty()
            ? fmt::format("none: written by tilevolve {}, not tuned with Triton", version())
            : o.triton_version;
  for (std::size_t i = 0; i < e.keys.size(); ++i) {
    nlohmann::ordered_json c = nlohmann::ordered_json::object();
    for (const auto& [name, value] : triton_meta(table[i]))
      c[std::string(name)] = value;
    j[std::to_string(e.keys[i])] = c;
  }
  e.json = j.dump(4) + "\n";

  // Where the lookup (nearest key, ties to the smaller key: the file is sorted) differs from
  // the program, and where the program's vendor region was written as the fallback.
  MRanges differs, vendor_ranges;
  const auto ranges = nearest_key_ranges(e.keys);
  std::size_t s = 0;
  for (const auto& r : ranges) {
    const std::int64_t lo = std::max<std::int64_t>(r.lo, 1), hi = r.hi;
    if (lo > hi) continue;
    const Config& written = table[r.position];
    while (s < segments.size() && segments[s].hi < lo)
      ++s;
    for (std::size_t t = s; t < segments.size() && segments[t].lo <= hi; ++t) {
      const std::int64_t a = std::max(lo, segments[t].lo), b = std::min(hi, segments[t].hi);
      const Config& c = segments[t].config;
      if (c.vendor && o.vendor_fallback && written == *o.vendor_fallback)
        add_m_range(vendor_ranges, a, b);
      else if (c != written)
        add_m_range(differs, a, b);
    }
  }
  e.exact = differs.empty() && vendor_ranges.empty();
  const std::string at = fmt::format("N={}, K={}", o.N, o.K);
  if (differs.empty())
    e.notes.push_back(fmt::format(
        "At {} the nearest-key lookup of this file returns the program's decision for every "
        "M >= 1{}{}.",
        at, vendor_ranges.empty() ? "" : " where it returns a tile config",
        o.m_keys.empty() ? " (keys at both ends of each M range on which the program's "
                           "decision is constant, and vLLM's default batch sizes)"
                         : ""));
  else
    e.notes.push_back(fmt::format("At {} the nearest-key lookup of this file differs from the "
                                  "program for M in {} (keys chosen with --m-keys).",
                                  at, m_ranges_text(differs)));
  if (!vendor_ranges.empty())
    e.notes.push_back(fmt::format("The program calls the vendor library for M in {}; the format "
                                  "cannot say so, so {} is written there (--vendor-fallback).",
                                  m_ranges_text(vendor_ranges), o.vendor_fallback->brief()));
  if (sglang)
    e.notes.push_back("SGLang looks for configs/" + e.folder + "/" + e.file_name +
                      " under $SGLANG_MOE_CONFIG_DIR (default: the directory of its "
                      "fused_moe_triton_config.py) and falls back to other triton_* folders.");
  else if (o.E)
    e.notes.push_back("vLLM looks for " + e.file_name +
                      " in $VLLM_TUNED_CONFIG_FOLDER first, then in "
                      "vllm/model_executor/layers/fused_moe/configs/ of the installed package.");
  else
    e.notes.push_back("vLLM reads N=..,K=.. files only for its block-quantized W8A8 Triton GEMMs "
                      "(names with dtype= and block_shape=), from "
                      "vllm/model_executor/layers/quantization/utils/configs/.");
  return e;
}

std::string vllm_provenance_text(const Program& p, const ExportInfo& info, const VllmExport& e) {
  std::string out = "Provenance of " + (e.folder.empty() ? "" : e.folder + "/") + e.file_name +
                    " (the JSON file can hold only M keys).\n";
  for (const auto& l : provenance_lines(p, info))
    out += l + "\n";
  for (const auto& n : e.notes)
    out += comment_safe(n) + "\n";
  return out;
}

std::optional<std::string> vllm_device_name(std::string_view gpu_profile) {
  // Spelled as in the file names of vllm/model_executor/layers/fused_moe/configs/ (e.g.
  // E=128,N=1856,device_name=NVIDIA_H100_80GB_HBM3.json; vLLM maps every H200 variant to
  // NVIDIA_H200; E=128,N=384,device_name=AMD_Instinct_MI300X.json; E=128,N=176,
  // device_name=AMD_Instinct_MI325X.json; MI355X files of SGLang use AMD_Instinct_MI355X).
  if (gpu_profile == "h100") return "NVIDIA_H100_80GB_HBM3";
  if (gpu_profile == "h200") return "NVIDIA_H200";
  if (gpu_profile == "mi300x") return "AMD_Instinct_MI300X";
  if (gpu_profile == "mi325x") return "AMD_Instinct_MI325X";
  if (gpu_profile == "mi355x") return "AMD_Instinct_MI355X";
  return std::nullopt;
}

} // namespace tv
