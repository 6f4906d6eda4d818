#pragma once
/// The analytic model as a timing backend (the embedded default; needs nothing).
#include "eval/timing_backend.hpp"
#include "models/gpu.hpp"

namespace tv {

/// Times pairs with model_time on one GPU profile; unlaunchable configs come back as such.
class AnalyticBackend : public TimingBackend {
public:
  /// Uses (a copy of) the profile `gpu`.
  explicit AnalyticBackend(Gpu gpu) : gpu_(std::move(gpu)) {}
  std::string name() const override;
  std::vector<Measurement> time(const std::vector<TimingRequest>& batch) override;
  std::optional<std::string> cannot_time(const Config& c, DType d) const override;
  TimeTable table(const std::vector<Shape>& shapes) override;
  bool times_any_shape() const override { return true; }

private:
  Gpu gpu_;
};

/// Whether `b` is the analytic model (whose times are then the model's own).
inline bool is_analytic(const TimingBackend* b) {
  return dynamic_cast<const AnalyticBackend*>(b) != nullptr;
}

} // namespace tv
