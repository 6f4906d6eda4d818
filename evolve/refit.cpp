#include "evolve/refit.hpp"

#include "eval/decision_tree.hpp"
#include "ir/hash.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <set>
#include <tuple>
#include <unordered_map>

namespace tv {

namespace {

/// What the feedback says was measured: per shape the log times of the configs measured on it
/// (column, log time; a later entry for the same column wins) and its best log time.
struct MeasuredTable {
  std::vector<Shape> shapes;
  std::vector<Config> configs; ///< every config measured on some shape, in Config order
  std::vector<std::vector<std::pair<std::uint32_t, double>>> logt;
  std::vector<double> best;
  std::vector<bool> best_from_seconds; ///< per shape: nothing measured, best is f.seconds
};

/// A cheap hash of a config for deduplicating within one refit (one finalizer, not one per
/// field as hash_value(Config) does; nothing depends on its values beyond bucket placement).
struct QuickConfigHash {
  std::size_t operator()(const Config& c) const {
    auto opt = [](const std::optional<int>& o) {
      return o ? std::uint64_t(std::uint32_t(*o)) + 1 : 0;
    };
    std::uint64_t h = 0;
    for (std::uint64_t v :
         {std::uint64_t(std::uint32_t(c.BM)), std::uint64_t(std::uint32_t(c.BN)),
          std::uint64_t(std::uint32_t(c.BK)), std::uint64_t(std::uint32_t(c.warps)),
          std::uint64_t(std::uint32_t(c.stages)), std::uint64_t(std::uint32_t(c.group)),
          opt(c.waves_per_eu), opt(c.matrix_instr_nonkdim), opt(c.kpack), std::uint64_t(c.vendor)})
      h = h * 0x100000001b3ULL + v;
    return std::size_t(hash_mix(h, 0));
  }
};

std::optional<MeasuredTable> measured_table(const std::vector<ShapeFeedback>& feedback) {
  MeasuredTable t;
  // The distinct configs in first-seen order (one hash lookup per measured pair), then their
  // columns in Config order (what a std::map of them would give).
  std::unordered_map<Config, std::uint32_t, QuickConfigHash> seen;
  std::vector<const Config*> distinct;
  std::vector<std::uint32_t> first_seen; // per kept pair, in feedback order
  for (const ShapeFeedback& f : feedback)
    for (const auto& [secs, c] : f.measured)
      if (std::isfinite(secs) && secs > 0) {
        const auto [it, fresh] = seen.try_emplace(c, std::uint32_t(distinct.size()));
        if (fresh) distinct.push_back(&it->first);
        first_seen.push_back(it->second);
      }
  if (distinct.empty()) return std::nullopt;
  std::vector<std::uint32_t> order(distinct.size());
  for (std::uint32_t k = 0; k < order.size(); ++k)
    order[k] = k;
  std::sort(order.begin(), order.end(),
            [&](std::uint32_t a, std::uint32_t b) { return *distinct[a] < *distinct[b]; });
  std::vector<std::uint32_t> column(distinct.size());
  t.configs.reserve(distinct.size());
  for (std::uint32_t k = 0; k < order.size(); ++k) {
    column[order[k]] = k;
    t.configs.push_back(*distinct[order[k]]);
  }
  t.logt.resize(feedback.size());
  t.shapes.reserve(feedback.size());
  std::size_t pair = 0;
  for (std::size_t i = 0; i < feedback.size(); ++i) {
    const ShapeFeedback& f = feedback[i];
    t.shapes.push_back(f.shape);
    double b = std::numeric_limits<double>::infinity();
    for (const auto& [secs, c] : f.measured)
      if (std::isfinite(secs) && secs > 0) {
        b = std::min(b, secs);
        t.logt[i].emplace_back(column[first_seen[pair++]], std::log(secs));
      }
    t.best_from_seconds.push_back(!std::isfinite(b));
    if (!std::isfinite(b)) b = f.seconds;
    t.best.push_back(std::isfinite(b) && b > 0 ? std::log(b) : 1e3);
  }
  return t;
}

/// The last table measured_table built on this thread and the feedback it was built from.
/// Requests made between two measurements share their lists (MeasuredConfigs), so the mock
/// LLM's refits and refit validation's folds mostly rebuild the same table. The cache holds
/// the lists it was built from, so a matching list is the same list, never a new one at a
/// freed address.
struct MeasuredTableCache {
  bool built = false;
  std::vector<MeasuredConfigs> lists;
  std::vector<Shape> shapes;
  std::vector<double> seconds;
  std::optional<MeasuredTable> table;

