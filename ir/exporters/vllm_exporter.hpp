#pragma once
/// The vLLM / SGLang export: the per-M config JSON those serving stacks read for one GEMM
/// (N, K) or one MoE layer (E, N), under the file name their loaders look for:
///
///   vLLM   E={E},N={N},device_name={dev}[,dtype={d}][,block_shape=[{bn},{bk}]].json (MoE,
///          fused_moe.py get_config_file_name), or N={N},K={K},device_name={dev},... for the
///          dense block-quantized W8A8 GEMMs; {"triton_version": ..., "1": {...}, "16": {...}}.
///   SGLang the same names (block_shape printed as a Python list, "[128, 128]") inside
///          triton_{X_Y_Z}/ for Triton X.Y.Z; no "triton_version" key (SGLang's loader turns
///          every key into an int).
///
/// Each key M holds the program's config at (M, N, K), fields named as in triton_meta.hpp.
/// The default key set is exact: both ends of every M range on which the program's decision is
/// constant (m_segments.hpp), plus the batch sizes vLLM's tuning script writes, so the
/// nearest-key lookup gives the program's decision for every M >= 1. With explicit keys the
/// export reports where the lookup differs. A program that returns "vendor" at a key cannot be
/// written (the format has no such value): refused with the keys named, unless a fallback
/// config is given.
#include "ir/exporters/export_info.hpp"
#include "ir/program.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace tv {

/// The batch sizes vLLM's benchmark_moe.py and SGLang's tuning scripts use by default:
/// 1, 2, 4, 8, 16, 24, 32, 48, 64, 96, 128, 256, 512, 1024, 1536, 2048, 3072, 4096.
const std::vector<std::int64_t>& standard_m_keys();

/// What to export.
struct VllmExportOptions {
  std::int64_t N = 0, K = 0;     ///< the GEMM (M, N, K) the program is evaluated at
  std::optional<std::int64_t> E; ///< experts: MoE file name E=..,N=..; without: N=..,K=..
  /// N of the file name when it differs from the evaluated N: vLLM names a MoE file by
  /// w2.shape[2] (the intermediate size per shard) while one config serves both expert GEMMs.
  std::optional<std::int64_t> file_N;
  std::string device; ///< device_name as the serving stack reports it (spaces -> '_')
  std::string dtype;  ///< optional dtype selector, e.g. "fp8_w8a8"
  std::optional<std::pair<int, int>> block_shape; ///< optional block_shape selector
  std::string sglang_triton;  ///< "3.1.0": SGLang layout in triton_3_1_0/; "" = vLLM layout
  std::string triton_version; ///< vLLM's "triton_version" value; "" = states that none was used
  std::vector<std::int64_t> m_keys;      ///< keys to write; empty = the exact key set
  std::optional<Config> vendor_fallback; ///< written where the program calls the vendor library
};

/// The exported file and what it means.
struct VllmExport {
  std::string folder;    ///< "" (vLLM) or "triton_3_1_0" (SGLang)
  std::string file_name; ///< e.g. "E=8,N=14336,device_name=AMD_Instinct_MI300X.json"
  std::string json;      ///< the file content
  std::vector<std::int64_t> keys;
  bool exact = false; ///< the lookup gives the program's tile config for every M >= 1
  /// Facts that cannot go in the file (it holds only M keys): how the lookup relates to the
  /// program, the vendor fallback, where the serving stack looks for the file.
  std::vector<std::string> notes;
};

/// The export; throws InputError for bad options and for a vendor decision at a key without a
/// fallback (the message names the keys).
VllmExport export_vllm(const Program& p, const VllmExportOptions& o);

/// The provenance file written beside the JSON: provenance_lines plus the export's notes.
std::string vllm_provenance_text(const Program& p, const ExportInfo& info, const VllmExport& e);

/// vLLM's device_name for a tilevolve GPU profile name (h100, h200, mi300x, mi325x, mi355x), as
/// vLLM's shipped config file names spell it; nullopt for other names.
std::optional<std::string> vllm_device_name(std::string_view gpu_profile);

} // namespace tv
