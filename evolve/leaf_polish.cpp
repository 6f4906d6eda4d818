#include "evolve/leaf_polish.hpp"

#include "ir/plural.hpp"
#include "ir/text.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

namespace tv {

bool one_field_apart(const Config& a, const Config& b) {
  if (a.vendor || b.vendor) return false;
  const int differ = (a.BM != b.BM) + (a.BN != b.BN) + (a.BK != b.BK) + (a.warps != b.warps) +
                     (a.stages != b.stages) + (a.group != b.group) +
                     (a.waves_per_eu != b.waves_per_eu) +
                     (a.matrix_instr_nonkdim != b.matrix_instr_nonkdim) + (a.kpack != b.kpack);
  return differ == 1;
}

namespace {

/// The config of leaf `i` of `p`: rule i, or the default for i == rules.size().
Config& config_at(Program& p, std::size_t i) {
  return i < p.rules.size() ? p.rules[i].config : p.default_config;
}

} // namespace

PolishedLeaves polish_leaves(const Program& p, const std::vector<Config>& space,
                             const std::vector<Shape>& shapes, const LeafCost& cost, double bar,
                             int max_rounds) {
  PolishedLeaves out{p, {}, 0};
  // The shapes each leaf decides (the conditions never change, so neither do these).
  std::vector<std::vector<std::size_t>> leaf(p.rules.size() + 1);
  std::vector<double> weight(p.rules.size() + 1, 0.0);
  for (std::size_t s = 0; s < shapes.size(); ++s) {
    const int r = p.deciding_rule(shapes[s]);
    const std::size_t i = r < 0 ? p.rules.size() : std::size_t(r);
    leaf[i].push_back(s);
    weight[i] += std::max(0.0, shapes[s].weight);
  }
  const double log_bar = std::log(std::max(1.0, bar));
  for (int round = 0; round < max_rounds; ++round) {
    bool changed = false;
    for (std::size_t i = 0; i < leaf.size(); ++i) {
      if (leaf[i].empty() || !(weight[i] > 0)) continue;
      const Config from = config_at(out.program, i);
      const std::optional<double> now = cost(leaf[i], from);
      if (!now) continue;
      std::optional<Config> best;
      double best_cost = *now - log_bar * weight[i]; // a neighbour must beat this
      for (const Config& n : space) {
        if (!one_field_apart(n, from)) continue;
        ++out.tried;
        if (const std::optional<double> c = cost(leaf[i], n); c && *c < best_cost) {
          best = n;
          best_cost = *c;
        }
      }
      if (!best) continue;
      out.changes.push_back(fmt::format(
          "{} ({}): {} -> {}, {:.2f}% faster there", rule_reference(out.program, i),
          counted((long long)leaf[i].size(), "training shape", "training shapes"), from.brief(),
          best->brief(), 100 * std::expm1((*now - best_cost) / weight[i])));
      config_at(out.program, i) = *best;
      changed = true;
    }
    if (!changed) break;
  }
  return out;
}

} // namespace tv
