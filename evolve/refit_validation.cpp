#include "evolve/refit_validation.hpp"

#include "eval/decision_tree.hpp"
#include "evolve/refit.hpp"
#include "ir/hash.hpp"
#include "ir/rng.hpp"
#include "ir/training_range.hpp"

#include <algorithm>
#include <cmath>
#include <exception>
#include <limits>
#include <map>
#include <tuple>

// The charge-by-shape figures of cost-complexity are array code: xtensor here, in the .cpp, so
// no header carries its compile cost.
#include <xtensor/xmath.hpp>
#include <xtensor/xtensor.hpp>
#include <xtensor/xview.hpp>

namespace tv {

std::vector<std::vector<std::size_t>> deal_folds(std::vector<std::size_t> rows, int k,
                                                 std::uint64_t seed) {
  Rng rng(hash_mix(seed, 0x666f6c6473ULL)); // "folds"
  rng.shuffle(rows);
  std::vector<std::vector<std::size_t>> folds(static_cast<std::size_t>(std::max(k, 1)));
  for (std::size_t i = 0; i < rows.size(); ++i)
    folds[i % folds.size()].push_back(rows[i]);
  for (auto& f : folds)
    std::sort(f.begin(), f.end());
  return folds;
}

std::vector<std::vector<std::size_t>> deal_shape_folds(const std::vector<Shape>& shapes, int k,
                                                       std::uint64_t seed, bool group_sizes) {
  const std::size_t n = shapes.size();
  // With group_sizes, folds of sizes, not of shapes: the layouts and dtypes of one (M, N, K)
  // stay together, so a held-out shape's size is unseen.
  std::map<std::tuple<std::int64_t, std::int64_t, std::int64_t>, std::size_t> group_of;
  std::vector<std::vector<std::size_t>> groups;
  for (std::size_t i = 0; i < n; ++i) {
    const Shape& s = shapes[i];
    const auto key = group_sizes
                         ? std::make_tuple(s.M, s.N, s.K)
                         : std::make_tuple(std::int64_t(i), std::int64_t(0), std::int64_t(0));
    const auto [it, fresh] = group_of.try_emplace(key, groups.size());
    if (fresh) groups.emplace_back();
    groups[it->second].push_back(i);
  }
  const int kg = std::min<int>(k, int(groups.size() / 2));
  std::vector<std::vector<std::size_t>> dealt;
  if (kg < 2) return dealt;
  std::vector<std::size_t> ids(groups.size());
  for (std::size_t g = 0; g < groups.size(); ++g)
    ids[g] = g;
  for (const auto& fold : deal_folds(ids, kg, seed)) {
    dealt.emplace_back();
    for (std::size_t g : fold)
      dealt.back().insert(dealt.back().end(), groups[g].begin(), groups[g].end());
  }
  return dealt;
}

std::vector<std::vector<std::size_t>> extreme_folds(const std::vector<Shape>& shapes, int k) {
  const std::size_t n = shapes.size();
  std::vector<std::vector<std::size_t>> out;
  if (k < 2 || n < 4) return out;
  const std::size_t share = std::max<std::size_t>(1, n / std::size_t(k));
  for (int feature = 0; feature < 3; ++feature) {
    const auto value = [&](std::size_t i) {
      const Shape& s = shapes[i];
      return feature == 0 ? s.M : feature == 1 ? s.N : s.K;
    };
    std::vector<std::int64_t> sorted(n);
    for (std::size_t i = 0; i < n; ++i)
      sorted[i] = value(i);
    std::sort(sorted.begin(), sorted.end());
    if (sorted.front() == sorted.back()) continue; // one value: no extremes to hold out
    // The `share` largest values and the `share` smallest, every shape of a tied value with
    // them; a fold of half the shapes or more is no extreme.
    const std::int64_t high = sorted[n - share], low = sorted[share - 1];
    std::vector<std::size_t> top, bottom;
    for (std::size_t i = 0; i < n; ++i) {
      if (value(i) >= high) top.push_back(i);
      if (value(i) <= low) bottom.push_back(i);
    }
    for (auto* fold : {&top, &bottom})
      if (2 * fold->size() < n) out.push_back(std::move(*fold));
  }
  return out;
}

namespace {

/// The log speedup over the expert of choosing `c` on shape `f` by its measurements: the
/// measured time, else the shape's fastest measured time times `penalty`.
double log_speedup(const ShapeFeedback& f, const Config& c, double penalty) {
  double best = std::numeric_limits<double>::infinity();
  for (const auto& [secs, config] : f.measured) {
    if (!(std::isfinite(secs) && secs > 0)) continue;
    if (config == c) return std::log(f.expert_seconds / secs);
    best = std::min(best, secs);
  }
  if (!std::isfinite(best)) best = f.seconds;
  return std::log(f.expert_seconds / (best * penalty));
}

/// The sum over `feedback` (weighted) of the log speedup of each shape's choice by `tree`.
double fitted_sum(const std::vector<ShapeFeedback>& feedback, const Program& tree, double penalty) {
  double sum = 0;
  for (const ShapeFeedback& f : feedback)
    sum += std::max(0.0, f.shape.weight) * log_speedup(f, tree.choose(f.shape), penalty);
  return sum;
}

/// The leaf count (1-based) of the tree of a sequence whose fitted sum (`sums`, one per leaf
/// count) less `charge` per leaf is largest; the smaller on ties.
int charged_size(const std::vector<double>& sums, double charge) {
  int best = 1;
  for (int l = 2; l <= int(sums.size()); ++l)
    if (sums[std::size_t(l - 1)] - charge * l > sums[std::size_t(best - 1)] - charge * best + 1e-12)
      best = l;
  return best;
}

/// Per fold of some shapes held out: the weighted sums of log speedups of the trees of 1, 2, ...
/// leaves fitted on the other shapes, over the shapes they were fitted on and over those held out.
struct FoldSums {
  std::vector<double> fitted, held;
};

/// Calls `body(i)` for i in [0, n), on the OpenMP threads (one thread inside another parallel
/// region, e.g. a split study's runs): each call writes only its own results, so the outcome
/// is the serial one. The first exception a call throws is rethrown here, after the loop.
template <class Body> void for_each_index(std::size_t n, Body body) {
  std::exception_ptr failed;
#pragma omp parallel for schedule(dynamic, 1) if (n > 1)
  for (std::size_t i = 0; i < n; ++i) {
    try {
      body(i);
    } catch (...) {
#pragma omp critical(tv_refit_validation_failure)
      if (!failed) failed = std::current_exception();
    }
  }
  if (failed) std::rethrow_exception(failed);
}

/// The fold sums of the trees refitted on `feedback` (with `choice`, its `use` replaced) without
/// the shapes of `hold`; empty when the fit has fewer than `max_leaves` trees.
FoldSums fold_sums(const std::vector<ShapeFeedback>& feedback, RefitChoice choice,
                   const std::vector<std::size_t>& hold, int max_leaves) {
  const std::size_t n = feedback.size();
  choice.use.assign(n, true);
  for (std::size_t i : hold)
    choice.use[i] = false;
  const std::vector<Program> trees = refit_sequence(feedback, choice);
  FoldSums out;
  if (trees.size() != std::size_t(max_leaves)) return out;
  out.fitted.assign(trees.size(), 0.0);
  out.held.assign(trees.size(), 0.0);
  for (std::size_t l = 0; l < trees.size(); ++l)
    for (std::size_t i = 0; i < n; ++i) {
      const ShapeFeedback& f = feedback[i];
      const double w = std::max(0.0, f.shape.weight);
      (choice.use[i] ? out.fitted : out.held)[l] +=
          w * log_speedup(f, trees[l].choose(f.shape), choice.penalty);
    }
  return out;
}

/// The index of the charge `choose_by_complexity` keeps of those whose `score` is largest: the
/// run of ties next to the largest charge, and its middle.
std::size_t middle_of_best(const std::vector<double>& score) {
  const double top = *std::max_element(score.begin(), score.end());
  const auto tied = [&](std::size_t a) { return score[a] >= top - 1e-12; };
  std::size_t hi = score.size() - 1;
  while (!tied(hi))
    --hi;
  std::size_t lo = hi;
  while (lo > 0 && tied(lo - 1))
    --lo;
  return (lo + hi + 1) / 2;
}

/// Cost-complexity over the folds of `out` (validate_refit's `complexity`): `fit_sums[fold][L -
/// 1]` is the fold's L-leaf tree's sum over the shapes it was fitted on, `full` the sequence
/// fitted on every shape, `extremes` the sums of the folds at the extremes (validate_refit's
/// `extremes`; none: the charge with the best figure).
void choose_by_complexity(RefitValidation& out, const std::vector<ShapeFeedback>& feedback,
                          const std::vector<std::vector<std::size_t>>& dealt,
                          const std::vector<std::vector<double>>& fit_sums,
                          const std::vector<Program>& full, double penalty, double weight_total,
                          const std::vector<FoldSums>& extremes) {
  std::vector<double> full_sums;
  for (const Program& tree : full)
    full_sums.push_back(fitted_sum(feedback, tree, penalty));
  // Charges per leaf: none, and 20 a decade over four decades up to one that leaves every fold's
  // tree and the full fit's at one leaf (the largest mean gain per extra leaf of any sequence).
  double top_charge = 0;
  const auto steepest = [&](const std::vector<double>& sums) {
    for (std::size_t l = 1; l < sums.size(); ++l)
      top_charge = std::max(top_charge, (sums[l] - sums[0]) / double(l));
  };
  for (const auto& sums : fit_sums)
    steepest(sums);
  for (const FoldSums& x : extremes)
    steepest(x.fitted);
  steepest(full_sums);
  std::vector<double> charges{0.0};
  if (top_charge > 0)
    for (int j = 0; j <= 80; ++j)
      charges.push_back(1.01 * top_charge * std::pow(10.0, (j - 80) / 20.0));
  // Per charge (row), per shape (column): the weighted held-out log speedup of its fold's tree;
  // a charge's figure is its row's sum.
  xt::xtensor<double, 2> per_shape = xt::zeros<double>({charges.size(), feedback.size()});
  for (std::size_t a = 0; a < charges.size(); ++a)
    for (std::size_t fold = 0; fold < dealt.size(); ++fold) {
      const int l = charged_size(fit_sums[fold], charges[a]);
      for (std::size_t i : dealt[fold])
        per_shape(a, i) =
            std::max(0.0, feedback[i].shape.weight) * out.held_out_log[std::size_t(l - 1)][i];
    }
  const xt::xtensor<double, 1> figure_sums = xt::sum(per_shape, {1});
  const std::vector<double> figure(figure_sums.begin(), figure_sums.end());
  // Of the charges with the best figure, the largest (the smallest trees), moved to the middle
  // of the run of charges next to it that score the same (a geometric middle on this grid).
  std::size_t chosen = middle_of_best(figure);
  const std::size_t best = chosen;
  out.folds_best_leaves = charged_size(full_sums, charges[chosen]);
  if (!extremes.empty()) {
    // The charges whose figure is within one standard error of the best (of the paired
    // per-shape differences' sum), and of those the one whose trees did best on the folds at
    // the extremes: the folds cannot tell these sizes apart on shapes like the training ones,
    // and the extreme folds say which carries over past the training shapes' range.
    const double n = double(feedback.size());
    // Per charge: the paired differences from the best charge, shape by shape, summed and
    // squared-summed.
    const xt::xtensor<double, 2> d = xt::view(per_shape, chosen, xt::all()) - per_shape;
    const xt::xtensor<double, 1> sums = xt::sum(d, {1});
    const xt::xtensor<double, 1> sums2 = xt::sum(d * d, {1});
    std::vector<double> score(charges.size(), -std::numeric_limits<double>::infinity());
    out.close_charges = 0;
    for (std::size_t a = 0; a < charges.size(); ++a) {
      const double sum = sums(a), sum2 = sums2(a);
      const double var = n > 1 ? std::max(0.0, (sum2 - sum * sum / n) / (n - 1)) : 0.0;
      if (sum > std::sqrt(var * n) + 1e-12) continue;
      ++out.close_charges;
      score[a] = 0;
      for (const FoldSums& x : extremes)
        score[a] += x.held[std::size_t(charged_size(x.fitted, charges[a]) - 1)];
    }
    chosen = middle_of_best(score);
    out.extreme_folds = int(extremes.size());
  }
  out.complexity = true;
  out.leaf_charge = charges[chosen] / weight_total;
  out.best_leaves = charged_size(full_sums, charges[chosen]);
  const int inside = charged_size(full_sums, charges[best]);
  if (inside != out.best_leaves) {
    // The extreme folds' size decides only past the box of the training shapes, the best
    // charge's inside it: each fold's held-out shape is scored by the tree its fold's fitted
    // shapes' box sends it to.
    out.off_range_leaves = out.best_leaves;
    out.off_range_charge = out.leaf_charge;
    out.best_leaves = inside;
    out.leaf_charge = charges[best] / weight_total;
  }
  out.charged_log.assign(feedback.size(), 0.0);
  double sum = 0;
  for (std::size_t fold = 0; fold < dealt.size(); ++fold) {
    Box box;
    if (out.off_range_leaves > 0) {
      std::vector<bool> held(feedback.size(), false);
      for (std::size_t i : dealt[fold])
        held[i] = true;
      std::vector<Shape> fitted;
      for (std::size_t i = 0; i < feedback.size(); ++i)
        if (!held[i]) fitted.push_back(feedback[i].shape);
      box = training_range(Program{}, fitted).box;
    }
    const int in = charged_size(fit_sums[fold], charges[out.off_range_leaves > 0 ? best : chosen]);
    const int past = charged_size(fit_sums[fold], charges[chosen]);
    for (std::size_t i : dealt[fold]) {
      const int l = out.off_range_leaves == 0 || box.contains(feedback[i].shape) ? in : past;
      out.charged_log[i] = out.held_out_log[std::size_t(l - 1)][i];
      sum += std::max(0.0, feedback[i].shape.weight) * out.charged_log[i];
    }
  }
  // One tree everywhere: its figure as summed above (the same sum in another order would move
  // the last bits, and with them near-tied verdicts).
  out.best_held_out = std::exp((out.off_range_leaves > 0 ? sum : figure[chosen]) / weight_total);
}

/// Cross-validates trees of 1 to `max_leaves` leaves, grown with `lookahead`, over the folds
/// `dealt`; with `complexity`, chooses their size by cost-complexity (choose_by_complexity),
/// within one standard error by the folds `extremes` when there are any; `model` as
/// validate_refit takes it.
RefitValidation cross_validate(const std::vector<ShapeFeedback>& feedback, int max_leaves,
                               const std::vector<std::vector<std::size_t>>& dealt,
                               const std::vector<std::vector<std::size_t>>& extremes, int lookahead,
                               bool complexity, const Gpu* model) {
  RefitValidation out;
  const std::size_t n = feedback.size();
  const int kg = int(dealt.size());
  RefitChoice choice;
  choice.features = default_tree_features();
  choice.lookahead = lookahead;
  choice.model = model;
  choice.simplified = false; // every tree here is only evaluated
  out.lookahead = lookahead;
  double weight_total = 0;
  for (const ShapeFeedback& f : feedback)
    weight_total += std::max(0.0, f.shape.weight);
  if (!(weight_total > 0)) return out;
  out.folds = kg;
  // Per fold, the trees of 1 to max_leaves leaves from one fit on the other folds.
  choice.max_leaves = max_leaves;
  // The folds' fits are independent: side by side.
  std::vector<std::vector<Program>> trees(dealt.size());
  for_each_index(dealt.size(), [&](std::size_t fold) {
    RefitChoice c = choice;
    c.use.assign(n, true);
    for (std::size_t i : dealt[fold])
      c.use[i] = false;
    trees[fold] = refit_sequence(feedback, c);
  });
  std::vector<bool> held(n);
  // Per fold, per leaf count: the tree's weighted sum over the shapes it was fitted on.
  std::vector<std::vector<double>> fit_sums(dealt.size(),
                                            std::vector<double>(std::size_t(max_leaves), 0.0));
  for (int leaves = 1; leaves <= max_leaves; ++leaves) {
    double sum = 0, optimism = 0;
    std::vector<double> logs(n, 0.0);
    for (std::size_t fold = 0; fold < dealt.size(); ++fold) {
      const std::vector<Program>& fold_trees = trees[fold];
      std::fill(held.begin(), held.end(), false);
      for (std::size_t i : dealt[fold])
        held[i] = true;
      // Every shape scored by this fold's tree: held out (the estimate) or fitted on (its
      // training figure, for the optimism). No tree (nothing measured on the other folds): the
      // expert's own time.
      double held_sum = 0, held_w = 0, fit_sum = 0, fit_w = 0;
      for (std::size_t i = 0; i < n; ++i) {
        const ShapeFeedback& f = feedback[i];
        const double w = std::max(0.0, f.shape.weight);
        const double l = fold_trees.empty()
                             ? 0.0
                             : log_speedup(f, fold_trees[std::size_t(leaves - 1)].choose(f.shape),
                                           choice.penalty);
        (held[i] ? held_sum : fit_sum) += w * l;
        (held[i] ? held_w : fit_w) += w;
        if (held[i]) logs[i] = l;
      }
      sum += held_sum;
      fit_sums[fold][std::size_t(leaves - 1)] = fit_sum;
      if (held_w > 0 && fit_w > 0) optimism += held_w * (fit_sum / fit_w - held_sum / held_w);
    }
    out.optimism.push_back(optimism / weight_total);
    out.leaves.push_back(leaves);
    out.held_out_log.push_back(std::move(logs));
    out.held_out.push_back(std::exp(sum / weight_total));
    if (out.best_leaves == 0 || out.held_out.back() > out.best_held_out) {
      out.best_leaves = leaves;
      out.best_held_out = out.held_out.back();
    }
  }
  if (!complexity) return out;
  for (const auto& fold_trees : trees)
    if (fold_trees.size() != std::size_t(max_leaves)) return out; // a fold with nothing to fit
  choice.use.assign(n, true);
  const std::vector<Program> full = refit_sequence(feedback, choice);
  if (full.size() != std::size_t(max_leaves)) return out;
  std::vector<FoldSums> each(extremes.size());
  for_each_index(extremes.size(), [&](std::size_t x) {
    each[x] = fold_sums(feedback, choice, extremes[x], max_leaves);
  });
  std::vector<FoldSums> extreme_sums;
  for (FoldSums& x : each)
    if (!x.held.empty()) extreme_sums.push_back(std::move(x));
  choose_by_complexity(out, feedback, dealt, fit_sums, full, choice.penalty, weight_total,
                       extreme_sums);
  return out;
}

} // namespace

RefitValidation validate_refit(const std::vector<ShapeFeedback>& feedback,
                               const RefitValidationOptions& o) {
  RefitValidation out;
  const std::size_t n = feedback.size();
  const int k = std::min<int>(o.folds, int(n / 2));
  if (k < 2 || o.max_leaves < 1) return out;
  for (const ShapeFeedback& f : feedback)
    if (!(f.expert_seconds > 0) || f.measured.empty()) return out;
  std::vector<Shape> shapes;
  for (const ShapeFeedback& f : feedback)
    shapes.push_back(f.shape);
  const std::vector<std::vector<std::size_t>> dealt =
      deal_shape_folds(shapes, k, o.seed, o.group_sizes);
  if (dealt.empty()) return out;
  const std::vector<std::vector<std::size_t>> held_extremes =
      o.extremes && o.complexity ? extreme_folds(shapes, int(dealt.size()))
                                 : std::vector<std::vector<std::size_t>>{};
  out = cross_validate(feedback, o.max_leaves, dealt, held_extremes, 0, o.complexity, o.model);
  if (o.lookahead > 0 && out.folds > 0) {
    // The same folds with the lookahead's trees: the growth with the better held-out estimate.
    RefitValidation ahead = cross_validate(feedback, o.max_leaves, dealt, held_extremes,
                                           o.lookahead, o.complexity, o.model);
    if (ahead.best_held_out > out.best_held_out) out = std::move(ahead);
  }
  return out;
}

const std::vector<double>& RefitValidation::chosen_log() const {
  static const std::vector<double> none;
  if (complexity) return charged_log;
  return best_leaves >= 1 && std::size_t(best_leaves) <= held_out_log.size()
             ? held_out_log[std::size_t(best_leaves - 1)]
             : none;
}

RefitVerdict compare_refit(const RefitValidation& v, const std::vector<double>& searched_log,
                           const std::vector<double>& weights, int searched_leaves) {
  RefitVerdict out;
  out.leaves = v.best_leaves;
  if (v.folds == 0 || v.best_leaves < 1) return out;
  const std::vector<double>& tree = v.chosen_log();
  if (tree.size() != searched_log.size() || weights.size() != tree.size()) return out;
  double w_sum = 0, w2_sum = 0, mean = 0;
  for (std::size_t i = 0; i < tree.size(); ++i) {
    w_sum += weights[i];
    w2_sum += weights[i] * weights[i];
    mean += weights[i] * (tree[i] - searched_log[i]);
  }
  if (!(w_sum > 0)) return out;
  mean /= w_sum;
  double var = 0; // weighted variance of the per-shape differences
  for (std::size_t i = 0; i < tree.size(); ++i) {
    const double d = tree[i] - searched_log[i] - mean;
    var += weights[i] * d * d;
  }
  var /= w_sum;
  // Standard error of a weighted mean: sqrt(var * sum w^2) / sum w.
  if (searched_leaves > 0 && !v.optimism.empty())
    out.charge = std::max(
        0.0, v.optimism[std::size_t(std::min<int>(searched_leaves, int(v.optimism.size())) - 1)]);
  out.gain = mean + out.charge;
  out.standard_error = std::sqrt(var * w2_sum) / w_sum;
  out.tree_wins = out.gain > 0;
  return out;
}

} // namespace tv
