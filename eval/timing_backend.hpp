#pragma once
/// One interface for every source of timings: the analytic model, recorded measurements
/// (replay), and live measurement on a GPU. The evaluator and evolution only see this.
#include "eval/measurement.hpp"
#include "ir/config.hpp"
#include "ir/shape.hpp"
#include "models/time_table.hpp"

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace tv {

/// One pair to time.
struct TimingRequest {
  Shape shape;
  Config config;
  /// 0: the pair's first measurement; k > 0: its k-th independent re-measurement (a backend
  /// without noise answers every sample alike).
  int sample{};
};

/// A source of (shape, config) timings.
class TimingBackend {
public:
  virtual ~TimingBackend() = default;
  /// Short description, e.g. "analytic (h100)" or "replay:data/replay/h100_bf16.csv".
  virtual std::string name() const = 0;
  /// One measurement per request, in order. Failures come back as statuses, never throws.
  virtual std::vector<Measurement> time(const std::vector<TimingRequest>& batch) = 0;
  /// Why this backend can never time `c` for dtype `d` (outside its config space), or
  /// nullopt when it can try. Used by the static check before anything is timed.
  virtual std::optional<std::string> cannot_time(const Config& c, DType d) const = 0;
  /// The full table for `shapes` over this backend's config space (+inf where a pair has no
  /// time), for baselines and oracles. Shape labels must be unique.
  virtual TimeTable table(const std::vector<Shape>& shapes) = 0;
  /// The vendor library's time for `s` (e.g. cuBLAS, as recorded), or nullopt when this
  /// backend has none (the default). Baselines show it beside the heuristics. Never measures:
  /// a measuring backend answers what time_vendor() measured.
  virtual std::optional<double> vendor_time(const Shape&) const { return std::nullopt; }
  /// Times the vendor library on each shape: a measuring backend measures what it has not
  /// measured yet, others answer vendor_time() (unmeasured where there is none).
  virtual std::vector<Measurement> time_vendor(const std::vector<Shape>& shapes);
  /// How baselines name the vendor library's figures, e.g. "cuBLAS, recorded".
  virtual std::string vendor_label() const { return "cuBLAS, recorded"; }
  /// True when any shape can be timed, not only those of a table (the analytic model): a run
  /// may then time sizes between its training shapes (evolve/sampled_sizes.hpp).
  virtual bool times_any_shape() const { return false; }
  /// True when measuring a pair again can give another time (real measurements): runs then
  /// estimate the noise first and re-measure a new best before accepting it.
  virtual bool noisy() const { return false; }
  /// True when table() covers the backend's whole config space; false when it holds only
  /// what was measured so far (load_problem then measures the expert on every shape first,
  /// and baselines say "over N measured configs").
  virtual bool complete_table() const { return true; }
  /// What happened while measuring since the last call, one JSON object each (a measuring
  /// backend's worker faults, retries, poison pairs, retired devices), for the run's events
  /// stream; none by default.
  virtual std::vector<nlohmann::json> take_events() { return {}; }
};

} // namespace tv
