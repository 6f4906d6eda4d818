#pragma once
/// Timings replayed from recorded measurements: tilevolve's own measurement files
/// (measurement_cache.hpp) or PyTorch Inductor AutoHeuristic matmul datasets
/// (autoheuristic_data.hpp). The format is detected from the first line.
///
/// Semantics:
/// - Several measurements of one pair give their median (of the ok ones). A pair recorded
///   only as failed gives that failure's status, never a time; a pair that ever gave a
///   wrong result is wrong_result whatever else was recorded. A pair not in the file is
///   unmeasured.
/// - AutoHeuristic data was collected through Inductor, which shrinks a config to the shape
///   before launching (inductor_shrink) and records the row under the shrunk config; so a
///   request is shrunk the same way before its row is looked up. A failed row ("inf": all
///   such rows in h100_mm are operand buffers over the 227 KiB shared-memory limit) is
///   reported as unlaunchable. Inductor launched every config with GROUP_M=8, so the
///   request's group does not change which row answers it (time() ignores it), AMD knobs are
///   ignored too, and the table's configs carry group=8. Because TimeTable lookups compare
///   group exactly, cannot_time() asks for group=8: a program that passes the static check
///   then reads the same times from table() as from time().
/// - The config space of an AutoHeuristic file is the set of configs recorded at the keys
///   where Inductor shrinks nothing (every dim's next power of two is at least the largest
///   block of that dim in the file): these are the un-shrunk candidates Inductor tried, e.g.
///   29 configs in h100_mm. (When no key is that large, every recorded config counts.)
///   For our own format it is every config recorded for the GPU, exactly as recorded.
/// - Our version-2 files (written by `--backend measured`) record samples: a request for
///   sample k answers the records of sample k (unmeasured when there are none), so replaying
///   a measured run repeats its noise estimate and its re-measurements exactly. Such a file is
///   the record of a backend that could try any config, so cannot_time() accepts every config
///   (one it never measured comes back unmeasured), noisy() is true and complete_table() false,
///   as for the measured run itself. Its vendor rows give vendor_time(). The rows of one GPU
///   must come from one (device, worker) pair. Files without samples (version 1, AutoHeuristic)
///   answer every sample with their one value.
/// - Read as a table (ReplayFilter::table, `--backend table:FILE`), a version-2 file is what
///   `tilevolve measure` writes: a fixed set of configs timed on every shape. Each pair's
///   samples give one median that answers every sample; the config space is the configs
///   recorded (ok or failed) at every shape of their dtype, and configs recorded at only some
///   shapes are left out (a warning counts them); cannot_time() keeps programs to that space,
///   noisy() is false and complete_table() true, as for AutoHeuristic data.
/// - A shape is keyed by M, N, K, dtype and operand layout (Shape::layout; empty means NN).
///   AutoHeuristic data has rows for all four layouts (NN, NT, TN, TT) of each M, N, K; each is
///   its own key with its own times (a program cannot see the layout, so they are distinct
///   problem instances of one M, N, K). Version 1 of our format records no layout: its rows
///   are NN; version 2 records the layout.
/// - Only the rows of the requested GPU are kept from our format; an AutoHeuristic file
///   whose JSON line gives a shared-memory size must match the profile's per-block limit.
#include "eval/timing_backend.hpp"
#include "models/gpu.hpp"

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

namespace tv {

/// The files a replay path names: "A,B" is the list A, B (several AutoHeuristic files
/// replayed as one); a path naming an existing file is that one file, commas and all.
std::vector<std::string> replay_paths(const std::string& path);

/// Which rows of a replay file to use.
struct ReplayFilter {
  /// Dtypes to keep; empty means the format's default: bf16 and f16 for AutoHeuristic data
  /// (its f32 rows mix TF32 on and off), every dtype for our own format.
  std::vector<DType> dtypes;
  /// AutoHeuristic only: operand layout to keep ("NN" = both row-major, the plain
  /// C = A[M,K] * W[K,N]; "NT" is nn.Linear's x @ W^T with W stored [N,K]; "TN", "TT"), or
  /// "all" for all four (rows with other stride patterns are never kept).
  std::string layout = "all";
  /// AutoHeuristic only: for f32 rows, keep those measured with TF32 on (true) or off.
  bool tf32 = false;
  /// Our version-2 format only: read the file as a complete table (see the semantics above)
  /// rather than as the record of one measured run. Other formats are tables already.
  bool table = false;
};

/// Replays a recorded file as a timing backend.
class ReplayBackend : public TimingBackend {
public:
  /// Loads `path` (format auto-detected; a comma-separated list of AutoHeuristic files, see
  /// replay_paths) keeping the rows `filter` selects, for `gpu`. Throws InputError for an
  /// unreadable or malformed file, a list holding a file of our own format, a layout other
  /// than all, NN, NT, TN or TT, a file that does not match the GPU, or a filter that keeps
  /// no rows.
  ReplayBackend(const std::string& path, const ReplayFilter& filter, const Gpu& gpu);

