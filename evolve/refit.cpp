#include "evolve/refit.hpp"

#include "eval/decision_tree.hpp"
#include "ir/hash.hpp"
#include "models/analytic_model.hpp"

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

/// The analytic model's view of a measured table on one device.
struct ModelView {
  /// Per shape, the measured pairs the model orders alike and the other way.
  std::vector<long long> concordant, discordant;
  /// Per shape and column (the table's layout): the model's log slowdown of the config against
  /// the fastest of the table's configs on that shape; where the model cannot launch it, the
  /// median of the shape's others (no opinion either way); 0 on a shape it launches none of.
  /// Empty until a refit leans on the model.
  std::vector<double> prior;
};

/// The model's log time of each config on each shape of `shapes` (+infinity where it cannot
/// launch and for a vendor call), by config: a run refits on the same training shapes over and
/// over, with a few more configs measured each time, so each config is modelled once per thread and
/// device.
struct ModelMemo {
  std::optional<Gpu> gpu;
  std::vector<Shape> shapes;
  std::unordered_map<Config, std::vector<double>, QuickConfigHash> logt;

  /// Empties the memo unless it is of the shapes `on` and the device `g`.
  void keep_for(const std::vector<Shape>& on, const Gpu& g) {
    if (gpu && *gpu == g && shapes == on) return;
    gpu = g;
    shapes = on;
    logt.clear();
  }
  /// The model's log times of `c` on the shapes (after keep_for).
  const std::vector<double>& of(const Config& c) {
    auto [it, fresh] = logt.try_emplace(c);
    if (fresh) {
      it->second.reserve(shapes.size());
      for (const Shape& s : shapes) {
        // A vendor call's kernels are the library's own: the model has no time for them.
        const double t = c.vendor ? 0.0 : model_time(s, c, *gpu);
        it->second.push_back(std::isfinite(t) && t > 0 ? std::log(t)
                                                       : std::numeric_limits<double>::infinity());
      }
    }
    return it->second;
  }
};

/// The agreement counts of `view`, built from the table and the model's log times `model`
/// (per column, per shape).
void count_agreement(const MeasuredTable& t, const std::vector<const std::vector<double>*>& model,
                     ModelView& view) {
  view.concordant.assign(t.shapes.size(), 0);
  view.discordant.assign(t.shapes.size(), 0);
  std::vector<std::pair<std::uint32_t, double>> pairs;
  for (std::size_t i = 0; i < t.shapes.size(); ++i) {
    // The shape's measured columns, a later entry for the same column winning (as in fit()).
    pairs.clear();
    for (auto it = t.logt[i].rbegin(); it != t.logt[i].rend(); ++it)
      if (std::none_of(pairs.begin(), pairs.end(),
                       [&](const auto& p) { return p.first == it->first; }))
        pairs.push_back(*it);
    for (std::size_t a = 0; a < pairs.size(); ++a) {
      const double ma = (*model[pairs[a].first])[i];
      if (!std::isfinite(ma)) continue;
      for (std::size_t b = a + 1; b < pairs.size(); ++b) {
        const double mb = (*model[pairs[b].first])[i];
        if (!std::isfinite(mb) || ma == mb || pairs[a].second == pairs[b].second) continue;
        ((ma < mb) == (pairs[a].second < pairs[b].second) ? view.concordant : view.discordant)[i]++;
      }
    }
  }
}

