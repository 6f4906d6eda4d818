#include "ir/wave_guards.hpp"

#include "ir/condition.hpp"
#include "ir/plural.hpp"
#include "ir/simplify.hpp"
#include "ir/text.hpp"

#include <algorithm>
#include <cstdint>
#include <fmt/format.h>

namespace tv {

namespace {

/// True when a comparison of `terms` already keeps the feature of `g` at or below g.value.
bool already_bounded(const std::vector<Comparison>& terms, const Comparison& g) {
  for (const Comparison& c : terms) {
    if (!c.same_feature(g)) continue;
    if ((c.op == CmpOp::le || c.op == CmpOp::eq) && c.value <= g.value) return true;
    if (c.op == CmpOp::lt && c.value <= g.value + 1) return true;
  }
  return false;
}

/// True when a comparison of `terms` already keeps the feature of `g` at or above g.value.
bool already_floored(const std::vector<Comparison>& terms, const Comparison& g) {
  for (const Comparison& c : terms) {
    if (!c.same_feature(g)) continue;
    if ((c.op == CmpOp::ge || c.op == CmpOp::eq) && c.value >= g.value) return true;
    if (c.op == CmpOp::gt && c.value + 1 >= g.value) return true;
  }
  return false;
}

/// True when `landing`'s tile is `rule`'s made taller (the same BN, a larger BM): for a shape
/// one tile row high of `rule` (M <= its BM) it launches the same tiles, each padding more rows.
/// (The mirror case, a tile made wider for N <= BN, would add comparisons on N to programs that
/// may have none, for outputs of at most 256 features, which model GEMMs do not have.)
bool taller(const Config& rule, const Config& landing) {
  return !landing.vendor && landing.BN == rule.BN && landing.BM > rule.BM;
}

/// True for an upper bound on a feature that grows with the output's width: N, M * N or a tile
/// count.
bool bounds_width(const Comparison& c) {
  return (c.op == CmpOp::le || c.op == CmpOp::lt) &&
         (c.feature == Feature::N || c.feature == Feature::MN || c.feature == Feature::tiles);
}

/// One rule's guard: its tile count bounded at the whole waves its shapes fill, and its floor.
struct Guard {
  std::size_t rule = 0;
  std::vector<Comparison> terms; ///< the ceiling, the floor, or both (same feature)
  std::int64_t waves = 0;
  double fill = 0; ///< the training shapes' largest tile count over the ceiling's value
};

} // namespace

bool guardable(const Config& c) {
  return !c.vendor && c.BM >= 1 && c.BN >= 1 && c.BM <= kMaxTileSize && c.BN <= kMaxTileSize;
}

GuardedWaves guard_waves(const Program& p, const std::vector<Shape>& shapes, int units,
                         const GuardOptions& options) {
  GuardedWaves out{p, {}, {}, {}};
  if (units <= 0) return out;
  std::vector<int> decider(shapes.size());
  for (std::size_t s = 0; s < shapes.size(); ++s)
    decider[s] = p.deciding_rule(shapes[s]);
  std::vector<Guard> guards;
  for (std::size_t i = 0; i < p.rules.size(); ++i) {
    const bool ceiling_ok = i >= options.ceilings.size() || options.ceilings[i];
    const bool floor_ok = options.with_floors && (i >= options.floors.size() || options.floors[i]);
    if (!ceiling_ok && !floor_ok) continue;
    const Config& c = p.rules[i].config;
    // A tile the language cannot compare on (cdiv takes sizes up to kMaxTileSize) gets no guard.
    if (!guardable(c)) continue;
    Comparison g{Feature::tiles, CmpOp::le, 0, c.BM, c.BN};
    std::int64_t most = -1, least = kDimMax;
    for (std::size_t s = 0; s < shapes.size(); ++s)
      if (decider[s] == int(i)) {
        most = std::max(most, g.value_of(shapes[s]));
        least = std::min(least, g.value_of(shapes[s]));
      }
    if (most < 0) continue; // no shape reaches the rule: nothing to keep it to
    const std::int64_t waves = std::max<std::int64_t>(1, (most + units - 1) / units);
    if (waves > kDimMax / units) continue;
    g.value = waves * units;
    Guard guard{i, {}, waves, double(most) / double(g.value)};
    if (ceiling_ok && !already_bounded(p.rules[i].condition.terms, g)) guard.terms.push_back(g);
    // A floor where every shape of the rule fills two waves or more: it has seen no grid of one
    // wave, whole or partial, let alone one under a wave, where some units idle. (At one wave
    // the floor could meet the guard: a rule fitted on grids of exactly one wave would keep
    // no other.)
    const Comparison floor{Feature::tiles, CmpOp::ge, units, c.BM, c.BN};
    // And only where a later rule, or the default, decides a training shape whose grid of this
    // tile is under a wave: the shapes the floor sends on land where there is evidence for such
    // grids. Without any (every training shape fills its waves: a range trained on large
    // shapes), they would land on the default, fitted on the largest shapes, for want of a rule.
    bool later_small = false;
    for (std::size_t s = 0; s < shapes.size() && !later_small; ++s)
      later_small = (decider[s] < 0 || decider[s] > int(i)) && floor.value_of(shapes[s]) < units;
    if (floor_ok && least >= 2 * units && later_small &&
        !already_floored(p.rules[i].condition.terms, floor))
      guard.terms.push_back(floor);
    if (!guard.terms.empty()) guards.push_back(std::move(guard));
  }
  // A spilled wave costs most where the training shapes fit in one, and is nearest where they
  // fill their last wave: those guards first (the program's derived features are limited).
  std::stable_sort(guards.begin(), guards.end(), [](const Guard& a, const Guard& b) {
    if ((a.waves > 1) != (b.waves > 1)) return a.waves == 1;
    return a.fill > b.fill;
  });
  FeatureSpace space; // the derived features the program compares
  for (const Rule& r : p.rules)
    for (const Comparison& c : r.condition.terms)
      space.add(c);
  std::vector<Guard> added;
  for (const Guard& g : guards) {
    if (space.dim_of(g.terms[0]) < 0) {
      if (int(space.derived().size()) >= kMaxDerivedFeatures) continue;
      space.add(g.terms[0]);
    }
    for (const Comparison& t : g.terms)
      out.program.rules[g.rule].condition.terms.push_back(t);
    added.push_back(g);
  }
  std::sort(added.begin(), added.end(),
            [](const Guard& a, const Guard& b) { return a.rule < b.rule; });

  for (const Guard& g : added) {
    out.rules.push_back(g.rule);
    for (const Comparison& t : g.terms)
      out.changes.push_back(
          t.op == CmpOp::ge
              ? fmt::format("{}: and {} >= {} (each of its training shapes fills at least 2 "
                            "waves of {} units)",
                            rule_reference(p, g.rule), feature_text(t), t.value, units)
              : fmt::format("{}: and {} <= {} (its training shapes fill {} of {} units)",
                            rule_reference(p, g.rule), feature_text(t), t.value,
                            counted(g.waves, "wave", "waves"), units));
  }
  if (!options.returns) return out;

  // Return rules. A shape that reaches rule j (or the default, j = n) and meets an earlier
  // rule r's condition comes from r's guard: no rule between decided it. Where j's tile is r's
  // made taller, a return rule just before j (r's condition, M <= r's BM and j's condition)
  // gives the shape r's config back. No training shape meets r's condition and fails its guard,
  // so none reaches such a return rule. The same holds for any bound of r on the width (N,
  // M * N, a tile count): a return rule without r's width bounds takes back every shape one
  // tile row high that lands on the taller tile for want of them, wherever no training shape
  // landing there meets it (otherwise, for a guarded rule, it keeps them).
  const std::size_t n = p.rules.size();
  std::vector<bool> guarded(n, false);
  for (const Guard& g : added)
    guarded[g.rule] = true;
  std::vector<int> lands(shapes.size());
  for (std::size_t s = 0; s < shapes.size(); ++s) {
    const int d = out.program.deciding_rule(shapes[s]);
    lands[s] = d < 0 ? int(n) : d;
  }
  struct Added {
    std::size_t at; ///< index in `rules`
    GuardReturn ret;
    std::string change;
  };
  std::vector<Added> made;
  std::vector<Rule> rules;
  for (std::size_t j = 0; j <= n; ++j) {
    const Config& landing = j < n ? p.rules[j].config : p.default_config;
    for (std::size_t r = 0; r < j; ++r) {
      const Config& c = p.rules[r].config;
      if (c.vendor || !taller(c, landing)) continue;
      const Comparison row{Feature::M, CmpOp::le, c.BM, 0, 0};
      const auto with_landing = [&](std::vector<Comparison> terms) {
        if (!already_bounded(terms, row)) terms.push_back(row);
        if (j < n)
          for (const Comparison& t : out.program.rules[j].condition.terms)
            if (std::find(terms.begin(), terms.end(), t) == terms.end()) terms.push_back(t);
        return terms;
      };
      std::vector<Comparison> narrow = p.rules[r].condition.terms;
      std::erase_if(narrow, bounds_width);
      Rule back = p.rules[r];
      bool widened = narrow.size() < back.condition.terms.size();
      if (widened) {
        back.condition.terms = with_landing(std::move(narrow));
        // A training shape landing on j (whose config is not r's: j's tile is taller) that
        // the widened rule would take back keeps the bounds.
        for (std::size_t s = 0; s < shapes.size() && widened; ++s)
          if (lands[s] == int(j) && back.condition.matches(shapes[s])) widened = false;
      }
      if (!widened) {
        if (!guarded[r]) continue;
        back.condition.terms = with_landing(p.rules[r].condition.terms);
      }
      made.push_back(
          {rules.size(),
           {r, j},
           fmt::format("new, before {}: {}{}, M <= {}{} -> its config (a shape one tile row "
                       "high that {} sends on to the {}x{} tile of {} would launch the same "
                       "tiles there, each padding more rows)",
                       rule_reference(p, j), rule_reference(p, r),
                       widened ? " without its bounds on the width" : "", row.value,
                       j < n ? " and " + rule_reference(p, j) : "",
                       widened ? "a bound on its width" : "its guard", landing.BM, landing.BN,
                       rule_reference(p, j))});
      rules.push_back(std::move(back));
    }
    if (j < n) rules.push_back(out.program.rules[j]);
  }
  // A return rule that no shape can reach (an earlier one takes all of its shapes) is left out.
  const LiveBranches live = live_branches(Program{rules, out.program.default_config});
  std::vector<bool> drop(rules.size(), false);
  for (const Added& a : made) {
    drop[a.at] = !std::binary_search(live.rules.begin(), live.rules.end(), a.at);
    if (drop[a.at]) continue;
    out.returns.push_back(a.ret);
    out.changes.push_back(a.change);
  }
  out.program.rules.clear();
  for (std::size_t i = 0; i < rules.size(); ++i)
    if (!drop[i]) out.program.rules.push_back(std::move(rules[i]));
  return out;
}

} // namespace tv
