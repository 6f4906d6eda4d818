/// Exact simplification of rule programs by box arithmetic.
///
/// The domain is the box [1, kDimMax]^3; every statement below ("never fires", "changes no
/// decision", "always true") is about that domain. Shapes with a dimension above kDimMax are
/// outside it: Condition::box() clamps huge literals, so `M <= 9223372036854775807` counts as
/// always true here.
///
/// simplify(p) works in this fixed order:
///  1. Clean every condition. Per feature, the condition's box keeps an interval [lo, hi]; we
///     keep the fewest comparisons that still give that interval, preferring earlier terms:
///     the first single term that gives every needed bound (e.g. `M == 5`), otherwise the first
///     term giving the lower bound and the first giving the upper bound. Kept terms keep their
///     spelling and their order (`M < 129` is never rewritten). Bounds equal to the domain's
///     edges need no term (`M >= 1` disappears), so a condition can become empty (`if True:`).
///     A condition with an empty box is left as it is: its rule is removed in step 2.
///  1b. Drop comparisons implied by earlier rules, first rule first and, within a rule, last
///     comparison first: a comparison goes when every shape that fails it but passes the rule's
///     other comparisons is decided by an earlier rule (`if M <= 16: A` then `if M > 16 and
///     N <= 4096: B` becomes `if N <= 4096: B`). Dropping one only enlarges its rule's box,
///     which can make later rules' comparisons implied (they are checked after it) but never
///     makes an already kept one implied, and steps 2 and 3 only remove rules: none becomes
///     implied afterwards, so one pass suffices.
///  2. One backward pass, last rule first: a rule is removed when every shape it decides would
///     get the same config from the next matching later rule or from the default (a rule that
///     never fires decides no shape, so it always goes). Later rules go first because removing
///     rule i only enlarges the regions of later rules and leaves what follows them unchanged,
///     so a later rule the pass already kept can never become removable: one pass reaches the
///     fixpoint (a forward pass would not). When two rules are each removable but not both
///     (`M <= 10 -> A`, `M <= 20 -> A`, `11 <= M <= 30 -> A`, default B), the later one goes
///     and the earlier one, which is usually the more specific, stays.
///  3. Fold: when the default can never be reached (e.g. after an always-true rule), its value
///     is free, so it becomes the last rule's config; that rule is then removable, and step 2
///     runs again. Repeat until the default is reachable or no rules are left.
/// The result has no removable rule, no removable term and a reachable default (or no rules),
/// so simplifying it again changes nothing: simplify is idempotent.
///
/// Box lists are kept disjoint; empty pieces are never stored, and a box that does not meet a
/// piece leaves it whole. Piece counts are bounded by the grid of the rules' bounds.
#include "ir/simplify.hpp"

#include <algorithm>
#include <cstdint>
#include <unordered_set>
#include <utility>

namespace tv {
namespace {

/// The relaxed space of a set of rule lists: M, N, K and their distinct derived features.
class Geometry {
public:
  void add(const Program& p) {
    for (const auto& r : p.rules)
      for (const auto& t : r.condition.terms)
        space_.add(t);
  }
  bool relaxed() const { return !space_.derived().empty(); }
  const FeatureSpace& space() const { return space_; }
  Box full() const {
    Box b;
    b.dims = space_.dims();
    return b;
  }
  /// The condition's box without tightening (the bounds its terms put, per coordinate).
  Box raw_box(const Condition& c) const {
    Box b = full();
    for (const auto& t : c.terms) {
      const Interval v = accepted_values(t);
      Interval& i = b.dim[space_.dim_of(t)];
      i.lo = std::max(i.lo, v.lo);
      i.hi = std::min(i.hi, v.hi);
    }
    return b;
  }
  Box box(const Condition& c) const { return c.box(space_); }
  void tighten(Box& b) const { space_.tighten(b); }

  bool intersects(const Box& a, const Box& b) const {
    Box x = a;
    for (int d = 0; d < a.dims; ++d) {
      x.dim[d].lo = std::max(a.dim[d].lo, b.dim[d].lo);
      x.dim[d].hi = std::min(a.dim[d].hi, b.dim[d].hi);
      if (x.dim[d].empty()) return false;
    }
    if (!relaxed()) return true;
    space_.tighten(x);
    return !x.empty();
  }

