#include "ir/threshold_placement.hpp"

#include "ir/text.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <limits>
#include <optional>

namespace tv {

namespace {

/// Roundness rank of v (lower is rounder): powers of two, then 3 x powers of two, then by
/// the number of trailing zero bits.
int roundness(std::int64_t v, bool tile_count, int units) {
  if (tile_count && units > 1) {
    const std::int64_t half = units / 2;
    if (v % units == 0) return 0;
    if (v % half == 0) return 1;
  }
  const int base = tile_count && units > 1 ? 2 : 0;
  const auto u = static_cast<std::uint64_t>(v);
  if ((u & (u - 1)) == 0) return base;
  if (u % 3 == 0 && ((u / 3) & (u / 3 - 1)) == 0) return base + 1;
  int tz = 0;
  for (std::uint64_t x = u; (x & 1) == 0; x >>= 1)
    ++tz;
  return base + 2 + (64 - tz); // more trailing zeros: rounder
}

/// Distance of v from the geometric mean g in log space.
double log_distance(std::int64_t v, double g) {
  return std::abs(std::log(double(v)) - std::log(g));
}

} // namespace

std::int64_t cut_between(std::int64_t a, std::int64_t b, bool tile_count, int units) {
  if (b <= a + 1) return a;
  const double la = std::log(double(std::max<std::int64_t>(a, 1)));
  const double lb = std::log(double(b));
  const double g = std::exp((la + lb) / 2);
  // The middle tenth of the gap in log space, as integers inside [a, b - 1]. (A wider window
  // reads rounder but generalizes worse: the README's "Thresholds between training values"
  // has the splits study that measured it.)
  const auto lo = std::max(a, std::int64_t(std::ceil(std::exp(la + (lb - la) * 0.45))));
  const auto hi = std::min(b - 1, std::int64_t(std::floor(std::exp(la + (lb - la) * 0.55))));
  std::optional<std::int64_t> best;
  int best_rank = 0;
  const auto consider = [&](std::int64_t v) {
    if (v < lo || v > hi) return;
    const int rank = roundness(v, tile_count, units);
    if (!best || rank < best_rank ||
        (rank == best_rank && log_distance(v, g) < log_distance(*best, g))) {
      best = v;
      best_rank = rank;
    }
  };
  if (lo <= hi) {
    // Candidates: multiples of each power of two nearest the geometric mean (the roundest
    // multiple there is what decides), and of the half-wave step for tile counts.
    std::vector<std::int64_t> steps;
    for (std::int64_t s = 1; s <= hi && s <= (std::int64_t(1) << 61); s *= 2)
      steps.push_back(s);
    if (tile_count && units > 1) {
      steps.push_back(units);
      steps.push_back(units / 2);
    }
    for (std::int64_t s : steps) {
      const std::int64_t first = ((lo + s - 1) / s) * s;
      if (first > hi) continue;
      const auto near = std::int64_t(std::llround(g / double(s))) * s;
      for (std::int64_t v : {first, near - s, near, near + s, (hi / s) * s})
        consider(v);
      for (std::int64_t m : {std::int64_t(3) * s}) // 3 x a power of two
        if (m >= lo && m <= hi) consider(m);
    }
  }
  if (best) return *best;
  return std::clamp(std::int64_t(std::llround(g)), a, b - 1);
}

namespace {

/// The cut `x <= cut` a comparison makes, and whether x on the `<=` side is accepted.
struct Cut {
  std::int64_t cut = 0;
  bool accepts_low = true;
};

std::optional<Cut> cut_of(const Comparison& c) {
  switch (c.op) {
  case CmpOp::le:
    return Cut{c.value, true};
  case CmpOp::lt:
    return Cut{c.value - 1, true};
  case CmpOp::gt:
    return Cut{c.value, false};
  case CmpOp::ge:
    return Cut{c.value - 1, false};
  case CmpOp::eq:
    return std::nullopt;
  }
  return std::nullopt;
}

/// `c` rewritten to cut at `t`, as `<= t` or `> t` so that the round value is the one
/// written (`M < 1025` would read worse than `M <= 1024`).
Comparison with_cut(Comparison c, std::int64_t t) {
  if (c.op == CmpOp::eq) return c;
  c.op = c.op == CmpOp::le || c.op == CmpOp::lt ? CmpOp::le : CmpOp::gt;
  c.value = t;
  return c;
}

} // namespace

namespace {

/// One pass over every comparison (see place_thresholds); appends what it moved.
Program place_once(const Program& p, const std::vector<Shape>& shapes, int units,
                   std::vector<std::string>& changes) {
  Program q = p;
  // Which rule decides each shape does not change as thresholds move (that is the invariant),
  // so "reaches rule i" is read from the original program once.
  std::vector<int> decider(shapes.size());
  for (std::size_t s = 0; s < shapes.size(); ++s)
    decider[s] = p.deciding_rule(shapes[s]);
  for (std::size_t i = 0; i < q.rules.size(); ++i) {
    auto& terms = q.rules[i].condition.terms;
    for (std::size_t k = 0; k < terms.size(); ++k) {
      const std::optional<Cut> cut = cut_of(terms[k]);
      if (!cut || cut->cut < 1 || cut->cut >= kDimMax) continue;
      // Shapes this comparison decides: they reach rule i (no earlier rule took them) and
      // satisfy every other comparison of the rule.
      std::optional<std::int64_t> below, above; // nearest values <= cut and > cut
      for (std::size_t s = 0; s < shapes.size(); ++s) {
        if (decider[s] >= 0 && std::size_t(decider[s]) < i) continue;
        bool others = true;
        for (std::size_t o = 0; o < terms.size() && others; ++o)
          if (o != k && !terms[o].matches(shapes[s])) others = false;
        if (!others) continue;
        const std::int64_t x = terms[k].value_of(shapes[s]);
        if (x <= cut->cut) {
          if (!below || x > *below) below = x;
        } else if (!above || x < *above) {
          above = x;
        }
      }
      if (!below || !above) continue;
      const std::int64_t t = cut_between(*below, *above, terms[k].feature == Feature::tiles, units);
      if (t == cut->cut && (terms[k].op == CmpOp::le || terms[k].op == CmpOp::gt)) continue;
      const Comparison moved = with_cut(terms[k], t);
      changes.push_back(fmt::format("{} {} {} -> {} {} {}", feature_text(terms[k]),
                                    cmp_op_text(terms[k].op), terms[k].value, feature_text(moved),
                                    cmp_op_text(moved.op), moved.value));
      terms[k] = moved;
    }
  }
  return q;
}

} // namespace

PlacedThresholds place_thresholds(const Program& p, const std::vector<Shape>& shapes, int units) {
  // Moving one comparison can change which training shapes another comparison of the same rule
  // decides (a shape outside that set may change sides), so passes repeat until nothing moves.
  PlacedThresholds out;
  out.program = p;
  for (int pass = 0; pass < 16; ++pass) {
    std::vector<std::string> changes;
    Program next = place_once(out.program, shapes, units, changes);
    if (next == out.program) break;
    out.program = std::move(next);
    out.changes.insert(out.changes.end(), changes.begin(), changes.end());
  }
  return out;
}

} // namespace tv
