#include "experiments/curve.hpp"

#include "experiments/spread.hpp"

#include <algorithm>
#include <limits>

namespace tv {

double best_after(const std::vector<Improvement>& improvements, long long programs) {
  double best = std::numeric_limits<double>::quiet_NaN();
  for (const auto& i : improvements)
    if (i.program <= programs && !(i.score <= best)) best = i.score; // first, or higher
  return best;
}

std::vector<long long> curve_grid(long long budget, int max_points) {
  budget = std::max(0LL, budget);
  const long long n = std::max(2, max_points);
  std::vector<long long> g;
  if (budget + 1 <= n) {
    for (long long p = 0; p <= budget; ++p)
      g.push_back(p);
    return g;
  }
  for (long long i = 0; i < n; ++i) {
    const long long p = budget * i / (n - 1);
    if (g.empty() || p > g.back()) g.push_back(p);
  }
  return g;
}

CurveBand curve_band(const std::vector<const EvolutionResult*>& runs,
                     const std::vector<long long>& grid) {
  CurveBand b;
  for (long long p : grid) {
    std::vector<double> v;
    for (const auto* r : runs)
      v.push_back(best_after(r->improvements, p));
    const Spread s = spread(v);
    b.x.push_back(double(p));
    b.median.push_back(s.median);
    b.lo.push_back(s.min);
    b.hi.push_back(s.max);
  }
  return b;
}

} // namespace tv
