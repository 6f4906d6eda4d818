#include "eval/analytic_backend.hpp"

#include "models/analytic_model.hpp"
#include "models/launch.hpp"

namespace tv {

std::string AnalyticBackend::name() const {
  return "analytic (" + gpu_.name + ")";
}

std::vector<Measurement> AnalyticBackend::time(const std::vector<TimingRequest>& batch) {
  std::vector<Measurement> out(batch.size());
  for (std::size_t i = 0; i < batch.size(); ++i) {
    if (batch[i].config.vendor) {
      out[i].status = MeasureStatus::unmeasured;
      out[i].detail = *cannot_time(batch[i].config, batch[i].shape.dtype);
      continue;
    }
    if (auto why = launch_problem(batch[i].config, gpu_, batch[i].shape.dtype)) {
      out[i].status = MeasureStatus::unlaunchable;
      out[i].detail = *why;
      continue;
    }
    out[i].status = MeasureStatus::ok;
    out[i].seconds = model_time(batch[i].shape, batch[i].config, gpu_);
  }
  return out;
}

std::optional<std::string> AnalyticBackend::cannot_time(const Config& c, DType) const {
  if (c.vendor)
    return std::string("the analytic model has no model of the vendor library (vendor dispatch "
                       "needs a backend that times it: replay data with vendor rows, or measured)");
  return std::nullopt; // the model times every launchable config
}

TimeTable AnalyticBackend::table(const std::vector<Shape>& shapes) {
  return build_model_table(shapes, gpu_);
}

} // namespace tv