  /// Whether `feedback` gives the table this cache holds: the same lists, the same shapes,
  /// and the same parent times where a shape has nothing measured (measured_table uses them).
  bool matches(const std::vector<ShapeFeedback>& feedback) const {
    if (!built || feedback.size() != lists.size()) return false;
    for (std::size_t i = 0; i < feedback.size(); ++i) {
      const ShapeFeedback& f = feedback[i];
      if (!lists[i].same_list(f.measured) || !(shapes[i] == f.shape)) return false;
      const bool uses_seconds = !table || table->best_from_seconds[i];
      if (uses_seconds && !(seconds[i] == f.seconds)) return false;
    }
    return true;
  }
};

const std::optional<MeasuredTable>&
cached_measured_table(const std::vector<ShapeFeedback>& feedback) {
  thread_local MeasuredTableCache cache;
  if (!cache.matches(feedback)) {
    cache.table = measured_table(feedback);
    cache.lists.clear();
    cache.shapes.clear();
    cache.seconds.clear();
    for (const ShapeFeedback& f : feedback) {
      cache.lists.push_back(f.measured);
      cache.shapes.push_back(f.shape);
      cache.seconds.push_back(f.seconds);
    }
    cache.built = true;
  }
  return cache.table;
}

double weight_of(const Shape& s) {
  return s.weight > 0 ? s.weight : 0.0;
}

/// The tree fitted on the shapes `choice.use` marks (all when empty); with `each`, the trees
/// of 1 to choice.max_leaves leaves (fit_tree_sequence). Empty when no shape takes part.
std::vector<Program> fit(const MeasuredTable& t, const RefitChoice& choice, bool each) {
  const std::vector<bool>& use = choice.use;
  const std::size_t cols = t.configs.size();
  const double log_penalty = std::log(std::max(1.0 + 1e-9, choice.penalty));
  std::vector<Shape> shapes;
  std::vector<double> cost;
  cost.reserve(t.shapes.size() * cols);
  for (std::size_t i = 0; i < t.shapes.size(); ++i) {
    if (!use.empty() && !(i < use.size() && use[i])) continue;
    shapes.push_back(t.shapes[i]);
    const double w = weight_of(t.shapes[i]);
    // An unmeasured pair costs the shape's best time times the penalty; measured ones their own.
    const std::size_t row = cost.size();
    cost.resize(row + cols, w * (t.best[i] + log_penalty));
    for (const auto& [c, v] : t.logt[i])
      cost[row + c] = w * v;
  }
  if (shapes.empty()) return {};
  TreeOptions o;
  o.max_leaves = choice.max_leaves;
  o.min_leaf_shapes = choice.min_leaf_shapes;
  o.features = choice.features;
  o.round_thresholds_units = choice.units;
  o.lookahead = choice.lookahead;
  if (each) return fit_tree_sequence(shapes, t.configs, cost, o);
  return {fit_tree(shapes, t.configs, cost, o)};
}

} // namespace

std::optional<Program> refit_program(const std::vector<ShapeFeedback>& feedback,
                                     const RefitChoice& choice) {
  const auto& t = cached_measured_table(feedback);
  if (!t) return std::nullopt;
  auto trees = fit(*t, choice, false);
  if (trees.empty()) return std::nullopt;
  return std::move(trees.back());
}

std::vector<Program> refit_sequence(const std::vector<ShapeFeedback>& feedback,
                                    const RefitChoice& choice) {
  const auto& t = cached_measured_table(feedback);
  if (!t) return {};
  return fit(*t, choice, true);
}

} // namespace tv
