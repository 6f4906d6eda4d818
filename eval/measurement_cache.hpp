#pragma once
/// tilevolve's own file of recorded measurements: line-oriented and versioned, so a live
/// measurement backend can append one line per timed pair and the replay backend can read it.
///
/// Format (version 1):
///   # tilevolve-measurements v1
///   gpu,M,N,K,dtype,BM,BN,BK,warps,stages,group,waves_per_eu,matrix_instr_nonkdim,kpack,status,seconds,detail
///   h100,128,4096,4096,bf16,128,128,64,4,3,8,,,,ok,1.234e-05,
///   mi300x,1,4096,4096,bf16,256,256,64,4,2,8,2,16,2,unlaunchable,,LDS 131072 > 65536
/// AMD knobs are empty when unset; status is a status_name(); seconds is empty unless the
/// status is ok; gpu and detail are CSV-quoted ("...", "" for a quote) when they hold a comma
/// or a quote. Blank lines and further `#` lines are ignored. A pair may appear many times.
#include "eval/measurement.hpp"
#include "ir/config.hpp"
#include "ir/shape.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace tv {

/// The first line of every version-1 file.
inline constexpr std::string_view kMeasurementCacheVersionLine = "# tilevolve-measurements v1";
/// The column header of version 1 (the second line).
inline constexpr std::string_view kMeasurementCacheHeader =
    "gpu,M,N,K,dtype,BM,BN,BK,warps,stages,group,waves_per_eu,matrix_instr_nonkdim,kpack,"
    "status,seconds,detail";

/// One recorded timing of one (shape, config) pair on one GPU.
struct MeasurementRecord {
  std::string gpu; ///< GPU profile name, e.g. "h100"
  Shape shape;     ///< M, N, K and dtype (name and weight are not stored)
  Config config;
  Measurement result; ///< status, seconds (+inf unless ok) and detail
  /// Field-wise equality (times compare exactly; +inf equals +inf).
  friend bool operator==(const MeasurementRecord& a, const MeasurementRecord& b);
};

/// True when `first_line` starts like a tilevolve measurement file (any version).
bool is_measurement_cache(std::string_view first_line);
/// Parses a whole file; throws InputError "<source>:<line>: what was expected" for a missing
/// or unsupported version line, a wrong header, a wrong field count, a bad number, an unknown
/// dtype or status, ok without a time, a time with a failure status, a time that is not
/// positive and finite or not a plausible kernel time, or a gpu or detail field holding a
/// control character (other than a tab).
std::vector<MeasurementRecord> parse_measurement_cache(std::string_view text,
                                                       std::string_view source);
/// Reads and parses a file; throws InputError if it cannot be read.
std::vector<MeasurementRecord> load_measurement_cache(const std::string& path);
/// The CSV line of `r`, without a newline (newlines in the detail become spaces; seconds are
/// written in the shortest form that reads back exactly).
std::string format_record(const MeasurementRecord& r);
/// Appends `r` as one line to `path` and flushes, first writing the version and header lines
/// when the file is missing or empty. Throws InputError when the file cannot be written or
/// does not start with the version-1 line.
void append_record(const std::string& path, const MeasurementRecord& r);

} // namespace tv
