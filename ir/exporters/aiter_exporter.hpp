#pragma once
/// The aiter export: the Triton GEMM config file AMD's aiter reads for one (N, K),
/// <device>-GEMM-A16W16-N=<N>-K=<K>.json (format and lookup: aiter_format.hpp).
///
/// Buckets. aiter's getter reads only M_LEQ_<m> / M_GEQ_<m> keys whose m is one of its standard
/// bounds, so the buckets are fixed: the file holds M_LEQ_4, M_LEQ_8, ..., M_LEQ_8192 (every
/// release tries these) and "any" for M above 8192, each with the program's config at (M, N, K);
/// every M from 1 to 8192 gets the program's config exactly when the program's decision at (N, K)
/// is constant inside each bucket. Where it changes inside one, no file can follow it: the bucket
/// holds the config the program gives most of its M values (the larger M on a tie), "any" the
/// config at M = 8193, and the export names the M ranges where aiter's lookup differs.
///
/// Knobs. The AMD knobs the program leaves unset are written as aiter's own gfx942 files write
/// them (waves_per_eu 2, matrix_instr_nonkdim 16, kpack 1); cache_modifier null and NUM_KSPLIT 1,
/// since tilevolve's configs have neither a cache modifier nor split-K.
///
/// Vendor regions. aiter's Triton GEMM cannot call hipBLASLt, and the file has no way to say
/// "vendor": a program that returns "vendor" at (N, K) is refused with the M ranges named, unless
/// a fallback config is given; then the fallback fills those M and the export names them, for a
/// dispatch in front of aiter to route them to hipBLASLt.
#include "ir/exporters/export_info.hpp"
#include "ir/exporters/m_segments.hpp"
#include "ir/program.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tv {

/// What to export.
struct AiterExportOptions {
  std::int64_t N = 0, K = 0; ///< the GEMM (M, N, K) the buckets are for
  std::string device;        ///< the file name's device: "gfx942", "gfx950", "MI300X", ...
  bool kpack = true;         ///< write kpack (aiter's gfx942 files do; gfx950 ignores it)
  std::optional<Config> vendor_fallback; ///< written where the program calls the vendor library
};

/// The exported file and what it means.
struct AiterExport {
  std::string file_name; ///< e.g. "gfx942-GEMM-A16W16-N=4096-K=4096.json"
  std::string json;      ///< the file content
  std::vector<std::string> keys;
  std::vector<Config> configs; ///< as written, knobs filled; parallel to keys
  /// M ranges (M >= 1) where aiter's lookup of the file runs another config than the program
  /// with its unset knobs filled as in the file (the vendor fallback counting as the program's
  /// choice where it calls the vendor library).
  MRanges differs;
  MRanges vendor; ///< M ranges where the program calls the vendor library
  /// Facts the file cannot hold: how its lookup relates to the program, the knobs filled in, the
  /// vendor region, the training range at (N, K), where aiter reads the file.
  std::vector<std::string> notes;
  /// The notes a user must not miss (inexact buckets, vendor region, outside the training
  /// range), to say on the terminal as well.
  std::vector<std::string> warnings;
};

/// The export; throws InputError for bad options and for a vendor decision at (N, K) without a
/// fallback (the message names the M ranges). `training`, when known, adds the M values in the
/// training range at (N, K) to the notes.
AiterExport export_aiter(const Program& p, const AiterExportOptions& o,
                         const std::optional<TrainingRange>& training = std::nullopt);

/// The provenance file written beside the JSON: provenance_lines plus the export's notes.
std::string aiter_provenance_text(const Program& p, const ExportInfo& info, const AiterExport& e);

/// The device name of current aiter releases (the arch) for a tilevolve GPU profile: gfx942 for
/// mi300x and mi325x, gfx950 for mi355x; nullopt for other names.
std::optional<std::string> aiter_device_name(std::string_view gpu_profile);

} // namespace tv
