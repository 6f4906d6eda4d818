#pragma once
/// GPU descriptions, loaded from data/gpus/*.json: the numbers the analytic model and the
/// launchability check use, and the config values that are legal on the device.
#include "ir/config.hpp"
#include "ir/shape.hpp"

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace tv {

/// The legal values of each config field on a device; an empty AMD list means "knob unused".
struct ConfigSpace {
  std::vector<int> BM, BN, BK, warps, stages, group;
  std::vector<int> waves_per_eu, matrix_instr_nonkdim, kpack;

  bool operator==(const ConfigSpace&) const = default;
};

/// One GPU profile. Sizes in bytes, rates in bytes/s or FLOP/s (converted on load).
struct Gpu {
  std::string name;      ///< short key, e.g. "h100"
  std::string full_name; ///< e.g. "NVIDIA H100 SXM5 80GB"
  std::string vendor;    ///< "nvidia" or "amd"
  int units = 0;         ///< SMs or CUs
  int warp_size = 32;    ///< 32 (warp) or 64 (wavefront)
  int max_threads_per_block = 1024;
  int max_threads_per_unit = 2048;
  int max_blocks_per_unit = 32;
  int registers_per_unit = 65536; ///< 32-bit registers per SM/CU (VGPR+AGPR lanes on AMD)
  int max_registers_per_thread = 255;
  long long shared_per_unit = 0;  ///< shared memory / LDS per SM/CU
  long long shared_per_block = 0; ///< largest allocation one block may make
  /// Tiles of A and B a pipelined matmul keeps in shared memory / LDS: stages (0) or
  /// max(1, stages - 1) (1), as the profile's "pipeline_buffers" says ("stages" or
  /// "stages-1"; by default "stages-1" on AMD, "stages" on NVIDIA).
  int buffers_below_stages = 0;
  double l2_bytes = 0;
  double infinity_cache_bytes = 0; ///< 0 where there is none
  /// Dense FLOP/s by dtype name ("bf16", "f16", ...); looked up by string_view, no copy.
  std::map<std::string, double, std::less<>> peak_flops;
  double hbm_bytes_per_s = 0;
  double l2_bytes_per_s = 0;
  double clock_hz = 0;
  double mem_latency_s = 0;     ///< DRAM load latency seen by a block
  double launch_overhead_s = 0; ///< fixed kernel launch / tail cost
  ConfigSpace space;

  /// Dense peak rate for `d` in FLOP/s (falls back to bf16 when the dtype is not listed).
  double peak(DType d) const;

  bool operator==(const Gpu&) const = default;
};

/// Largest value a profile's config space may list (BM, BN, BK, warps, stages, group and the
/// AMD knobs): it keeps resource products (tile x stages x bytes) far inside 64 bits.
inline constexpr int kMaxConfigValue = 1 << 16;

/// Reads a GPU profile JSON file; throws InputError naming the file and the bad field.
Gpu load_gpu_file(const std::string& path);
/// Parses the text of a GPU profile (`path` names it in errors); throws InputError naming the
/// file and the bad field for malformed JSON, a repeated key, a missing or unknown field, a
/// value of the wrong type or outside a plausible range, or inconsistent fields.
Gpu parse_gpu_profile(std::string_view text, const std::string& path);
/// A profile by short name from the data directory (data/gpus/NAME.json), or by path when
/// `name_or_path` ends in ".json"; throws InputError listing the known names when missing.
Gpu find_gpu(const std::string& name_or_path);
/// Short names of the profiles in the data directory, sorted.
std::vector<std::string> known_gpus();

/// Every config of the space (cartesian product, fixed order), launchable or not.
std::vector<Config> all_configs(const Gpu& gpu);

} // namespace tv
