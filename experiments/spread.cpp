#include "experiments/spread.hpp"

#include <algorithm>
#include <cmath>

namespace tv {

Spread spread(std::vector<double> values) {
  std::erase_if(values, [](double v) { return !std::isfinite(v); });
  Spread s;
  s.n = values.size();
  if (values.empty()) return s;
  std::sort(values.begin(), values.end());
  const std::size_t h = values.size() / 2;
  s.median = values.size() % 2 ? values[h] : (values[h - 1] + values[h]) / 2;
  s.min = values.front();
  s.max = values.back();
  return s;
}

} // namespace tv
