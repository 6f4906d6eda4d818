#include "experiments/figures.hpp"

#include "experiments/curve.hpp"
#include "experiments/svg_plot.hpp"

#include <cmath>
#include <fmt/format.h>

namespace tv {

std::string score_curve_svg(const std::string& title, const std::vector<CurveGroup>& groups,
                            const std::vector<std::pair<std::string, double>>& references,
                            long long budget, const FigureWords& words) {
  LinePlot plot;
  plot.title = title;
  plot.x_label = words.programs_proposed;
  plot.y_label = words.best_train_speedup;
  plot.no_data = words.no_data;
  const auto grid = curve_grid(budget);
  for (const auto& g : groups) {
    const CurveBand b = curve_band(g.runs, grid);
    LineSeries s;
    s.name = g.runs.size() > 1
                 ? fmt::format(fmt::runtime(words.median_band), fmt::arg("name", g.name),
                               fmt::arg("seeds", g.runs.size()))
                 : g.name;
    s.x = b.x;
    s.y = b.median;
    if (g.runs.size() > 1) {
      s.lo = b.lo;
      s.hi = b.hi;
    }
    plot.series.push_back(std::move(s));
  }
  for (const auto& [name, value] : references) {
    LineSeries s;
    s.name = name;
    s.x = {0.0, double(std::max(0LL, budget))};
    s.y = {value, value};
    s.dashed = true;
    plot.series.push_back(std::move(s));
  }
  return render_svg(plot);
}

std::string shape_speedup_svg(const std::string& title, const Scorer& scorer,
                              const std::vector<std::pair<std::string, Program>>& programs,
                              const FigureWords& words) {
  CategoryPlot plot;
  plot.title = title;
  plot.y_label = words.speedup;
  plot.no_data = words.no_data;
  plot.dots = true;
  plot.reference = 1.0;
  for (auto r : scorer.rows())
    plot.categories.push_back(scorer.table().shapes()[r].label());
  const auto& expert = scorer.expert_times();
  auto ratio = [&](const std::vector<double>& t) {
    std::vector<double> v(t.size());
    for (std::size_t i = 0; i < t.size(); ++i)
      v[i] = expert[i] / t[i]; // inf time -> 0
    return v;
  };
  plot.series.push_back(words.expert);
  plot.values.push_back(std::vector<double>(expert.size(), 1.0));
  for (const auto& [name, p] : programs) {
    plot.series.push_back(name);
    plot.values.push_back(ratio(scorer.program_times(p)));
  }
  plot.series.push_back(words.oracle);
  plot.values.push_back(ratio(scorer.oracle_times()));
  return render_svg(plot);
}

std::string cost_svg(const std::string& title,
                     const std::vector<std::pair<std::string, double>>& bars,
                     const FigureWords& words) {
  CategoryPlot plot;
  plot.title = title;
  plot.y_label = words.kernel_runs_log;
  plot.no_data = words.no_data;
  plot.log_y = true;
  plot.value_labels = true;
  plot.width = 720;
  plot.series = {words.kernel_runs};
  plot.values.resize(1);
  for (const auto& [name, v] : bars) {
    plot.categories.push_back(name);
    plot.values[0].push_back(v);
  }
  return render_svg(plot);
}

} // namespace tv