/// The prior of `view` (see ModelView::prior) from the model's log times `model`.
void build_prior(const MeasuredTable& t, const std::vector<const std::vector<double>*>& model,
                 ModelView& view) {
  const std::size_t cols = t.configs.size();
  view.prior.assign(t.shapes.size() * cols, 0.0);
  std::vector<double> finite;
  for (std::size_t i = 0; i < t.shapes.size(); ++i) {
    finite.clear();
    for (std::size_t c = 0; c < cols; ++c)
      if (std::isfinite((*model[c])[i])) finite.push_back((*model[c])[i]);
    if (finite.empty()) continue;
    const double best = *std::min_element(finite.begin(), finite.end());
    const auto mid = finite.begin() + std::ptrdiff_t(finite.size() / 2);
    std::nth_element(finite.begin(), mid, finite.end());
    const double median = *mid - best;
    for (std::size_t c = 0; c < cols; ++c) {
      const double v = (*model[c])[i];
      view.prior[i * cols + c] = std::isfinite(v) ? v - best : median;
    }
  }
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
  /// The model's view of `table` on `view_gpu` (reset with the table).
  std::optional<Gpu> view_gpu;
  ModelView view;
  ModelMemo memo;

  /// The model's view of the table (which must be built) on `g`; with `prior`, its prior too.
  const ModelView& model_view(const Gpu& g, bool prior) {
    const bool fresh = !view_gpu || !(*view_gpu == g);
    if (!fresh && (!prior || !view.prior.empty())) return view;
    memo.keep_for(table->shapes, g);
    std::vector<const std::vector<double>*> model;
    for (const Config& c : table->configs)
      model.push_back(&memo.of(c));
    if (fresh) {
      view_gpu = g;
      view.prior.clear();
      count_agreement(*table, model, view);
    }
    if (prior) build_prior(*table, model, view);
    return view;
  }

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

/// This thread's cache, holding the table of `feedback`.
MeasuredTableCache& cached_measured_table(const std::vector<ShapeFeedback>& feedback) {
  thread_local MeasuredTableCache cache;
  if (!cache.matches(feedback)) {
    cache.table = measured_table(feedback);
    cache.view_gpu.reset();
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
  return cache;
}

double weight_of(const Shape& s) {
  return s.weight > 0 ? s.weight : 0.0;
}

/// The agreement of the model in `view` over the shapes `use` marks (all when empty).
ModelAgreement agreement_over(const ModelView& view, const std::vector<bool>& use) {
  ModelAgreement a;
  for (std::size_t i = 0; i < view.concordant.size(); ++i)
    if (use.empty() || (i < use.size() && use[i])) {
      a.concordant += view.concordant[i];
      a.discordant += view.discordant[i];
    }
  return a;
}

/// The tree fitted on the shapes `choice.use` marks (all when empty) of the cache's table;
/// with `each`, the trees of 1 to choice.max_leaves leaves (fit_tree_sequence). Empty when no
/// shape takes part.
std::vector<Program> fit(MeasuredTableCache& cache, const RefitChoice& choice, bool each) {
  const MeasuredTable& t = *cache.table;
  const std::vector<bool>& use = choice.use;
  // The model's prior, when the model orders these shapes' measurements well enough.
  const ModelView* view = nullptr;
  if (choice.model && agreement_over(cache.model_view(*choice.model, false), use).trusted())
    view = &cache.model_view(*choice.model, true);
  const std::size_t cols = t.configs.size();
  const double log_penalty = std::log(std::max(1.0 + 1e-9, choice.penalty));
  std::vector<Shape> shapes;
  std::vector<double> cost, prior;
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
    if (view)
      for (std::size_t c = 0; c < cols; ++c)
        prior.push_back(w * view->prior[i * cols + c]);
  }
  if (shapes.empty()) return {};
  TreeOptions o;
  o.max_leaves = choice.max_leaves;
  o.min_leaf_shapes = choice.min_leaf_shapes;
  o.features = choice.features;
  o.round_thresholds_units = choice.units;
  o.lookahead = choice.lookahead;
  o.simplified = choice.simplified;
  if (view) o.prior_shapes = kModelPriorShapes;
  if (each) return fit_tree_sequence(shapes, t.configs, cost, o, prior);
  return {fit_tree(shapes, t.configs, cost, o, prior)};
}

} // namespace

double ModelAgreement::tau() const {
  const long long n = concordant + discordant;
  return n > 0 ? double(concordant - discordant) / double(n) : 0.0;
}

bool ModelAgreement::trusted() const {
  return concordant + discordant > 0 && tau() >= kModelPriorTau;
}

ModelAgreement model_agreement(const std::vector<ShapeFeedback>& feedback, const Gpu& gpu) {
  MeasuredTableCache& cache = cached_measured_table(feedback);
  if (!cache.table) return {};
  return agreement_over(cache.model_view(gpu, false), {});
}

std::optional<Program> refit_program(const std::vector<ShapeFeedback>& feedback,
                                     const RefitChoice& choice) {
  MeasuredTableCache& cache = cached_measured_table(feedback);
  if (!cache.table) return std::nullopt;
  auto trees = fit(cache, choice, false);
  if (trees.empty()) return std::nullopt;
  return std::move(trees.back());
}

std::vector<Program> refit_sequence(const std::vector<ShapeFeedback>& feedback,
                                    const RefitChoice& choice) {
  MeasuredTableCache& cache = cached_measured_table(feedback);
  if (!cache.table) return {};
  return fit(cache, choice, true);
}

} // namespace tv
