#pragma once
/// Median and range of a sample (the summary of a figure over seeds).
#include <cstddef>
#include <limits>
#include <vector>

namespace tv {

/// Median, minimum and maximum of the finite values of a sample.
struct Spread {
  double median = std::numeric_limits<double>::quiet_NaN();
  double min = std::numeric_limits<double>::quiet_NaN();
  double max = std::numeric_limits<double>::quiet_NaN();
  std::size_t n = 0; ///< finite values summarised
};

/// Summary of `values`; non-finite values are ignored (all NaN, n = 0, when none remain).
/// The median of an even count is the mean of the two middle values.
Spread spread(std::vector<double> values);

} // namespace tv
