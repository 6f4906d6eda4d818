#include "experiments/svg_plot.hpp"

#include "eval/text_table.hpp"
#include "experiments/report.hpp"
#include "experiments/svg.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

namespace tv {

namespace {

constexpr const char* kPalette[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728",
                                    "#9467bd", "#8c564b", "#e377c2", "#7f7f7f"};
constexpr double kLimit = 1e15;    ///< finite values are clamped to +-kLimit before layout
constexpr double kCharWidth = 6.6; ///< rough width of one display column at font size 12

/// `text` cut to at most `columns` display columns, ending in "~" when cut (never inside a
/// UTF-8 character).
std::string shortened(const std::string& text, std::size_t columns) {
  if (display_width(text) <= columns) return text;
  std::string out;
  std::size_t w = 0;
  for (std::size_t i = 0; i < text.size();) {
    std::size_t len = 1;
    while (i + len < text.size() && (static_cast<unsigned char>(text[i + len]) & 0xC0) == 0x80)
      ++len;
    const std::string ch = text.substr(i, len);
    if (w + display_width(ch) > columns - 1) break;
    out += ch;
    w += display_width(ch);
    i += len;
  }
  return out + "~";
}

const char* colour(std::size_t i) {
  return kPalette[i % (sizeof kPalette / sizeof *kPalette)];
}

bool usable(double v, bool log) {
  return std::isfinite(v) && (!log || v > 0);
}

double clamp_value(double v) {
  return std::clamp(v, -kLimit, kLimit);
}

double nice_step(double raw) {
  if (!(raw > 0) || !std::isfinite(raw)) return 1;
  const double p = std::pow(10.0, std::floor(std::log10(raw)));
  const double f = raw / p;
  return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * p;
}

/// A value range widened so that it is never empty and ends on ticks.
struct Range {
  double lo = 0, hi = 1;
};

Range make_range(const std::vector<double>& values, bool log, bool include_zero) {
  double lo = INFINITY, hi = -INFINITY;
  for (double v : values)
    if (usable(v, log)) {
      lo = std::min(lo, clamp_value(v));
      hi = std::max(hi, clamp_value(v));
    }
  if (include_zero && !log) {
    lo = std::min(lo, 0.0);
    hi = std::max(hi, 0.0);
  }
  if (!(lo <= hi)) return log ? Range{1, 10} : Range{0, 1}; // no data
  if (log) {
    lo = std::pow(10.0, std::floor(std::log10(lo)));
    hi = std::pow(10.0, std::ceil(std::log10(hi)));
    if (!(hi > lo)) hi = lo * 10;
    return {lo, hi};
  }
  const double scale = std::max({1e-9, std::abs(lo), std::abs(hi)});
  if (hi - lo < 1e-9 * scale) { // one point or all values equal
    const double d = lo == 0 ? 1 : std::abs(lo) * 0.05;
    lo -= d;
    hi += d;
    if (include_zero && lo < 0 && hi - d >= 0) lo = 0;
  } else {
    const double pad = (hi - lo) * 0.05;
    if (!(include_zero && lo == 0)) lo -= pad;
    hi += pad;
  }
  const double step = nice_step((hi - lo) / 5);
  lo = std::floor(lo / step) * step;
  hi = std::ceil(hi / step) * step;
  if (!(hi > lo)) hi = lo + step;
  return {lo, hi};
}

/// Maps values of a range onto pixels (y grows downwards when p0 > p1).
struct Scale {
  Range r;
  bool log = false;
  double p0 = 0, p1 = 1;
  double operator()(double v) const {
    double t;
    if (log) {
      v = std::max(v, r.lo * 1e-3);
      t = (std::log10(v) - std::log10(r.lo)) / (std::log10(r.hi) - std::log10(r.lo));
    } else {
      t = (clamp_value(v) - r.lo) / (r.hi - r.lo);
    }
    if (!std::isfinite(t)) t = 0;
    t = std::clamp(t, -0.05, 1.05);
    return p0 + t * (p1 - p0);
  }
};

std::string value_label(double v) {
  if (std::abs(v) >= 100) return format_thousands(std::llround(v));
  return tick_label(v, std::abs(v) >= 10 ? 0.1 : 0.001);
}

/// Draws the legend from (x, y) rightwards, wrapping within `width`; returns its height.
double legend(SvgDocument& svg, const std::vector<std::string>& names,
              const std::vector<bool>& dashed, double x0, double y0, double width) {
  double x = x0, y = y0;
  for (std::size_t i = 0; i < names.size(); ++i) {
    const double w = 34 + kCharWidth * double(display_width(names[i])) * 0.95;
    if (x > x0 && x + w > x0 + width) {
      x = x0;
      y += 18;
    }
    svg.line(x, y - 4, x + 22, y - 4, colour(i), 3, i < dashed.size() && dashed[i]);
    svg.text(x + 27, y, names[i], 11.5);
    x += w + 10;
  }
  return names.empty() ? 0 : y - y0 + 18;
}

void y_axis(SvgDocument& svg, const Scale& ys, double left, double right, const std::string& label,
            double top, double bottom) {
  const auto ticks = axis_ticks(ys.r.lo, ys.r.hi, ys.log);
  const double step = ticks.size() > 1 ? ticks[1] - ticks[0] : std::abs(ticks.front());
  for (double t : ticks) {
    const double y = ys(t);
    svg.line(left, y, right, y, "#e4e4e4", 1);
    svg.line(left - 4, y, left, y, "black", 1);
    svg.text(left - 7, y + 4, tick_label(t, ys.log ? t : step), 11, TextAnchor::end);
  }
  svg.line(left, top, left, bottom, "black", 1);
  svg.text(16, (top + bottom) / 2, label, 12, TextAnchor::middle, -90);
}

} // namespace

std::vector<double> axis_ticks(double lo, double hi, bool log, int count) {
  std::vector<double> out;
  if (!std::isfinite(lo) || !std::isfinite(hi)) return {0};
  if (hi < lo) std::swap(lo, hi);
  if (log) {
    if (!(lo > 0)) lo = hi > 0 ? hi / 10 : 1;
    if (!(hi > 0)) hi = lo;
    const int a = int(std::ceil(std::log10(lo) - 1e-9)), b = int(std::floor(std::log10(hi) + 1e-9));
    const int every = std::max(1, (b - a + 1 + 9) / 10);
    for (int e = a; e <= b; e += every)
      out.push_back(std::pow(10.0, e));
    if (out.empty()) out.push_back(lo);
    return out;
  }
  if (hi == lo) return {lo};
  const double step = nice_step((hi - lo) / std::max(1, count - 1));
  const double first = std::ceil(lo / step - 1e-9) * step;
  for (int i = 0; i < 100; ++i) {
    const double v = first + i * step;
    if (v > hi + step * 1e-9) break;
    out.push_back(std::abs(v) < step * 1e-9 ? 0.0 : v);
  }
  if (out.empty()) out.push_back(lo);
  return out;
}

std::string tick_label(double v, double step) {
  if (!std::isfinite(v)) return "";
  step = std::abs(step);
  if (std::abs(v) >= 1000 || (step >= 1 && std::abs(v - std::round(v)) < 1e-9))
    return format_thousands(std::llround(clamp_value(v)));
  int decimals = (step > 0 && std::isfinite(step)) ? int(std::ceil(-std::log10(step) - 1e-9)) : 3;
  decimals = std::clamp(decimals, 0, 6);
  std::string s = fmt::format("{:.{}f}", v, decimals);
  if (s.find_first_not_of("-0.") == std::string::npos)
    s = decimals ? "0." + std::string(std::size_t(decimals), '0') : "0";
  return s;
}

std::string render_svg(const LinePlot& plot) {
  const double width = std::max(300.0, plot.width), height = std::max(200.0, plot.height);
  SvgDocument svg(width, height);
  svg.title(plot.title);
  svg.text(width / 2, 22, plot.title, 15, TextAnchor::middle, 0, true);
  const double left = 72, right = width - 24;
  std::vector<std::string> names;
  std::vector<bool> dashed;
  for (const auto& s : plot.series) {
    names.push_back(s.name);
    dashed.push_back(s.dashed);
  }
  const double top = 40 + legend(svg, names, dashed, left, 44, right - left) + 8;
  const double bottom = height - 50;

  std::vector<double> xs, ys;
  for (const auto& s : plot.series) {
    for (std::size_t i = 0; i < s.x.size() && i < s.y.size(); ++i) {
      if (!std::isfinite(s.x[i])) continue;
      xs.push_back(s.x[i]);
      ys.push_back(s.y[i]);
      if (i < s.lo.size()) ys.push_back(s.lo[i]);
      if (i < s.hi.size()) ys.push_back(s.hi[i]);
    }
  }
  Range xr = make_range(xs, false, false);
  if (!xs.empty()) { // the x axis starts where the data starts
    const double mn = *std::min_element(xs.begin(), xs.end());
    const double mx = *std::max_element(xs.begin(), xs.end());
    if (mx > mn) xr = {clamp_value(mn), clamp_value(mx)};
  }
  const Scale sx{xr, false, left, right};
  const Scale sy{make_range(ys, false, false), false, bottom, top};
  y_axis(svg, sy, left, right, plot.y_label, top, bottom);
  const auto xt = axis_ticks(xr.lo, xr.hi, false);
  const double xstep = xt.size() > 1 ? xt[1] - xt[0] : 1;
  for (double t : xt) {
    svg.line(sx(t), bottom, sx(t), bottom + 4, "black", 1);
    svg.text(sx(t), bottom + 17, tick_label(t, xstep), 11, TextAnchor::middle);
  }
  svg.line(left, bottom, right, bottom, "black", 1);
  svg.text((left + right) / 2, height - 12, plot.x_label, 12, TextAnchor::middle);

  for (std::size_t k = 0; k < plot.series.size(); ++k) {
    const auto& s = plot.series[k];
    const std::size_t n = std::min(s.x.size(), s.y.size());
    if (s.lo.size() == s.x.size() && s.hi.size() == s.x.size()) {
      std::vector<std::pair<double, double>> band;
      for (std::size_t i = 0; i < n; ++i)
        if (std::isfinite(s.x[i]) && std::isfinite(s.hi[i]) && std::isfinite(s.lo[i]))
          band.push_back({sx(s.x[i]), sy(s.hi[i])});
      for (std::size_t i = n; i-- > 0;)
        if (std::isfinite(s.x[i]) && std::isfinite(s.hi[i]) && std::isfinite(s.lo[i]))
          band.push_back({sx(s.x[i]), sy(s.lo[i])});
      svg.polygon(band, colour(k), 0.18);
    }
    std::vector<std::pair<double, double>> pts;
    for (std::size_t i = 0; i < n; ++i)
      if (std::isfinite(s.x[i]) && std::isfinite(s.y[i])) pts.push_back({sx(s.x[i]), sy(s.y[i])});
    if (pts.size() == 1)
      svg.circle(pts[0].first, pts[0].second, 3.5, colour(k));
    else
      svg.polyline(pts, colour(k), 2, s.dashed);
  }
  if (xs.empty())
    svg.text((left + right) / 2, (top + bottom) / 2, plot.no_data, 14, TextAnchor::middle);
  return svg.str();
}

std::string render_svg(const CategoryPlot& plot) {
  const std::size_t C = plot.categories.size(), S = plot.series.size();
  const double left = 72, right_margin = 24;
  double slot = plot.dots ? 20 : double(std::max<std::size_t>(1, S)) * (C > 12 ? 9 : 26) + 14;
  double width =
      plot.width > 0
          ? plot.width
          : std::max(520.0, left + right_margin + double(std::max<std::size_t>(1, C)) * slot);
  width = std::min(width, 20000.0);
  if (C > 0) slot = (width - left - right_margin) / double(C);
  std::size_t longest = 0;
  for (const auto& c : plot.categories)
    longest = std::max(longest, std::min<std::size_t>(display_width(c), 40));
  const bool rotate = double(longest) * kCharWidth * 0.9 > slot;
  const double label_room = rotate ? 24 + 0.72 * double(longest) * kCharWidth * 0.9 : 28;
  const double height = std::max(200.0, plot.height) + label_room;
  SvgDocument svg(width, height);
  svg.title(plot.title);
  svg.text(width / 2, 22, plot.title, 15, TextAnchor::middle, 0, true);
  const double right = width - right_margin;
  // One series needs no legend: the title names it.
  const double top = (S > 1 ? 40 + legend(svg, plot.series, {}, left, 44, right - left) : 30) + 8 +
                     (plot.value_labels ? 12 : 0);
  const double bottom = height - label_room;

  std::vector<double> vals;
  for (const auto& row : plot.values)
    vals.insert(vals.end(), row.begin(), row.end());
  if (plot.reference) vals.push_back(*plot.reference);
  const Scale sy{make_range(vals, plot.log_y, !plot.dots), plot.log_y, bottom, top};
  y_axis(svg, sy, left, right, plot.y_label, top, bottom);
  svg.line(left, bottom, right, bottom, "black", 1);

  const double base = plot.log_y ? bottom : sy(0.0);
  const double bar_w = S ? std::clamp((slot - 10) / double(S), 1.0, 64.0) : 1;
  const double group_pad = (slot - bar_w * double(S)) / 2; // centres each group in its slot
  for (std::size_t c = 0; c < C; ++c) {
    const double x0 = left + double(c) * slot;
    for (std::size_t s = 0; s < S && s < plot.values.size(); ++s) {
      if (c >= plot.values[s].size()) continue;
      const double v = plot.values[s][c];
      if (!usable(v, plot.log_y)) continue;
      const double y = sy(v);
      if (plot.dots) {
        const double jitter = (double(s) - (double(S) - 1) / 2) * std::min(3.0, slot / 8);
        svg.circle(x0 + slot / 2 + jitter, y, 3.5, colour(s));
      } else {
        const double bx = x0 + group_pad + double(s) * bar_w;
        svg.rect(bx, std::min(y, base), bar_w - 1, std::abs(base - y), colour(s));
        if (plot.value_labels)
          svg.text(bx + bar_w / 2, std::min(y, base) - 4, value_label(v), 10, TextAnchor::middle);
      }
    }
    std::string label = plot.categories[c];
    label = shortened(label, 40);
    if (rotate)
      svg.text(x0 + slot / 2 + 3, bottom + 12, label, 10, TextAnchor::end, -45);
    else
      svg.text(x0 + slot / 2, bottom + 16, label, 11, TextAnchor::middle);
  }
  if (plot.reference && usable(*plot.reference, plot.log_y))
    svg.line(left, sy(*plot.reference), right, sy(*plot.reference), "#444444", 1.2, true);
  if (C == 0)
    svg.text((left + right) / 2, (top + bottom) / 2, plot.no_data, 14, TextAnchor::middle);
  return svg.str();
}

} // namespace tv
