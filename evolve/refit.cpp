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
  for (std::size_t i = 0; i < fb.size(); ++i) {
    const ShapeFeedback& f = *fb[i];
    shapes.push_back(f.shape);
    double best = std::numeric_limits<double>::infinity();
    for (const auto& [t, c] : f.measured)
      best = std::min(best, t);
    if (!std::isfinite(best)) best = f.seconds;
    const double w = f.shape.weight > 0 ? f.shape.weight : 0.0;
    const double unmeasured = std::isfinite(best) ? std::log(best) + log_penalty : 1e3;
    for (std::size_t c = 0; c < cols; ++c)
      cost[i * cols + c] = w * unmeasured;
    for (const auto& [t, c] : f.measured)
      if (std::isfinite(t) && t > 0) cost[i * cols + index.at(c)] = w * std::log(t);
  }
  TreeOptions o;
  o.max_leaves = choice.max_leaves;
  o.min_leaf_shapes = choice.min_leaf_shapes;
  o.features = choice.features;
  return fit_tree(shapes, configs, cost, o);
}

} // namespace tv
