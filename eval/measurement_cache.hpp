#pragma once
/// tilevolve's own file of recorded measurements: line-oriented and versioned, so a live
/// measurement backend can append one line per timed pair and the replay backend can read it.
///
/// Format version 2 (written by `--backend measured` and `tilevolve measure`):
///   # tilevolve-measurements v2
///   gpu,device,worker,M,N,K,dtype,layout,kernel,BM,BN,BK,warps,stages,group,waves_per_eu,matrix_instr_nonkdim,kpack,sample,status,seconds,max_rel_error,detail
///   h100,NVIDIA H200,tilevolve-triton-worker
///   1,128,4096,4096,bf16,NN,triton,128,128,64,4,3,8,,,,0,ok,1.234e-05,0.0031, h100,NVIDIA
///   H200,tilevolve-triton-worker 1,128,4096,4096,bf16,NN,vendor,,,,,,,,,,0,ok,1.1e-05,0,
/// - gpu is the profile the run used (its config space and analytic model); device and worker
///   are what the worker reported at hello (device name; worker name and version). A record's
///   key is (gpu, device, worker, M, N, K, dtype, layout, kernel, config, sample): a pair is
///   never measured twice for one key.
/// - layout is NN, NT, TN or TT (operand A then B, 'T' = stored transposed).
/// - kernel is `triton` (the config columns give its tile) or `vendor` (the vendor library,
///   torch.matmul = cuBLAS or hipBLASLt, for that shape; every config column is empty).
/// - sample 0 is a pair's first measurement; 1, 2, ... are independent re-measurements asked
///   for on purpose (the noise estimate, confirming a new best).
/// - max_rel_error is the largest relative error against the reference (empty if unknown).
/// - A last line without a newline that does not parse was torn by a kill mid-write: it is
///   skipped with a warning. Any other malformed line is an error.
///
/// Format version 1 (still read): no device, worker, layout, kernel, sample or max_rel_error:
///   # tilevolve-measurements v1
///   gpu,M,N,K,dtype,BM,BN,BK,warps,stages,group,waves_per_eu,matrix_instr_nonkdim,kpack,status,seconds,detail
///   h100,128,4096,4096,bf16,128,128,64,4,3,8,,,,ok,1.234e-05,
///   mi300x,1,4096,4096,bf16,256,256,64,4,2,8,2,16,2,unlaunchable,,LDS 131072 > 65536
///
/// In both, AMD knobs are empty when unset; status is a status_name(); seconds is empty unless
/// the status is ok; text fields are CSV-quoted ("...", "" for a quote) when they hold a comma
/// or a quote. Blank lines and further `#` lines are ignored. A key may appear many times.
#include "eval/measurement.hpp"
#include "ir/config.hpp"
#include "ir/shape.hpp"

#include <optional>
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
/// The first line of every version-2 file.
inline constexpr std::string_view kMeasurementCacheV2Line = "# tilevolve-measurements v2";
/// The column header of version 2 (the second line).
inline constexpr std::string_view kMeasurementCacheV2Header =
    "gpu,device,worker,M,N,K,dtype,layout,kernel,BM,BN,BK,warps,stages,group,waves_per_eu,"
    "matrix_instr_nonkdim,kpack,sample,status,seconds,max_rel_error,detail";

/// One recorded timing of one (shape, config) pair, or of the vendor library on a shape.
struct MeasurementRecord {
  std::string gpu;     ///< GPU profile name, e.g. "h100"
  std::string device;  ///< device name the worker reported (version 2; empty in version 1)
  std::string worker;  ///< worker name and version (version 2; empty in version 1)
  Shape shape;         ///< M, N, K, dtype and layout (name and weight are not stored)
  bool vendor = false; ///< the vendor library's time (`config` is then vendor_config())
  Config config;
  int sample = 0;     ///< 0 = first measurement; k = the k-th re-measurement (version 2)
  Measurement result; ///< status, seconds (+inf unless ok) and detail
  std::optional<double> max_rel_error; ///< version 2, when the worker reported it
  /// Field-wise equality (times compare exactly; +inf equals +inf).
  friend bool operator==(const MeasurementRecord& a, const MeasurementRecord& b);
};

/// What a file's lines hold: its version and the records.
struct MeasurementFile {
  int version = 0;
  std::vector<MeasurementRecord> records;
  std::vector<std::string> warnings; ///< e.g. a torn last line that was skipped
  std::size_t complete_bytes = 0;    ///< bytes up to and including the last newline
};

/// True when `first_line` starts like a tilevolve measurement file (any version).
bool is_measurement_cache(std::string_view first_line);
/// Parses a whole file of either version; throws InputError "<source>:<line>: what was
/// expected" for a missing or unsupported version line, a wrong header, a wrong field count, a
/// bad number, an unknown dtype, layout, kernel or status, ok without a time, a time with a
/// failure status, a time that is not positive and finite or not a plausible kernel time, or a
/// text field (gpu, device, worker, detail) holding a control character other than a tab. In
/// version 2 a last line with no newline that does not parse is skipped with a warning instead.
MeasurementFile parse_measurement_file(std::string_view text, std::string_view source);
/// The records of parse_measurement_file (warnings dropped).
std::vector<MeasurementRecord> parse_measurement_cache(std::string_view text,
                                                       std::string_view source);
/// Parses the records of version-2 `lines` (complete lines after the header, from line number
/// `first_line`); throws InputError like parse_measurement_file.
std::vector<MeasurementRecord> parse_v2_lines(std::string_view lines, std::string_view source,
                                              int first_line);
/// Reads and parses a file; throws InputError if it cannot be read.
MeasurementFile load_measurement_file(const std::string& path);
/// The records of load_measurement_file; warnings are printed to stderr (print_warnings_once).
std::vector<MeasurementRecord> load_measurement_cache(const std::string& path);
/// Prints each of `file`'s warnings to stderr, "tilevolve: warning: ...", unless this process
/// printed the same warning before: a file read twice (the replay device's profile, then the
/// backend) warns about its torn last line once.
void print_warnings_once(const MeasurementFile& file);
/// The version-1 CSV line of `r`, without a newline (newlines in the detail become spaces;
/// seconds are written in the shortest form that reads back exactly).
std::string format_record(const MeasurementRecord& r);
/// The version-2 CSV line of `r`, without a newline.
std::string format_record_v2(const MeasurementRecord& r);

/// Everything recorded for one key, reduced to one answer the way replay reads it: a
/// wrong_result if one ever happened, else the median of the ok times, else the last failure.
/// Records that say "unmeasured" add nothing.
class MeasurementSummary {
public:
  /// Adds one recorded result.
  void add(const Measurement& m);
  /// True when nothing (but unmeasured) was added.
  bool empty() const { return ok_.empty() && last_failure_ == MeasureStatus::unmeasured; }
  /// The answer (unmeasured when empty).
  Measurement result() const;

private:
  std::vector<double> ok_;
  bool wrong_result_ = false;
  MeasureStatus last_failure_ = MeasureStatus::unmeasured;
  std::string failure_detail_;
};

/// Appends `r` as one version-1 line to `path` and flushes, first writing the version and
/// header lines when the file is missing or empty. Throws InputError when the file cannot be
/// written or does not start with the version-1 line. (Version-2 files are appended by
/// MeasurementStore, which locks them.)
void append_record(const std::string& path, const MeasurementRecord& r);

} // namespace tv
