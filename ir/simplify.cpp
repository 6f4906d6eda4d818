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
#include <utility>

namespace tv {
namespace {

bool intersects(const Box& a, const Box& b) {
  for (int d = 0; d < 3; ++d)
    if (std::max(a.dim[d].lo, b.dim[d].lo) > std::min(a.dim[d].hi, b.dim[d].hi)) return false;
  return true;
}

// Appends the disjoint pieces of a \ b to `out`; requires `a` and `b` to intersect.
// Slab decomposition: per dimension, cut off what lies below and above b, then narrow.
void append_difference(Box rest, const Box& b, std::vector<Box>& out) {
  for (int d = 0; d < 3; ++d) {
    const Interval cut{std::max(rest.dim[d].lo, b.dim[d].lo),
                       std::min(rest.dim[d].hi, b.dim[d].hi)};
    if (rest.dim[d].lo < cut.lo) {
      Box piece = rest;
      piece.dim[d] = {rest.dim[d].lo, cut.lo - 1};
      out.push_back(piece);
    }
    if (cut.hi < rest.dim[d].hi) {
      Box piece = rest;
      piece.dim[d] = {cut.hi + 1, rest.dim[d].hi};
      out.push_back(piece);
    }
    rest.dim[d] = cut;
  }
}

// Removes `b` from the disjoint non-empty boxes `pieces` (which stay disjoint and non-empty).
void subtract(std::vector<Box>& pieces, const Box& b) {
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

std::vector<Box> boxes_of(const std::vector<Rule>& rules) {
  std::vector<Box> boxes;
  boxes.reserve(rules.size());
  for (const auto& r : rules)
    boxes.push_back(r.condition.box());
  return boxes;
}

// Box i minus boxes 0..i-1.
std::vector<Box> region(const std::vector<Box>& boxes, std::size_t i) {
  std::vector<Box> pieces;
  if (boxes[i].empty()) return pieces;
  pieces.push_back(boxes[i]);
  for (std::size_t j = 0; j < i && !pieces.empty(); ++j)
    subtract(pieces, boxes[j]);
  return pieces;
}

// The domain minus every box.
std::vector<Box> uncovered(const std::vector<Box>& boxes) {
  std::vector<Box> pieces{Box{}};
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
                const Config& c) {
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
Condition clean(const Condition& c) {
  const Box box = c.box();
  if (box.empty()) return c;
  std::vector<Interval> own(c.terms.size());
  for (std::size_t k = 0; k < c.terms.size(); ++k)
    own[k] = Condition{{c.terms[k]}}.box().dim[int(c.terms[k].feature)];
  std::vector<bool> keep(c.terms.size(), false);
  for (int d = 0; d < 3; ++d) {
    const Interval want = box.dim[d];
    const bool need_lo = want.lo > 1, need_hi = want.hi < kDimMax;
    if (!need_lo && !need_hi) continue;
    std::ptrdiff_t both = -1, first_lo = -1, first_hi = -1;
    for (std::size_t k = 0; k < c.terms.size(); ++k) {
      if (int(c.terms[k].feature) != d) continue;
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

} // namespace

std::vector<Box> box_difference(const Box& a, const Box& b) {
  std::vector<Box> out;
  if (a.empty()) return out;
  if (b.empty() || !intersects(a, b)) {
    out.push_back(a);
    return out;
  }
  append_difference(a, b, out);
  return out;
}

std::vector<Box> effective_region(const Program& p, std::size_t i) {
  if (i >= p.rules.size()) return {};
  std::vector<Box> pieces;
  const Box own = p.rules[i].condition.box();
  if (own.empty()) return pieces;
  pieces.push_back(own);
  for (std::size_t j = 0; j < i && !pieces.empty(); ++j)
    subtract(pieces, p.rules[j].condition.box());
  return pieces;
}

bool default_reachable(const Program& p) {
  return !uncovered(boxes_of(p.rules)).empty();
}

std::vector<Config> reachable_configs(const Program& p) {
  std::vector<Config> out;
  const auto add = [&out](const Config& c) {
    if (std::find(out.begin(), out.end(), c) == out.end()) out.push_back(c);
  };
  const std::vector<Box> boxes = boxes_of(p.rules);
  std::vector<Box> rest{Box{}}; // the domain not yet decided by earlier rules
  for (std::size_t i = 0; i < p.rules.size() && !rest.empty(); ++i) {
    if (boxes[i].empty()) continue;
    const bool fires = std::any_of(rest.begin(), rest.end(),
                                   [&](const Box& r) { return intersects(r, boxes[i]); });
    if (!fires) continue;
    add(p.rules[i].config);
    subtract(rest, boxes[i]);
  }
  if (!rest.empty()) add(p.default_config);
  return out;
}

bool equivalent(const Program& a, const Program& b) {
  const std::vector<Box> boxes_a = boxes_of(a.rules), boxes_b = boxes_of(b.rules);
  for (std::size_t i = 0; i < a.rules.size(); ++i) {
    std::vector<Box> piece = region(boxes_a, i);
    if (piece.empty()) continue;
    if (!decided_as(std::move(piece), b.rules, boxes_b, 0, b.default_config, a.rules[i].config))
      return false;
  }
  std::vector<Box> rest = uncovered(boxes_a);
  return rest.empty() ||
         decided_as(std::move(rest), b.rules, boxes_b, 0, b.default_config, a.default_config);
}

Program simplify(const Program& p) {
  Program out;
  out.default_config = p.default_config;
  out.rules.reserve(p.rules.size());
  for (const auto& r : p.rules)
    out.rules.push_back(Rule{clean(r.condition), r.config});
  std::vector<Box> boxes = boxes_of(out.rules);
  for (;;) {
    for (std::size_t i = out.rules.size(); i-- > 0;) {
      if (decided_as(region(boxes, i), out.rules, boxes, i + 1, out.default_config,
                     out.rules[i].config)) {
        out.rules.erase(out.rules.begin() + std::ptrdiff_t(i));
        boxes.erase(boxes.begin() + std::ptrdiff_t(i));
      }
    }
    if (out.rules.empty() || !uncovered(boxes).empty()) break;
    // The default is never reached: let the last rule's config take its place.
    out.default_config = out.rules.back().config;
  }
  return out;
}

} // namespace tv

namespace tv {

Program drop_unexercised_rules(const Program& p, const std::vector<Shape>& shapes, int min_shapes) {
  std::vector<int> used(p.rules.size(), 0);
  for (const Shape& s : shapes)
    if (const int r = p.deciding_rule(s); r >= 0) ++used[std::size_t(r)];
  Program out;
  out.default_config = p.default_config;
  for (std::size_t i = 0; i < p.rules.size(); ++i)
    if (used[i] >= min_shapes) out.rules.push_back(p.rules[i]);
  // A default that decides none of the shapes is an untested guess too: the last rule's config
  // (which was timed) takes its place, and that rule goes (its shapes keep their config).
  const bool default_used = std::any_of(shapes.begin(), shapes.end(),
                                        [&](const Shape& s) { return out.deciding_rule(s) < 0; });
  if (!default_used && !out.rules.empty()) {
    out.default_config = out.rules.back().config;
    out.rules.pop_back();
  }
  return out;
}

} // namespace tv
