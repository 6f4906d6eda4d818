#include "models/workloads/keep_threshold.hpp"

#include "ir/error.hpp"
#include "models/time_table.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <numeric>

namespace tv {

std::string KeepResult::summary() const {
  return fmt::format("kept {} of {} shapes, {:.1f}% of the time", kept.size(), total,
                     100.0 * kept_share);
}

KeepResult keep_time_share(const std::vector<Shape>& shapes, const std::vector<double>& seconds,
                           double share) {
  if (!(share > 0 && share <= 1))
    throw InputError(fmt::format("--keep must be a share of the time in (0, 1], e.g. 0.99; "
                                 "got {}",
                                 share));
  if (seconds.size() != shapes.size())
    throw InputError("keep threshold: one estimated time per shape is needed");
  std::vector<double> cost(shapes.size());
  double total = 0;
  for (std::size_t i = 0; i < shapes.size(); ++i) {
    if (!std::isfinite(seconds[i]) || !(seconds[i] > 0))
      throw InputError(fmt::format("keep threshold: {} has no estimated time", shapes[i].label()));
    cost[i] = shapes[i].weight * seconds[i];
    total += cost[i];
  }
  if (!(total > 0)) throw InputError("keep threshold: every shape has weight zero");

  std::vector<std::size_t> order(shapes.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return cost[a] > cost[b]; });
  std::vector<bool> keep(shapes.size(), false);
  double sum = 0;
  for (std::size_t i : order) {
    // Relative slack so that share 1 keeps every shape despite rounding in the sum.
    if (sum >= share * total * (1 - 1e-12)) break;
    keep[i] = true;
    sum += cost[i];
  }
  KeepResult r;
  r.total = shapes.size();
  r.share = share;
  r.kept_share = sum / total;
  for (std::size_t i = 0; i < shapes.size(); ++i)
    if (keep[i]) r.kept.push_back(shapes[i]);
  return r;
}

std::vector<double> estimated_seconds(const std::vector<Shape>& shapes, const Gpu& gpu) {
  const TimeTable t = build_model_table(shapes, gpu);
  std::vector<double> out(shapes.size());
  for (std::size_t r = 0; r < shapes.size(); ++r)
    out[r] = t.oracle_time(r);
  return out;
}

} // namespace tv
