#pragma once
/// AMD aiter's Triton GEMM config files and the lookup its getter does in them, shared by the
/// aiter exporter and importer.
///
/// File. aiter/ops/triton/configs/gemm/<device>-GEMM-A16W16-N=<N>-K=<K>.json (the per-(N, K)
/// file; <device>-GEMM-A16W16.json is the default when none exists). <device> is the arch
/// (gfx942 for MI300X/MI325X, gfx950 for MI350X/MI355X) in current releases, MI300X / MI350X in
/// older ones. Newest releases nest the same file as
/// configs/<arch>/triton/gemm/gemm_a16w16/GEMM-A16W16-N=<N>-K=<K>.json (DEFAULT.json the default).
/// One JSON object maps bucket keys to configs: "M_LEQ_<m>", "M_GEQ_<m>", "any".
///
/// Lookup (get_gemm_config in aiter/ops/triton/utils/gemm_config_utils.py, later
/// utils/_config/gemm.py): for the bounds m of STANDARD_M_BOUNDS in increasing order, the first
/// present "M_LEQ_<m>" with M <= m; else for the bounds in decreasing order the first present
/// "M_GEQ_<m>" with M >= m; else "any"; else KeyError. A key whose m is not a standard bound is
/// never read. The bounds are 4, 8, ..., 8192 (1 is prepended in the newest releases). The getter
/// reports is_tuned true for a bucket of a per-(N, K) file and false for "any".
///
/// Config. BLOCK_SIZE_M, BLOCK_SIZE_N, BLOCK_SIZE_K, GROUP_SIZE_M, num_warps, num_stages,
/// waves_per_eu, matrix_instr_nonkdim, cache_modifier (".cg" or null), NUM_KSPLIT (split-K
/// factor; the wrapper derives SPLITK_BLOCK_SIZE), and kpack on gfx942, passed to the kernel as
/// keyword arguments. aiter's own gfx942 files write waves_per_eu 2, matrix_instr_nonkdim 16,
/// kpack 1 and NUM_KSPLIT 1; a missing NUM_KSPLIT means 1 and a missing cache_modifier null.
#include "ir/config.hpp"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tv {

/// The bounds the newest getter tries (STANDARD_M_BOUNDS); earlier releases lack the 1.
inline constexpr std::array<std::int64_t, 13> kAiterMBounds = {1,   4,   8,    16,   32,   64,  128,
                                                               256, 512, 1024, 2048, 4096, 8192};
/// The bounds every release tries: the buckets the exporter writes (M_LEQ_4 .. M_LEQ_8192).
inline constexpr std::array<std::int64_t, 12> kAiterExportBounds = {
    4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192};

/// aiter's values for the AMD knobs where a program leaves them unset.
inline constexpr int kAiterWavesPerEu = 2;
inline constexpr int kAiterMatrixInstrNonkdim = 16;
inline constexpr int kAiterKpack = 1;

/// A bucket key.
struct AiterKey {
  enum class Kind { leq, geq, any };
  Kind kind = Kind::any;
  std::int64_t bound = 0; ///< m of M_LEQ_<m> / M_GEQ_<m>; 0 for "any"
  friend bool operator==(const AiterKey&, const AiterKey&) = default;
};

/// "M_LEQ_64" for {leq, 64}, "any" for any.
std::string aiter_key_text(const AiterKey& k);

/// The key `text` names when the getter can read it: "any", or M_LEQ_<m> / M_GEQ_<m> with m a
/// plain decimal in kAiterMBounds; nullopt otherwise.
std::optional<AiterKey> parse_aiter_key(std::string_view text);

/// The M values one key of a file serves.
struct AiterRange {
  std::size_t key = 0;         ///< index into the keys given
  std::int64_t lo = 1, hi = 1; ///< inclusive; hi = kDimMax for an open end
};

/// What the getter does with a file of `keys` (distinct), for every M >= 1: the ranges in
/// increasing M. M values no key serves (the getter raises KeyError) are left out.
std::vector<AiterRange> aiter_ranges(const std::vector<AiterKey>& keys);

/// The index of the key the getter uses for `M` (a direct transcription of its loops, for tests
/// and checks), or nullopt where it raises KeyError.
std::optional<std::size_t> aiter_lookup(const std::vector<AiterKey>& keys, std::int64_t M);

/// `c` as aiter launches it from a file written by the exporter: the AMD knobs the program leaves
/// unset take aiter's values (kpack only when `kpack`, aiter's gfx942 files carry it).
Config with_aiter_defaults(Config c, bool kpack);

} // namespace tv
