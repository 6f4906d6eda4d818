#include "evolve/refit.hpp"

#include "eval/decision_tree.hpp"

#include <cmath>
#include <limits>
#include <map>

namespace tv {

std::optional<Program> refit_program(const std::vector<ShapeFeedback>& feedback,
                                     const RefitChoice& choice) {
  std::vector<const ShapeFeedback*> fb;
  for (std::size_t i = 0; i < feedback.size(); ++i)
    if (choice.use.empty() || (i < choice.use.size() && choice.use[i])) fb.push_back(&feedback[i]);
  if (fb.empty()) return std::nullopt;
  // Candidate configs: every config measured on some shape, in config order.
  std::map<Config, std::size_t> index;
  for (const ShapeFeedback* f : fb)
    for (const auto& [t, c] : f->measured)
      if (std::isfinite(t) && t > 0) index.emplace(c, 0);
  if (index.empty()) return std::nullopt;
  std::vector<Config> configs;
  for (auto& [c, i] : index) {
    i = configs.size();
    configs.push_back(c);
  }
  const std::size_t cols = configs.size();
  std::vector<Shape> shapes;
  std::vector<double> cost(fb.size() * cols);
  const double log_penalty = std::log(std::max(1.0 + 1e-9, choice.penalty));
  // Log time of every measured pair (NaN where unmeasured), and each shape's best.
  const double nan = std::numeric_limits<double>::quiet_NaN();
  std::vector<double> logt(fb.size() * cols, nan), best(fb.size());
  for (std::size_t i = 0; i < fb.size(); ++i) {
    const ShapeFeedback& f = *fb[i];
    shapes.push_back(f.shape);
    double b = std::numeric_limits<double>::infinity();
    for (const auto& [t, c] : f.measured)
      if (std::isfinite(t) && t > 0) {
        b = std::min(b, t);
        logt[i * cols + index.at(c)] = std::log(t);
      }
    if (!std::isfinite(b)) b = f.seconds;
    best[i] = std::isfinite(b) && b > 0 ? std::log(b) : 1e3;
  }
  for (std::size_t i = 0; i < fb.size(); ++i) {
    const double w = shapes[i].weight > 0 ? shapes[i].weight : 0.0;
    for (std::size_t c = 0; c < cols; ++c) {
      const double v = logt[i * cols + c];
      cost[i * cols + c] = w * (std::isnan(v) ? best[i] + log_penalty : v);
    }
  }
  TreeOptions o;
  o.max_leaves = choice.max_leaves;
  o.min_leaf_shapes = choice.min_leaf_shapes;
  o.features = choice.features;
  o.round_thresholds_units = choice.units;
  return fit_tree(shapes, configs, cost, o);
}

} // namespace tv
