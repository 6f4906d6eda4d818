// Operators that read the run's measurements: refit, waves.
#include "eval/problem.hpp"
#include "evolve/mutators/mock/configs.hpp"
#include "evolve/mutators/mock/operators.hpp"
#include "evolve/mutators/mock/values.hpp"
#include "evolve/refit.hpp"
#include "ir/text.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <fmt/format.h>
#include <string>
#include <vector>

namespace tv::mock {

namespace {

/// One random refit setting (see MockLlmOptions).
RefitChoice draw_refit_choice(Ctx& x) {
  RefitChoice choice;
  const MockLlmOptions& o = x.options;
  // Large training sets support larger trees: up to one leaf per refit_shapes_per_leaf shapes,
  // never more leaves than a baseline tree may have.
  int most = o.refit_max_leaves;
  if (o.refit_shapes_per_leaf > 0)
    most = std::max(most, int(std::min<std::size_t>(x.request.feedback.size() /
                                                        std::size_t(o.refit_shapes_per_leaf),
                                                    std::size_t(kMaxTreeLeaves))));
  choice.max_leaves = int(x.rng.uniform_int(o.refit_min_leaves, most));
  choice.min_leaf_shapes = int(x.rng.uniform_int(1, 3));
  choice.units = x.gpu.units; // thresholds at whole and half waves, powers of two otherwise
  choice.penalty =
      o.refit_min_penalty + (o.refit_max_penalty - o.refit_min_penalty) * x.rng.uniform01();
  choice.features = o.refit_features;
  if (x.request.model_prior) choice.model = &x.gpu;
  return choice;
}

/// Tiles of `c`'s block over the output of `s` (one wave when it equals the GPU's units).
std::int64_t grid_tiles(const Shape& s, const Config& c) {
  return derived_value(Feature::tiles, std::max(1, c.BM), std::max(1, c.BN), s.M, s.N);
}

} // namespace

std::optional<Edit> op_refit(Ctx& x) {
  const MockLlmOptions& o = x.options;
  RefitChoice choice = draw_refit_choice(x);
  if (x.rng.chance(o.refit_bootstrap)) {
    choice.use.resize(x.request.feedback.size());
    for (std::size_t i = 0; i < choice.use.size(); ++i)
      choice.use[i] = x.rng.chance(0.8);
  }
  std::optional<Program> fit = refit_program(x.request.feedback, choice);
  if (!fit) return std::nullopt;
  Edit e{*fit, {}, nullptr};
  if (!x.space.empty())
    for (std::size_t i = 0; i <= e.child.rules.size(); ++i) {
      Config& c = config_at(e.child, i);
      if (!c.vendor && std::find(x.space.begin(), x.space.end(), c) == x.space.end())
        if (auto near = near_in_space(x, c)) c = *near;
    }
  std::string features;
  for (const Comparison& f : choice.features)
    features += (features.empty() ? "" : ", ") + feature_text(f);
  e.note = fmt::format("regrouped the shapes by {} into {} rules from the configs measured so far",
                       features, e.child.rules.size() + 1);
  return e;
}

std::optional<Edit> op_waves(Ctx& x) {
  if (x.parent.rules.size() >= kMaxRules || x.gpu.units <= 0) return std::nullopt;
  const std::int64_t units = x.gpu.units;
  std::vector<const ShapeFeedback*> thin;
  for (const ShapeFeedback* f : x.hot)
    if (!f->config.vendor && grid_tiles(f->shape, f->config) < units) thin.push_back(f);
  if (thin.empty()) return std::nullopt;
  const ShapeFeedback* f = thin[x.rng.index(std::min<std::size_t>(3, thin.size()))];
  const int decider = x.parent.deciding_rule(f->shape);
  const std::size_t t = decider < 0 ? x.parent.rules.size() : std::size_t(decider);
  const Config cur = config_at(x.parent, t);
  Edit e{x.parent, {}, f};
  Rule rule;
  if (t < x.parent.rules.size()) rule.condition = x.parent.rules[t].condition;
  Comparison cut;
  cut.op = CmpOp::le;
  if (x.rng.chance(0.7)) {
    // Whole or half waves: the smallest round count at or above the shape's grid.
    cut.feature = Feature::tiles;
    cut.tile_m = cur.BM;
    cut.tile_n = cur.BN;
    const std::int64_t have = grid_tiles(f->shape, cur);
    const std::int64_t step = std::max<std::int64_t>(1, units / (x.rng.chance(0.5) ? 2 : 4));
    cut.value = std::max(step, ceil_div(have, step) * step);
    if (cut.value >= units && x.rng.chance(0.5)) cut.value = units - 1;
  } else {
    cut.feature = Feature::MN;
    cut.value = next_pow2(std::min<std::int64_t>(f->shape.M * f->shape.N, kBigDim * 1024));
  }
  for (const auto& c : rule.condition.terms)
    if (c.same_feature(cut)) return std::nullopt; // already bounded on this feature
  rule.condition.terms.push_back(cut);
  std::optional<Config> cfg;
  const long long area = (long long)cur.BM * cur.BN;
  if (x.rng.chance(0.6))
    for (const auto& [secs, c] : f->measured)
      if (!c.vendor && (long long)c.BM * c.BN < area) {
        cfg = c;
        break;
      }
  if (!cfg) {
    Config c = cur;
    const ConfigSpace& s = x.gpu.space;
    int& side = c.BN >= c.BM ? c.BN : c.BM;
    const auto smaller = step(c.BN >= c.BM ? s.BN : s.BM, side, -1);
    if (!smaller) return std::nullopt;
    side = *smaller;
    cfg = repair(x, c, false, &cur);
  }
  if (!cfg || *cfg == cur) return std::nullopt;
  rule.config = *cfg;
  e.child.rules.insert(e.child.rules.begin() + std::ptrdiff_t(t), rule);
  e.note = fmt::format("{} makes only {} tiles of {}x{} here, under one wave of {} units; new "
                       "rule `if {}` with {}",
                       f->shape.label(), grid_tiles(f->shape, cur), cur.BM, cur.BN, units,
                       print_condition(rule.condition), cfg->brief());
  return e;
}

} // namespace tv::mock