  // Appends the disjoint pieces of a \ b to `out`; requires `a` and `b` to intersect.
  // Slab decomposition: per dimension, cut off what lies below and above b, then narrow.
  void append_difference(Box rest, const Box& b, std::vector<Box>& out) const {
    auto push = [&](Box piece) {
      if (relaxed()) {
        space_.tighten(piece);
        if (piece.empty()) return;
      }
      out.push_back(piece);
    };
    for (int d = 0; d < rest.dims; ++d) {
      const Interval cut{std::max(rest.dim[d].lo, b.dim[d].lo),
                         std::min(rest.dim[d].hi, b.dim[d].hi)};
      if (rest.dim[d].lo < cut.lo) {
        Box piece = rest;
        piece.dim[d] = {rest.dim[d].lo, cut.lo - 1};
        push(piece);
      }
      if (cut.hi < rest.dim[d].hi) {
        Box piece = rest;
        piece.dim[d] = {cut.hi + 1, rest.dim[d].hi};
        push(piece);
      }
      rest.dim[d] = cut;
    }
  }

  // Removes `b` from the disjoint non-empty boxes `pieces` (which stay disjoint and non-empty).
  void subtract(std::vector<Box>& pieces, const Box& b) const {
    if (b.empty()) return;
    const std::size_t n = pieces.size();
    std::size_t removed = 0;
    for (std::size_t k = 0; k < n; ++k) {
      if (!intersects(pieces[k], b)) continue;
      const Box a = pieces[k];
      append_difference(a, b, pieces);
      pieces[k].dim[0] = {1, 0}; // mark for removal
      ++removed;
    }
    if (removed > 0) std::erase_if(pieces, [](const Box& x) { return x.dim[0].empty(); });
  }

  std::vector<Box> boxes_of(const std::vector<Rule>& rules) const {
    std::vector<Box> boxes;
    boxes.reserve(rules.size());
    for (const auto& r : rules)
      boxes.push_back(box(r.condition));
    return boxes;
  }

  // Box i minus boxes 0..i-1.
  std::vector<Box> region(const std::vector<Box>& boxes, std::size_t i) const {
    std::vector<Box> pieces;
    if (boxes[i].empty()) return pieces;
    pieces.push_back(boxes[i]);
    for (std::size_t j = 0; j < i && !pieces.empty(); ++j)
      subtract(pieces, boxes[j]);
    return pieces;
  }

  // The domain minus every box.
  std::vector<Box> uncovered(const std::vector<Box>& boxes) const {
    std::vector<Box> pieces{full()};
    for (const auto& b : boxes) {
      if (pieces.empty()) break;
      subtract(pieces, b);
    }
    return pieces;
  }

  // True when every shape in `pieces` gets config `c` from rules[from..] (first match) or,
  // when none matches, from `dflt`.
  bool decided_as(std::vector<Box> pieces, const std::vector<Rule>& rules,
                  const std::vector<Box>& boxes, std::size_t from, const Config& dflt,
                  const Config& c) const {
    for (std::size_t j = from; j < rules.size() && !pieces.empty(); ++j) {
      if (rules[j].config == c) {
        subtract(pieces, boxes[j]);
      } else {
        for (const auto& piece : pieces)
          if (intersects(piece, boxes[j])) return false;
      }
    }
    return pieces.empty() || dflt == c;
  }

  // Drops comparisons implied by the others (see step 1 at the top of this file).
  Condition clean(const Condition& c) const {
    Condition out = clean_bounds(c);
    if (!out.has_derived()) return out;
    // Terms implied by the tightened box of the others (real shapes only), last first.
    for (bool changed = true; changed;) {
      changed = false;
      for (std::size_t k = out.terms.size(); k-- > 0;) {
        Condition others = out;
        others.terms.erase(others.terms.begin() + std::ptrdiff_t(k));
        Box rest = raw_box(others);
        tighten(rest);
        if (rest.empty()) continue;
        const Comparison& t = out.terms[k];
        const int d = space_.dim_of(t);
        const Interval own = accepted_values(t);
        if (rest.dim[d].lo >= own.lo && rest.dim[d].hi <= own.hi) {
          out = std::move(others);
          changed = true;
          break;
        }
      }
    }
    return out;
  }

