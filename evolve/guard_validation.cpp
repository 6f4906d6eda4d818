#include "evolve/guard_validation.hpp"

#include "ir/plural.hpp"
#include "ir/text.hpp"
#include "ir/wave_guards.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <fmt/ranges.h>

namespace tv {

std::vector<GuardDiversion> guard_diversions(const Program& p, const std::vector<Shape>& shapes,
                                             const std::vector<std::vector<std::size_t>>& folds,
                                             int units, bool floors) {
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
    const Program guarded =
        guard_waves(p, fit, units, {.with_floors = floors, .returns = false}).program;
    for (std::size_t i : fold) {
      if (i >= shapes.size()) continue;
      const Config& plain = p.choose(shapes[i]);
      const Config& moved = guarded.choose(shapes[i]);
      const int rule = p.deciding_rule(shapes[i]);
      if (moved == plain || rule < 0) continue;
      // Under one wave of the rule's tile only a floor diverts a shape (a guard's bound is
      // whole waves).
      const Config& c = p.rules[std::size_t(rule)].config;
      const bool floor =
          guardable(c) &&
          Comparison{Feature::tiles, CmpOp::lt, units, c.BM, c.BN}.matches(shapes[i]);
      out.push_back({i, std::size_t(rule), plain, moved, floor});
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
  out.floors.assign(rules, {});
  out.keep_floor.assign(rules, true);
  if (folds < 2) return out;
  for (const GuardDiversion& d : diversions) {
    if (d.rule >= rules) continue;
    GuardEvidence& e = d.floor ? out.floors[d.rule] : out.rules[d.rule];
    ++e.diverted;
    const double plain = seconds(d, d.plain), guarded = seconds(d, d.guarded);
    if (!(plain > 0 && std::isfinite(plain) && guarded > 0 && std::isfinite(guarded))) continue;
    ++e.measured;
    e.gain += std::max(0.0, weight(d)) * std::log(plain / guarded);
  }
  for (std::size_t i = 0; i < rules; ++i) {
    if (out.rules[i].measured > 0 && out.rules[i].gain < 0) out.keep[i] = false;
    if (out.floors[i].measured > 0 && out.floors[i].gain < 0) out.keep_floor[i] = false;
  }
  return out;
}

std::string GuardValidation::summary(const Program* program) const {
  if (folds < 2) return "";
  int diverted = 0, measured = 0, by_floors = 0;
  std::string dropped, floors_dropped;
  const auto add = [&](std::string& list, std::size_t i) {
    if (program)
      list += (list.empty() ? "" : "; ") + rule_reference(*program, i);
    else
      list += fmt::format("{}{}", list.empty() ? "" : ", ", i + 1);
  };
  for (std::size_t i = 0; i < rules.size(); ++i) {
    diverted += rules[i].diverted;
    measured += rules[i].measured;
    if (!keep[i]) add(dropped, i);
  }
  for (std::size_t i = 0; i < floors.size(); ++i) {
    diverted += floors[i].diverted;
    measured += floors[i].measured;
    by_floors += floors[i].diverted;
    if (i < keep_floor.size() && !keep_floor[i]) add(floors_dropped, i);
  }
  std::vector<std::string> verdicts;
  const char* on = program ? "guards dropped on " : "guards dropped on rules ";
  const char* floors_on = program ? "floors dropped on " : "floors dropped on rules ";
  if (!dropped.empty()) verdicts.push_back(on + dropped);
  if (!floors_dropped.empty()) verdicts.push_back(floors_on + floors_dropped);
  const std::string verdict = verdicts.empty() ? std::string("every guard kept")
                                               : fmt::format("{}", fmt::join(verdicts, ", "));
  return fmt::format(
      "{} over {} folds ({} measured{}); {}", counted(diverted, "diversion", "diversions"), folds,
      measured, by_floors > 0 ? fmt::format(", {} by floors", by_floors) : std::string(), verdict);
}

} // namespace tv
