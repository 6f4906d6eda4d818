#include "ir/wave_guards.hpp"

#include "ir/condition.hpp"
#include "ir/plural.hpp"
#include "ir/text.hpp"

#include <algorithm>
#include <cstdint>
#include <fmt/format.h>
#include <optional>

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

/// The comparison a return rule adds for shapes that `rule`'s guard would send on to the default
/// `d`: `M <= BM` where d's tile is the rule's made taller; nullopt otherwise. (The mirror case,
/// N <= BN and a tile made wider, would add comparisons on N to programs that may have none,
/// for outputs of at most 256 features, which model GEMMs do not have.)
std::optional<Comparison> return_bound(const Config& rule, const Config& d) {
  if (d.vendor || d.BN != rule.BN || d.BM <= rule.BM) return std::nullopt;
  return Comparison{Feature::M, CmpOp::le, rule.BM, 0, 0};
}

/// One rule's guard: its tile count bounded at the whole waves its shapes fill.
struct Guard {
  std::size_t rule = 0;
  Comparison term;
  std::int64_t waves = 0;
  double fill = 0; ///< the training shapes' largest tile count over term.value
};

} // namespace

GuardedWaves guard_waves(const Program& p, const std::vector<Shape>& shapes, int units,
                         const std::vector<bool>& allowed, bool returns) {
  GuardedWaves out{p, {}, {}, {}};
  if (units <= 0) return out;
  std::vector<int> decider(shapes.size());
  for (std::size_t s = 0; s < shapes.size(); ++s)
    decider[s] = p.deciding_rule(shapes[s]);
  std::vector<Guard> guards;
  for (std::size_t i = 0; i < p.rules.size(); ++i) {
    if (i < allowed.size() && !allowed[i]) continue;
    const Config& c = p.rules[i].config;
    // A tile the language cannot compare on (cdiv takes sizes up to kMaxTileSize) gets no guard.
    if (c.vendor || c.BM < 1 || c.BN < 1 || c.BM > kMaxTileSize || c.BN > kMaxTileSize) continue;
    Comparison g{Feature::tiles, CmpOp::le, 0, c.BM, c.BN};
    std::int64_t most = -1;
    for (std::size_t s = 0; s < shapes.size(); ++s)
      if (decider[s] == int(i)) most = std::max(most, g.value_of(shapes[s]));
    if (most < 0) continue; // no shape reaches the rule: nothing to keep it to
    const std::int64_t waves = std::max<std::int64_t>(1, (most + units - 1) / units);
    if (waves > kDimMax / units) continue;
    g.value = waves * units;
    if (!already_bounded(p.rules[i].condition.terms, g))
      guards.push_back({i, g, waves, double(most) / double(g.value)});
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
    if (space.dim_of(g.term) < 0) {
      if (int(space.derived().size()) >= kMaxDerivedFeatures) continue;
      space.add(g.term);
    }
    out.program.rules[g.rule].condition.terms.push_back(g.term);
    added.push_back(g);
  }
  std::sort(added.begin(), added.end(),
            [](const Guard& a, const Guard& b) { return a.rule < b.rule; });

  // Return rules, after all of the rules: a shape comes back only where it would reach the
  // default. No training shape gets there from a guarded rule's condition (the guard keeps every
  // one it decides), so none changes its config. Rules at the end that return the default's
  // config are the default under another name: where a return rule is added they go first (no
  // decision changes), so the shapes they would take reach the return rules too.
  const Config& d = p.default_config;
  std::size_t tail = p.rules.size();
  while (tail > 0 && p.rules[tail - 1].config == d)
    --tail;
  std::vector<Rule> backs;
  std::vector<Comparison> bounds;
  for (const Guard& g : added) {
    const std::optional<Comparison> bound = return_bound(p.rules[g.rule].config, d);
    if (!returns || g.rule >= tail || !bound) continue;
    Rule back = p.rules[g.rule];
    if (!already_bounded(back.condition.terms, *bound)) back.condition.terms.push_back(*bound);
    backs.push_back(back);
    bounds.push_back(*bound);
    out.returns.push_back(g.rule);
  }
  if (backs.empty()) tail = p.rules.size();
  for (const Guard& g : added) {
    if (g.rule >= tail) continue; // its rule goes: the default decides its shapes anyway
    out.rules.push_back(g.rule);
    out.changes.push_back(fmt::format("rule {}: and {} <= {} (its training shapes fill {} of "
                                      "{} units)",
                                      g.rule + 1, feature_text(g.term), g.term.value,
                                      counted(g.waves, "wave", "waves"), units));
  }
  if (backs.empty()) return out;
  if (tail < p.rules.size()) {
    out.changes.push_back(
        tail + 1 == p.rules.size()
            ? fmt::format("rule {} (removed): it returns the default's config", tail + 1)
            : fmt::format("rules {} to {} (removed): they return the default's config", tail + 1,
                          p.rules.size()));
    out.program.rules.resize(tail);
  }
  for (std::size_t i = 0; i < backs.size(); ++i) {
    out.program.rules.push_back(backs[i]);
    out.changes.push_back(fmt::format(
        "rule {} (new): rule {}'s condition and M <= {} -> its config (a shape one tile row high "
        "that its guard sends on to the default's {}x{} tile would launch the same tiles there, "
        "each padding more rows)",
        out.program.rules.size(), out.returns[i] + 1, bounds[i].value, d.BM, d.BN));
  }
  return out;
}

} // namespace tv
