#include "eval/shape_gaps.hpp"

#include <algorithm>
#include <cmath>

namespace tv {

ShapeGaps shape_gaps(const Scorer& set, const Program& program, const Program& reference,
                     std::size_t top) {
  ShapeGaps out;
  const std::vector<std::size_t>& rows = set.rows();
  const std::vector<Shape>& shapes = set.table().shapes();
  const std::vector<double> a = set.program_times(program);
  const std::vector<double> b = set.program_times(reference);
  const SetScore sa = set.score_times(a), sb = set.score_times(b);
  out.shapes = rows.size();
  if (sa.valid && sb.valid) out.gap = 100 * (sa.fraction_of_oracle - sb.fraction_of_oracle);
  std::vector<ShapeGap> differ;
  double log_gap = 0; // weighted sum over the timed shapes of log(reference time / time)
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const Shape& s = shapes[rows[i]];
    const Config ca = program.choose(s), cb = reference.choose(s);
    if (ca == cb) continue;
    ++out.differ;
    const double ta = a[i], tb = b[i];
    if (!(std::isfinite(ta) && ta > 0 && std::isfinite(tb) && tb > 0)) {
      ++out.untimed;
      continue;
    }
    const double oracle = set.oracle_times()[i];
    const double share = set.weights()[i] * std::log(tb / ta);
    log_gap += share;
    differ.push_back({s, ca, cb, oracle / ta, oracle / tb, share});
  }
  // The fraction of the oracle is F_ref x exp(log_gap); shares of log_gap scaled by
  // 100 F_ref (exp(log_gap) - 1) / log_gap sum to the gap in points (no shares without a valid
  // reference score).
  const double scale = !sb.valid ? 0.0
                       : log_gap == 0.0
                           ? 100 * sb.fraction_of_oracle
                           : 100 * sb.fraction_of_oracle * std::expm1(log_gap) / log_gap;
  for (ShapeGap& g : differ) {
    g.points *= scale;
    if (g.a_of_oracle > g.b_of_oracle) {
      ++out.gaining;
      out.gained += g.points;
    } else if (g.a_of_oracle < g.b_of_oracle) {
      ++out.losing;
      out.lost += g.points;
    }
  }
  // Largest first; ties in the order of the set's rows.
  const auto largest = [&](bool gains) {
    std::vector<ShapeGap> side;
    for (const ShapeGap& g : differ)
      if (gains ? g.a_of_oracle > g.b_of_oracle : g.a_of_oracle < g.b_of_oracle) side.push_back(g);
    std::stable_sort(side.begin(), side.end(), [](const ShapeGap& x, const ShapeGap& y) {
      return std::abs(x.points) > std::abs(y.points);
    });
    if (side.size() > top) side.resize(top);
    return side;
  };
  out.losses = largest(false);
  out.gains = largest(true);
  return out;
}

} // namespace tv
