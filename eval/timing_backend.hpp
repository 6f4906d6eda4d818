#pragma once
/// One interface for every source of timings: the analytic model, recorded measurements
/// (replay), and live measurement on a GPU. The evaluator and evolution only see this.
#include "eval/measurement.hpp"
#include "ir/config.hpp"
#include "ir/shape.hpp"
#include "models/time_table.hpp"

#include <optional>
#include <string>
#include <vector>

namespace tv {

/// One pair to time.
struct TimingRequest {
  Shape shape;
  Config config;
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
  /// backend has none (the default). Baselines show it beside the heuristics.
  virtual std::optional<double> vendor_time(const Shape&) const { return std::nullopt; }
};

} // namespace tv