  /// True when comparison k of rule i can go: every shape that passes the rule's other
  /// comparisons but fails comparison k is decided by an earlier rule (`boxes` are the rules'
  /// boxes), so the rule decides the same shapes without it.
  bool implied_by_earlier(const std::vector<Rule>& rules, const std::vector<Box>& boxes,
                          std::size_t i, std::size_t k) const {
    const Condition& c = rules[i].condition;
    Comparison negated = c.terms[k];
    switch (negated.op) {
    case CmpOp::le:
      negated.op = CmpOp::gt;
      break;
    case CmpOp::lt:
      negated.op = CmpOp::ge;
      break;
    case CmpOp::gt:
      negated.op = CmpOp::le;
      break;
    case CmpOp::ge:
      negated.op = CmpOp::lt;
      break;
    case CmpOp::eq:
      return false;
    }
    Condition outside = c;
    outside.terms[k] = negated;
    const Box b = box(outside);
    if (b.empty()) return true;
    std::vector<Box> pieces{b};
    for (std::size_t j = 0; j < i && !pieces.empty(); ++j)
      subtract(pieces, boxes[j]);
    return pieces.empty();
  }

private:
  /// Per coordinate, the fewest comparisons giving the same interval (untightened).
  Condition clean_bounds(const Condition& c) const {
    const Box box = raw_box(c);
    if (box.empty()) return c;
    std::vector<Interval> own(c.terms.size());
    std::vector<int> dim_of(c.terms.size());
    for (std::size_t k = 0; k < c.terms.size(); ++k) {
      dim_of[k] = space_.dim_of(c.terms[k]);
      own[k] = accepted_values(c.terms[k]);
    }
    std::vector<bool> keep(c.terms.size(), false);
    for (int d = 0; d < box.dims; ++d) {
      const Interval want = box.dim[d];
      const bool need_lo = want.lo > 1, need_hi = want.hi < kDimMax;
      if (!need_lo && !need_hi) continue;
      std::ptrdiff_t both = -1, first_lo = -1, first_hi = -1;
      for (std::size_t k = 0; k < c.terms.size(); ++k) {
        if (dim_of[k] != d) continue;
        const bool lo_ok = need_lo && own[k].lo == want.lo;
        const bool hi_ok = need_hi && own[k].hi == want.hi;
        if (both < 0 && (lo_ok || !need_lo) && (hi_ok || !need_hi)) both = std::ptrdiff_t(k);
        if (first_lo < 0 && lo_ok) first_lo = std::ptrdiff_t(k);
        if (first_hi < 0 && hi_ok) first_hi = std::ptrdiff_t(k);
      }
      if (both >= 0) {
        keep[std::size_t(both)] = true;
      } else {
        if (first_lo >= 0) keep[std::size_t(first_lo)] = true;
        if (first_hi >= 0) keep[std::size_t(first_hi)] = true;
      }
    }
    Condition out;
    for (std::size_t k = 0; k < c.terms.size(); ++k)
      if (keep[k]) out.terms.push_back(c.terms[k]);
    return out;
  }

