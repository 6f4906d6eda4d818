#include "eval/timing_backend.hpp"

namespace tv {

std::vector<Measurement> TimingBackend::time_vendor(const std::vector<Shape>& shapes) {
  std::vector<Measurement> out(shapes.size());
  for (std::size_t i = 0; i < shapes.size(); ++i)
    if (const auto t = vendor_time(shapes[i])) {
      out[i].status = MeasureStatus::ok;
      out[i].seconds = *t;
    } else {
      out[i].detail = name() + " has no vendor-library time for " + shapes[i].label();
    }
  return out;
}

} // namespace tv
