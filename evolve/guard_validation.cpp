#include "evolve/guard_validation.hpp"

#include "ir/plural.hpp"
#include "ir/wave_guards.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

namespace tv {

std::vector<GuardDiversion> guard_diversions(const Program& p, const std::vector<Shape>& shapes,
                                             const std::vector<std::vector<std::size_t>>& folds,
                                             int units) {
  std::vector<GuardDiversion> out;
  std::vector<bool> held(shapes.size());
  std::vector<Shape> fit;
  for (const auto& fold : folds) {
    held.assign(shapes.size(), false);
    for (std::size_t i : fold)
      if (i < shapes.size()) held[i] = true;
    fit.clear();
    for (std::size_t i = 0; i < shapes.size(); ++i)
      if (!held[i]) fit.push_back(shapes[i]);
    const Program guarded = guard_waves(p, fit, units, {}, false).program;
    for (std::size_t i : fold) {
      if (i >= shapes.size()) continue;
      const Config& plain = p.choose(shapes[i]);
      const Config& moved = guarded.choose(shapes[i]);
      const int rule = p.deciding_rule(shapes[i]);
      if (moved == plain || rule < 0) continue;
      out.push_back({i, std::size_t(rule), plain, moved});
    }
  }
  return out;
}

GuardValidation
judge_guards(std::size_t rules, int folds, const std::vector<GuardDiversion>& diversions,
             const std::function<double(const GuardDiversion&, const Config&)>& seconds,
             const std::function<double(const GuardDiversion&)>& weight) {
  GuardValidation out;
  out.folds = folds;
  out.rules.assign(rules, {});
  out.keep.assign(rules, true);
  if (folds < 2) return out;
  for (const GuardDiversion& d : diversions) {
    if (d.rule >= rules) continue;
    GuardEvidence& e = out.rules[d.rule];
    ++e.diverted;
    const double plain = seconds(d, d.plain), guarded = seconds(d, d.guarded);
    if (!(plain > 0 && std::isfinite(plain) && guarded > 0 && std::isfinite(guarded))) continue;
    ++e.measured;
    e.gain += std::max(0.0, weight(d)) * std::log(plain / guarded);
  }
  for (std::size_t i = 0; i < rules; ++i)
    if (out.rules[i].measured > 0 && out.rules[i].gain < 0) out.keep[i] = false;
  return out;
}

std::string GuardValidation::summary() const {
  if (folds < 2) return "";
  int diverted = 0, measured = 0;
  std::string dropped;
  for (std::size_t i = 0; i < rules.size(); ++i) {
    diverted += rules[i].diverted;
    measured += rules[i].measured;
    if (!keep[i]) dropped += fmt::format("{}{}", dropped.empty() ? "" : ", ", i + 1);
  }
  return fmt::format("{} over {} folds ({} measured); {}",
                     counted(diverted, "diversion", "diversions"), folds, measured,
                     dropped.empty() ? std::string("every guard kept")
                                     : fmt::format("guards dropped on rules {}", dropped));
}

} // namespace tv
