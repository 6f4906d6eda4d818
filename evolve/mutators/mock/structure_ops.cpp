// Operators that change the rules themselves: split, delete, crossover.
#include "evolve/mutators/mock/configs.hpp"
#include "evolve/mutators/mock/operators.hpp"
#include "evolve/mutators/mock/values.hpp"
#include "ir/text.hpp"

#include <algorithm>
#include <cstddef>
#include <fmt/format.h>
#include <iterator>
#include <string>
#include <vector>

namespace tv::mock {

namespace {

/// Rules of the inspirations that parse (in request order).
std::vector<Rule> inspiration_rules(const MutationRequest& r) {
  std::vector<Rule> out;
  for (const auto& text : r.inspiration_texts) {
    ParseResult p = parse_program(text);
    if (p.ok()) out.insert(out.end(), p.program->rules.begin(), p.program->rules.end());
  }
  return out;
}

} // namespace

std::optional<Edit> op_split(Ctx& x) {
  if (x.parent.rules.size() >= kMaxRules) return std::nullopt;
  Edit e{x.parent, {}, nullptr};
  const std::size_t t = pick_target(x, &e.focus, 0.7);
  const Box region = effective_box(x.parent, t);
  if (region.empty()) return std::nullopt;

  Feature f =
      e.focus || x.rng.chance(0.7) ? Feature::M : (x.rng.chance(0.5) ? Feature::N : Feature::K);
  if (e.focus && x.rng.chance(0.15)) f = x.rng.chance(0.5) ? Feature::N : Feature::K;
  const auto& allowed = x.options.split_features;
  if (std::find(allowed.begin(), allowed.end(), f) == allowed.end()) {
    // N or K drawn but not allowed: another allowed one of them, else M; M not allowed: any.
    std::vector<Feature> others;
    for (Feature g : allowed)
      if (g != Feature::M) others.push_back(g);
    const bool has_m = std::find(allowed.begin(), allowed.end(), Feature::M) != allowed.end();
    if (f != Feature::M && !others.empty())
      f = x.rng.pick(others);
    else
      f = has_m ? Feature::M : x.rng.pick(allowed);
  }
  const Interval iv = region.dim[int(f)];
  // New comparison: `f <= v` keeps [lo, v], `f >= v` keeps [v, hi]; either must cut iv.
  std::optional<Comparison> cut;
  if (e.focus) {
    const std::int64_t at = std::clamp<std::int64_t>(feature_value(e.focus->shape, f), 1, kBigDim);
    const auto& nat = natural_values();
    // Prefer a power of two bound just above the shape (M <= 64 for M = 48 or 64).
    std::int64_t v = next_pow2(at);
    if (x.rng.chance(0.3))
      v = *std::lower_bound(nat.begin(), nat.end(), std::min<std::int64_t>(at, nat.back()));
    if (v >= iv.lo && v < iv.hi && v >= at) cut = Comparison{f, CmpOp::le, v};
    if (!cut) {
      const auto below = natural_below(at + 1);
      if (below && *below > iv.lo && *below <= iv.hi) cut = Comparison{f, CmpOp::ge, *below};
    }
  }
  if (!cut) {
    const std::int64_t floor = f == Feature::M ? 1 : 256;
    const std::int64_t ceil = f == Feature::M ? 16384 : 32768;
    std::vector<std::int64_t> upper, lower;
    for (std::int64_t v : natural_values()) {
      if (v < floor || v > ceil) continue;
      if (v >= iv.lo && v < iv.hi) upper.push_back(v);
      if (v > iv.lo && v <= iv.hi) lower.push_back(v);
    }
    const bool use_upper = !upper.empty() && (lower.empty() || x.rng.chance(0.75));
    if (use_upper)
      cut = Comparison{f, CmpOp::le, x.rng.pick(upper)};
    else if (!lower.empty())
      cut = Comparison{f, CmpOp::ge, x.rng.pick(lower)};
  }
  if (!cut) return std::nullopt;

  // The new condition: the target's condition with the cut added, replacing a looser bound on
  // the same side of the same feature.
  Rule rule;
  if (t < x.parent.rules.size()) rule.condition = x.parent.rules[t].condition;
  const bool upper_side = cut->op == CmpOp::le;
  auto& terms = rule.condition.terms;
  auto same_side = [&](const Comparison& c) {
    if (c.feature != cut->feature) return false;
    return upper_side ? (c.op == CmpOp::le || c.op == CmpOp::lt)
                      : (c.op == CmpOp::ge || c.op == CmpOp::gt);
  };
  auto it = std::find_if(terms.begin(), terms.end(), same_side);
  if (it != terms.end()) {
    *it = *cut;
    terms.erase(std::remove_if(std::next(it), terms.end(), same_side), terms.end());
  } else {
    terms.push_back(*cut);
  }

  Box sub = region;
  Interval& si = sub.dim[int(f)];
  if (upper_side)
    si.hi = std::min(si.hi, cut->value);
  else
    si.lo = std::max(si.lo, cut->value);
  const Config& base = config_at(x.parent, t);
  std::optional<Config> cfg;
  if (x.rng.chance(0.5)) {
    // Half the time, what the measurements say: the fastest config seen so far on one of the
    // training shapes the new rule takes over (when that is not the config they already get).
    const int decider = t < x.parent.rules.size() ? int(t) : -1;
    std::vector<Config> measured;
    for (const ShapeFeedback& g : x.request.feedback)
      if (g.best_config && *g.best_config != base && sub.contains(g.shape) &&
          x.parent.deciding_rule(g.shape) == decider)
        measured.push_back(*g.best_config);
    if (!measured.empty()) cfg = x.rng.pick(measured);
  }
  if (!cfg && x.rng.chance(0.75)) cfg = design(x, sub, base);
  if (!cfg || *cfg == base) cfg = tweak_config(x, base);
  if (!cfg) return std::nullopt;
  rule.config = *cfg;
  e.child.rules.insert(e.child.rules.begin() + std::ptrdiff_t(t), rule);
  e.note = fmt::format("new rule `if {}` above {} with {}", print_condition(rule.condition),
                       where(x.parent, t), cfg->brief());
  return e;
}

std::optional<Edit> op_delete(Ctx& x) {
  if (x.parent.rules.empty()) return std::nullopt;
  Edit e{x.parent, {}, nullptr};
  const std::size_t r = x.rng.index(x.parent.rules.size());
  e.note = fmt::format("removed {}", where(x.parent, r));
  e.child.rules.erase(e.child.rules.begin() + std::ptrdiff_t(r));
  return e;
}

std::optional<Edit> op_crossover(Ctx& x) {
  const std::vector<Rule> pool = inspiration_rules(x.request);
  if (pool.empty()) return std::nullopt;
  Edit e{x.parent, {}, nullptr};
  Rule donor = x.rng.pick(pool);
  // A donor config outside a closed space (none should be: donors passed the static check)
  // becomes the nearest allowed one.
  if (!x.space.empty() && std::find(x.space.begin(), x.space.end(), donor.config) == x.space.end())
    donor.config =
        nearest_configs(x, donor.config, nullptr, 1, [](const Config&) { return true; }).front();
  auto same = std::find_if(e.child.rules.begin(), e.child.rules.end(),
                           [&](const Rule& r) { return r.condition == donor.condition; });
  if (same != e.child.rules.end()) {
    if (same->config == donor.config) return std::nullopt;
    e.note =
        fmt::format("took the config of `if {}` from another program: {}",
                    print_condition(donor.condition), describe_change(same->config, donor.config));
    same->config = donor.config;
    return e;
  }
  if (x.parent.rules.size() >= kMaxRules) return std::nullopt;
  const std::size_t at = x.rng.index(x.parent.rules.size() + 1);
  e.child.rules.insert(e.child.rules.begin() + std::ptrdiff_t(at), donor);
  e.note = fmt::format("copied `if {}` ({}) from another program", print_condition(donor.condition),
                       donor.config.brief());
  return e;
}

} // namespace tv::mock
