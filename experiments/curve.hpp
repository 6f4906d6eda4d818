#pragma once
/// The best-so-far curve of a run (best train score against programs proposed), rebuilt from
/// its improvements, and its median and range over several runs.
#include "evolve/evolution.hpp"

#include <vector>

namespace tv {

/// Best train score after `programs` proposed programs: the score of the last improvement at
/// or before that count (the seed counts as program 0); NaN when there is none.
double best_after(const std::vector<Improvement>& improvements, long long programs);
/// Program counts to sample a curve at: 0 and `budget` always, at most `max_points` in all,
/// increasing.
std::vector<long long> curve_grid(long long budget, int max_points = 400);

/// Median and min-max of several runs' curves at each grid point.
struct CurveBand {
  std::vector<double> x, median, lo, hi;
};

/// The band of `runs` over `grid`.
CurveBand curve_band(const std::vector<const EvolutionResult*>& runs,
                     const std::vector<long long>& grid);

} // namespace tv
