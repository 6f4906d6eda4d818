#include "evolve/refit.hpp"

#include "eval/decision_tree.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <tuple>

namespace tv {

namespace {

/// What the feedback says was measured: log times of shapes x configs (NaN where unmeasured)
/// and each shape's best log time.
struct MeasuredTable {
  std::vector<Shape> shapes;
  std::vector<Config> configs; ///< every config measured on some shape, in Config order
  std::vector<double> logt, best;

  double at(std::size_t i, std::size_t c) const { return logt[i * configs.size() + c]; }
  /// Column of `c`, which must be one of `configs`.
  std::size_t column(const Config& c) const {
    return std::size_t(std::lower_bound(configs.begin(), configs.end(), c) - configs.begin());
  }
};

std::optional<MeasuredTable> measured_table(const std::vector<ShapeFeedback>& feedback) {
  MeasuredTable t;
  // The distinct configs, sorted (what a std::map would hold, without a node per pair).
  std::vector<const Config*> all;
  for (const ShapeFeedback& f : feedback)
    for (const auto& [secs, c] : f.measured)
      if (std::isfinite(secs) && secs > 0) all.push_back(&c);
  if (all.empty()) return std::nullopt;
  std::sort(all.begin(), all.end(), [](const Config* a, const Config* b) { return *a < *b; });
  t.configs.reserve(all.size());
  for (const Config* c : all)
    if (t.configs.empty() || t.configs.back() != *c) t.configs.push_back(*c);
  const std::size_t cols = t.configs.size();
  t.logt.assign(feedback.size() * cols, std::numeric_limits<double>::quiet_NaN());
  t.shapes.reserve(feedback.size());
  for (std::size_t i = 0; i < feedback.size(); ++i) {
    const ShapeFeedback& f = feedback[i];
    t.shapes.push_back(f.shape);
    double b = std::numeric_limits<double>::infinity();
    for (const auto& [secs, c] : f.measured)
      if (std::isfinite(secs) && secs > 0) {
        b = std::min(b, secs);
        t.logt[i * cols + t.column(c)] = std::log(secs);
      }
    if (!std::isfinite(b)) b = f.seconds;
    t.best.push_back(std::isfinite(b) && b > 0 ? std::log(b) : 1e3);
  }
  return t;
}

double weight_of(const Shape& s) {
  return s.weight > 0 ? s.weight : 0.0;
}

/// The tree fitted on the shapes `use` marks (all when empty).
std::optional<Program> fit(const MeasuredTable& t, const std::vector<bool>& use,
                           const RefitChoice& choice) {
  const std::size_t cols = t.configs.size();
  const double log_penalty = std::log(std::max(1.0 + 1e-9, choice.penalty));
  std::vector<Shape> shapes;
  std::vector<double> cost;
  cost.reserve(t.shapes.size() * cols);
  for (std::size_t i = 0; i < t.shapes.size(); ++i) {
    if (!use.empty() && !(i < use.size() && use[i])) continue;
    shapes.push_back(t.shapes[i]);
    const double w = weight_of(t.shapes[i]);
    for (std::size_t c = 0; c < cols; ++c) {
      const double v = t.at(i, c);
      cost.push_back(w * (std::isnan(v) ? t.best[i] + log_penalty : v));
    }
  }
  if (shapes.empty()) return std::nullopt;
  TreeOptions o;
  o.max_leaves = choice.max_leaves;
  o.min_leaf_shapes = choice.min_leaf_shapes;
  o.features = choice.features;
  o.round_thresholds_units = choice.units;
  return fit_tree(shapes, t.configs, cost, o);
}

} // namespace

std::optional<Program> refit_program(const std::vector<ShapeFeedback>& feedback,
                                     const RefitChoice& choice) {
  const auto t = measured_table(feedback);
  if (!t) return std::nullopt;
  return fit(*t, choice.use, choice);
}

} // namespace tv