  /// "replay:PATH (gpu)", or "table:PATH (gpu)" for a file read as a table.
  std::string name() const override;
  /// The recorded answer for each request (see the semantics above); never throws.
  std::vector<Measurement> time(const std::vector<TimingRequest>& batch) override;
  /// Why `c` is outside the recorded space for `d` (group not 8 on AutoHeuristic data, no
  /// record, or only failed records), or nullopt.
  std::optional<std::string> cannot_time(const Config& c, DType d) const override;
  /// The space's configs over `shapes`, +inf where a pair is unmeasured or failed; agrees
  /// with time() for sample 0 (AMD knobs ignored in lookups for AutoHeuristic data).
  TimeTable table(const std::vector<Shape>& shapes) override;
  /// "cuBLAS, recorded", or "torch.matmul on DEVICE, recorded" for a version-2 file.
  std::string vendor_label() const override;
  /// True for a version-2 file replayed as a run (a record of real, noisy measurements with
  /// samples).
  bool noisy() const override { return v2_; }
  /// False for a version-2 file replayed as a run: its table holds what one run happened to
  /// measure.
  bool complete_table() const override { return !v2_; }

  /// True when the file is an AutoHeuristic dataset (false: our own format).
  bool autoheuristic() const { return autoheuristic_; }
  /// The config space (sorted; group 8 and no AMD knobs for AutoHeuristic data).
  const std::vector<Config>& configs() const { return space_; }
  /// The distinct shapes of the kept rows, sorted by dtype name, then layout, M, N, K. For
  /// AutoHeuristic data they carry their layout and are named
  /// "<gpu>:<dtype>:<layout>:M<m>:N<n>:K<k>" (e.g. "h100:bf16:NT:M128:N4096:K4096"); for our
  /// format the layout is unspecified and the name lacks it ("h100:bf16:M128:N4096:K4096").
  std::vector<Shape> shapes() const;
  /// Median vendor-library time ("extern_mm" rows) for the shape (by M, N, K, dtype and
  /// layout), if recorded and ok.
  std::optional<double> vendor_time(const Shape& s) const override;
  /// The config that is looked up for `c` on `s`: shrunk to the shape and group/knobs
  /// canonicalised for AutoHeuristic data, `c` itself for our format.
  Config launched_config(const Config& c, const Shape& s) const;
  /// Number of distinct (shape, config, sample) entries with at least one record (samples
  /// other than 0 only in version-2 files).
  std::size_t recorded_pairs() const { return results_.size(); }

private:
  Measurement lookup(const Shape& s, const Config& c, int sample) const;

  std::string path_, source_;
  Gpu gpu_;
  bool autoheuristic_ = false;
  bool v2_ = false;      ///< our format, version 2, replayed as a measured run
  bool table_ = false;   ///< read as a table (`table:FILE`)
  bool layouts_ = false; ///< keys carry their layout (AutoHeuristic data, our version 2)
  std::string device_;   ///< version 2: the device the rows were measured on
  /// One answer per (shape, config, sample).
  std::map<std::tuple<ShapeKey, Config, int>, Measurement> results_;
  std::map<ShapeKey, double> vendor_; ///< median vendor-library time per shape
  std::map<std::pair<ShapeKey, int>, double> vendor_samples_; ///< version 2: re-measurements
  std::vector<Config> space_;
  std::map<DType, std::set<Config>> space_ok_; ///< space configs with an ok time, per dtype
};

} // namespace tv
