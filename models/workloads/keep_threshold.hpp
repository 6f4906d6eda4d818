#pragma once
/// A keep threshold like GEKO's: of a weighted workload, keep the shapes that make up a given
/// share of the estimated total runtime and drop the long tail.
#include "ir/shape.hpp"
#include "models/gpu.hpp"

#include <cstddef>
#include <string>
#include <vector>

namespace tv {

/// The shapes kept and what they stand for.
struct KeepResult {
  std::vector<Shape> kept; ///< in their original order
  std::size_t total = 0;   ///< shapes before the threshold
  double share = 1;        ///< the threshold asked for
  double kept_share = 1;   ///< estimated time of the kept shapes / of all shapes

  /// "kept 12 of 40 shapes, 99.3% of the time".
  std::string summary() const;
};

/// Keeps the fewest shapes, in order of decreasing weight x estimated seconds (ties: earlier
/// first), whose weighted times add up to at least `share` of the total, so at least one.
/// `seconds` has one finite time > 0 per shape. Throws InputError unless 0 < share <= 1, or
/// when no shape has a positive weight.
KeepResult keep_time_share(const std::vector<Shape>& shapes, const std::vector<double>& seconds,
                           double share);
/// The estimate the threshold uses: for each shape, the analytic model's time on `gpu` of the
/// fastest config of its space that launches (the per-shape oracle of the model), so the
/// estimate does not depend on the expert. Shape labels must be unique.
std::vector<double> estimated_seconds(const std::vector<Shape>& shapes, const Gpu& gpu);

} // namespace tv
