#include "ir/box_split.hpp"

#include <cstddef>
#include <vector>

namespace tv {

namespace {

std::size_t comparisons(const std::vector<Rule>& rules) {
  std::size_t n = 0;
  for (const Rule& r : rules)
    n += r.condition.terms.size();
  return n;
}

/// `rules` each with `extra` put before its own comparisons, appended to `out`.
void append_with(std::vector<Rule>& out, const std::vector<Rule>& rules,
                 const std::vector<Comparison>& extra) {
  for (const Rule& r : rules) {
    Rule g;
    g.condition.terms = extra;
    g.condition.terms.insert(g.condition.terms.end(), r.condition.terms.begin(),
                             r.condition.terms.end());
    g.config = r.config;
    out.push_back(std::move(g));
  }
}

} // namespace

Program box_split(const Box& box, const Program& inside, const Program& outside) {
  // The box's bounds (inside: every one holds) and its faces (outside: at least one fails).
  std::vector<Comparison> bounds, faces;
  for (int d = 0; d < 3; ++d) {
    const Feature f = Feature(d);
    const Interval& i = box.dim[std::size_t(d)];
    if (i.lo > 1) {
      bounds.push_back({f, CmpOp::ge, i.lo});
      faces.push_back({f, CmpOp::lt, i.lo});
    }
    if (i.hi < kDimMax) {
      bounds.push_back({f, CmpOp::le, i.hi});
      faces.push_back({f, CmpOp::gt, i.hi});
    }
  }
  if (bounds.empty()) return inside;
  // Comparisons beside inside's own, which both spellings hold once.
  const std::size_t faces_first =
      faces.size() * (comparisons(outside.rules) + outside.rules.size() + 1);
  const std::size_t bounds_first =
      (inside.rules.size() + 1) * bounds.size() + comparisons(outside.rules);
  Program out;
  if (faces_first <= bounds_first) {
    for (const Comparison& face : faces) {
      append_with(out.rules, outside.rules, {face});
      out.rules.push_back({Condition{{face}}, outside.default_config});
    }
    out.rules.insert(out.rules.end(), inside.rules.begin(), inside.rules.end());
    out.default_config = inside.default_config;
    return out;
  }
  append_with(out.rules, inside.rules, bounds);
  out.rules.push_back({Condition{bounds}, inside.default_config});
  out.rules.insert(out.rules.end(), outside.rules.begin(), outside.rules.end());
  out.default_config = outside.default_config;
  return out;
}

} // namespace tv
