// Operators that edit one config or one threshold in place: tweak, targeted, threshold.
#include "evolve/mutators/mock/configs.hpp"
#include "evolve/mutators/mock/operators.hpp"
#include "evolve/mutators/mock/values.hpp"

#include <algorithm>
#include <cstdlib>
#include <fmt/format.h>
#include <string>
#include <vector>

namespace tv::mock {

std::optional<Edit> op_tweak(Ctx& x) {
  Edit e{x.parent, {}, nullptr};
  const std::size_t t = pick_target(x, &e.focus, 0.4);
  Config& c = config_at(e.child, t);
  const auto next = tweak_config(x, c);
  if (!next) return std::nullopt;
  e.note = fmt::format("{} in {}", describe_change(c, *next), where(x.parent, t));
  c = *next;
  return e;
}

std::optional<Edit> op_targeted(Ctx& x) {
  Edit e{x.parent, {}, nullptr};
  const std::size_t t = pick_target(x, &e.focus);
  const Config cur = config_at(x.parent, t);
  const Box region = effective_box(x.parent, t);
  const ConfigSpace& s = x.gpu.space;

  enum class Variant { region, bigger, smaller, deeper, warps };
  std::vector<Variant> order{Variant::region, Variant::bigger, Variant::smaller, Variant::deeper,
                             Variant::warps};
  // The first variant is drawn with weights; the rest follow in a shuffled order.
  const Variant first = pick_weighted<Variant>(x.rng, {{Variant::region, 0.45},
                                                       {Variant::bigger, 0.15},
                                                       {Variant::smaller, 0.12},
                                                       {Variant::deeper, 0.16},
                                                       {Variant::warps, 0.12}});
  order.erase(std::find(order.begin(), order.end(), first));
  x.rng.shuffle(order);
  order.insert(order.begin(), first);

  for (Variant v : order) {
    std::optional<Config> next;
    std::string why;
    switch (v) {
    case Variant::region:
      if (region.empty()) break;
      next = design(x, region, cur);
      why = region.dim[0].hi < kBigDim
                ? fmt::format("retuned for M up to {}", region.dim[0].hi)
                : fmt::format("retuned for large M (from {})", region.dim[0].lo);
      break;
    case Variant::bigger: {
      Config c = cur;
      const bool rows = x.rng.chance(0.5);
      int& side = rows ? c.BM : c.BN;
      const auto up = step(rows ? s.BM : s.BN, side, 1);
      if (!up) break;
      side = *up;
      next = repair(x, c, false, &cur);
      why = "bigger tile, warps and stages rebalanced to fit";
      break;
    }
    case Variant::smaller: {
      Config c = cur;
      int bm = step(s.BM, c.BM, -1).value_or(c.BM);
      if (region.dim[0].hi < kBigDim)
        bm = std::min(bm,
                      at_least(s.BM, int(std::max<std::int64_t>(16, next_pow2(region.dim[0].hi)))));
      if (bm == c.BM) break;
      c.BM = bm;
      c.BK = step(s.BK, c.BK, 1).value_or(c.BK);
      if (!s.stages.empty()) c.stages = s.stages.back();
      next = repair(x, c, false, &cur);
      why = "smaller M tile with a deeper K step and pipeline";
      break;
    }
    case Variant::deeper: {
      Config c = cur;
      const auto up = step(s.stages, c.stages, 1);
      if (!up) break;
      c.stages = *up;
      next = repair(x, c, true, &cur);
      why = "deeper pipeline, BK adjusted to fit shared memory";
      break;
    }
    case Variant::warps: {
      Config c = cur;
      const auto w = step(s.warps, c.warps, 1);
      const auto fewer = step(s.warps, c.warps, -1);
      if (!w && !fewer) break;
      c.warps = w ? *w : *fewer;
      next = repair(x, c, false, &cur);
      why = w ? "more warps" : "fewer warps";
      break;
    }
    }
    if (next && *next != cur) {
      e.note = fmt::format("{} for {}: {}", why, where(x.parent, t), describe_change(cur, *next));
      config_at(e.child, t) = *next;
      return e;
    }
  }
  return std::nullopt;
}

std::optional<Edit> op_threshold(Ctx& x) {
  std::vector<std::size_t> with_terms;
  for (std::size_t i = 0; i < x.parent.rules.size(); ++i)
    if (!x.parent.rules[i].condition.terms.empty()) with_terms.push_back(i);
  if (with_terms.empty()) return std::nullopt;
  Edit e{x.parent, {}, nullptr};
  const std::size_t r = x.rng.pick(with_terms);
  auto& terms = e.child.rules[r].condition.terms;
  Comparison& term = terms[x.rng.index(terms.size())];
  const std::int64_t old = term.value;
  const bool up = x.rng.chance(0.5);
  std::optional<std::int64_t> next = up ? natural_above(old) : natural_below(old);
  if (!next) next = up ? natural_below(old) : natural_above(old);
  if (!next) return std::nullopt;
  const bool sane = old >= 0 && old <= kDimMax && *next >= 0 && *next <= kDimMax;
  if (x.rng.chance(0.15) && sane && std::abs(*next - old) > 2) { // somewhere in between
    const std::int64_t lo = std::min(old, *next) + 1, hi = std::max(old, *next) - 1;
    next = x.rng.uniform_int(lo, hi);
  }
  term.value = *next;
  e.note = fmt::format("{} {} {} -> {} in {}", feature_name(term.feature), cmp_op_text(term.op),
                       old, *next, where(x.parent, r));
  return e;
}

} // namespace tv::mock