  FeatureSpace space_;
};

} // namespace

namespace {
Geometry geometry_of(const Program& p) {
  Geometry g;
  g.add(p);
  return g;
}
} // namespace

std::vector<Box> box_difference(const Box& a, const Box& b) {
  std::vector<Box> out;
  if (a.empty()) return out;
  const Geometry g; // plain boxes: no derived coordinates to tighten
  if (b.empty() || !g.intersects(a, b)) {
    out.push_back(a);
    return out;
  }
  g.append_difference(a, b, out);
  return out;
}

std::vector<Box> effective_region(const Program& p, std::size_t i) {
  if (i >= p.rules.size()) return {};
  const Geometry g = geometry_of(p);
  std::vector<Box> pieces;
  const Box own = g.box(p.rules[i].condition);
  if (own.empty()) return pieces;
  pieces.push_back(own);
  for (std::size_t j = 0; j < i && !pieces.empty(); ++j)
    g.subtract(pieces, g.box(p.rules[j].condition));
  return pieces;
}

bool default_reachable(const Program& p) {
  const Geometry g = geometry_of(p);
  return !g.uncovered(g.boxes_of(p.rules)).empty();
}

LiveBranches live_branches(const Program& p) {
  LiveBranches out;
  const Geometry g = geometry_of(p);
  std::vector<Box> rest{g.full()}; // the domain not yet decided by earlier rules
  for (std::size_t i = 0; i < p.rules.size() && !rest.empty(); ++i) {
    const Box box = g.box(p.rules[i].condition);
    if (box.empty()) continue;
    const bool fires =
        std::any_of(rest.begin(), rest.end(), [&](const Box& r) { return g.intersects(r, box); });
    if (!fires) continue;
    out.rules.push_back(i);
    g.subtract(rest, box);
  }
  out.default_live = !rest.empty();
  return out;
}

std::vector<Config> reachable_configs(const Program& p) {
  std::vector<Config> out;
  std::unordered_set<Config> seen;
  const auto add = [&](const Config& c) {
    if (seen.insert(c).second) out.push_back(c);
  };
  const LiveBranches live = live_branches(p);
  for (std::size_t i : live.rules)
    add(p.rules[i].config);
  if (live.default_live) add(p.default_config);
  return out;
}

bool equivalent(const Program& a, const Program& b) {
  Geometry g;
  g.add(a);
  g.add(b);
  const std::vector<Box> boxes_a = g.boxes_of(a.rules), boxes_b = g.boxes_of(b.rules);
  for (std::size_t i = 0; i < a.rules.size(); ++i) {
    std::vector<Box> piece = g.region(boxes_a, i);
    if (piece.empty()) continue;
    if (!g.decided_as(std::move(piece), b.rules, boxes_b, 0, b.default_config, a.rules[i].config))
      return false;
  }
  std::vector<Box> rest = g.uncovered(boxes_a);
  return rest.empty() ||
         g.decided_as(std::move(rest), b.rules, boxes_b, 0, b.default_config, a.default_config);
}

Program simplify(const Program& p) {
  const Geometry g = geometry_of(p);
  Program out;
  out.default_config = p.default_config;
  out.rules.reserve(p.rules.size());
  for (const auto& r : p.rules)
    out.rules.push_back(Rule{g.clean(r.condition), r.config});
  std::vector<Box> boxes = g.boxes_of(out.rules);
  // Comparisons implied by the rules before them (`M > 16` after a rule that took M <= 16).
  for (std::size_t i = 0; i < out.rules.size(); ++i) {
    auto& terms = out.rules[i].condition.terms;
    for (std::size_t k = terms.size(); k-- > 0;)
      if (g.implied_by_earlier(out.rules, boxes, i, k)) {
        terms.erase(terms.begin() + std::ptrdiff_t(k));
        boxes[i] = g.box(out.rules[i].condition);
      }
  }
  for (;;) {
    for (std::size_t i = out.rules.size(); i-- > 0;) {
      if (g.decided_as(g.region(boxes, i), out.rules, boxes, i + 1, out.default_config,
                       out.rules[i].config)) {
        out.rules.erase(out.rules.begin() + std::ptrdiff_t(i));
        boxes.erase(boxes.begin() + std::ptrdiff_t(i));
      }
    }
    if (out.rules.empty() || !g.uncovered(boxes).empty()) break;
    // The default is never reached: let the last rule's config take its place.
    out.default_config = out.rules.back().config;
  }
  return out;
}

} // namespace tv

namespace tv {

Program drop_unexercised_rules(const Program& p, const std::vector<Shape>& shapes, int min_shapes) {
  std::vector<int> used(p.rules.size(), 0);
  bool default_decides = false; // the default decides one of `shapes` in p
  for (const Shape& s : shapes)
    if (const int r = p.deciding_rule(s); r >= 0)
      ++used[std::size_t(r)];
    else
      default_decides = true;
  Program out;
  out.default_config = p.default_config;
  for (std::size_t i = 0; i < p.rules.size(); ++i)
    if (used[i] >= min_shapes) out.rules.push_back(p.rules[i]);
  // A default that decides none of the shapes is an untested guess too: the last rule's config
  // (which was timed) takes its place, and that rule goes (its shapes keep their config).
  // With min_shapes <= 1 every rule that decides a shape stays, so each shape keeps its
  // deciding rule and the default decides in `out` the shapes it decided in p.
  const bool default_used =
      min_shapes <= 1 ? default_decides
                      : std::any_of(shapes.begin(), shapes.end(),
                                    [&](const Shape& s) { return out.deciding_rule(s) < 0; });
  if (!default_used && !out.rules.empty()) {
    out.default_config = out.rules.back().config;
    out.rules.pop_back();
  }
  return out;
}

} // namespace tv
