#include "evolve/mutators/mock/context.hpp"

#include "ir/text.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

namespace tv::mock {

std::string_view op_name(Op op) {
  switch (op) {
  case Op::tweak:
    return "tweak";
  case Op::targeted:
    return "targeted";
  case Op::threshold:
    return "threshold";
  case Op::split:
    return "split";
  case Op::del:
    return "delete";
  case Op::crossover:
    return "crossover";
  case Op::refit:
    return "refit";
  case Op::waves:
    return "waves";
  }
  return "tweak";
}

Config& config_at(Program& p, std::size_t i) {
  return i < p.rules.size() ? p.rules[i].config : p.default_config;
}
const Config& config_at(const Program& p, std::size_t i) {
  return i < p.rules.size() ? p.rules[i].config : p.default_config;
}

std::string where(const Program& p, std::size_t i) {
  if (i >= p.rules.size()) return "the default config";
  return fmt::format("the `if {}` rule", print_condition(p.rules[i].condition));
}

Box effective_box(const Program& p, std::size_t i) {
  Box b = i < p.rules.size() ? p.rules[i].condition.box() : Box{};
  bool changed = true;
  for (std::size_t pass = 0; changed && pass <= p.rules.size() && !b.empty(); ++pass) {
    changed = false;
    for (std::size_t j = 0; j < i && j < p.rules.size() && !b.empty(); ++j) {
      // A condition on a derived feature is not a box: its box() is larger than what it
      // decides, so it cannot trim anything here.
      if (p.rules[j].condition.has_derived()) continue;
      const Box e = p.rules[j].condition.box();
      if (e.empty()) continue;
      for (int d = 0; d < 3; ++d) {
        bool covers_others = true;
        for (int o = 0; o < 3; ++o)
          if (o != d && (e.dim[o].lo > b.dim[o].lo || e.dim[o].hi < b.dim[o].hi))
            covers_others = false;
        if (!covers_others) continue;
        Interval& iv = b.dim[d];
        const Interval& cut = e.dim[d];
        if (cut.lo <= iv.lo && cut.hi >= iv.lo) {
          iv.lo = cut.hi >= kDimMax ? kDimMax + 1 : cut.hi + 1;
          changed = true;
        } else if (cut.lo <= iv.hi && cut.hi >= iv.hi) {
          iv.hi = cut.lo - 1;
          changed = true;
        }
      }
    }
  }
  return b;
}

double loss(const ShapeFeedback& f) {
  if (!(f.best_seconds > 0) || !std::isfinite(f.best_seconds)) return 1.0;
  if (!std::isfinite(f.seconds)) return 1e9;
  return f.seconds / f.best_seconds;
}

std::size_t pick_target(Ctx& x, const ShapeFeedback** focus, double guided) {
  const std::size_t n = x.parent.rules.size();
  if (!x.hot.empty() && x.rng.chance(guided)) {
    const ShapeFeedback* f = x.hot[x.rng.index(std::min<std::size_t>(3, x.hot.size()))];
    if (focus) *focus = f;
    const int r = x.parent.deciding_rule(f->shape);
    return r < 0 ? n : std::size_t(r);
  }
  return x.rng.index(n + 1);
}

} // namespace tv::mock
