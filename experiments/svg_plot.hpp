#pragma once
/// Plots drawn with our own SVG writer: line plots with median/range bands and categorical
/// plots (grouped bars or dots), with axes, ticks, labels and a legend. Non-finite values
/// are skipped and degenerate ranges (one point, all values equal, no data) are widened, so
/// the output never contains NaN or infinity.
#include <optional>
#include <string>
#include <vector>

namespace tv {

/// One line of a line plot, optionally with a band (lo..hi at each x) drawn beneath it.
struct LineSeries {
  std::string name;
  std::vector<double> x, y;
  std::vector<double> lo, hi; ///< band edges, same length as x; empty = no band
  bool dashed = false;
};

/// A line plot over numeric x and y axes.
struct LinePlot {
  std::string title, x_label, y_label;
  std::vector<LineSeries> series;
  std::string no_data = "no data"; ///< shown when there is nothing to draw
  double width = 800, height = 460;
};

/// A categorical plot: one value per (series, category).
struct CategoryPlot {
  std::string title, y_label;
  std::vector<std::string> categories;
  std::vector<std::string> series;         ///< series names (one colour each)
  std::vector<std::vector<double>> values; ///< values[series][category]; non-finite = missing
  bool dots = false;                       ///< dots instead of grouped bars
  bool log_y = false;                      ///< logarithmic y axis (values <= 0 are skipped)
  bool value_labels = false;               ///< print each bar's value above it
  std::optional<double> reference;         ///< dashed horizontal line at this y (e.g. 1)
  double width = 0;                        ///< 0 = from the number of categories
  double height = 460;                     ///< of the plot area and title; labels add to it
  std::string no_data = "no data";         ///< shown when there is nothing to draw
};

/// Tick positions for [lo, hi]: 1-2-5 steps (about `count` of them) on a linear axis,
/// powers of ten on a log axis (lo > 0 required there). Never empty for finite lo <= hi.
std::vector<double> axis_ticks(double lo, double hi, bool log, int count = 6);
/// A tick label: integers with thousands separators, otherwise as few decimals as the step
/// needs.
std::string tick_label(double v, double step);
/// The plot as a standalone SVG document.
std::string render_svg(const LinePlot& plot);
/// The plot as a standalone SVG document.
std::string render_svg(const CategoryPlot& plot);

} // namespace tv
