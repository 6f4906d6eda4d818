// guard-validation: judges the wave guards wave-guards will add (evolve/guard_validation.hpp).
// Guards placed on folds of the training shapes divert some held-out ones to a later rule; the
// diverted pairs the run lacks are timed (within the cap), and a rule whose diversions were
// slower in sum gets no guard (its floor is judged apart). It does not change the program.
//
// Report data: "folds" (0: too few shapes, nothing judged), "keep" and "keep_floor" (per rule of
// the program it judged: may get a guard, may get a floor), which wave-guards reads.
#include "evolve/passes/pass.hpp"

#include "evolve/evolution_options.hpp"
#include "evolve/guard_validation.hpp"
#include "evolve/measured_tree.hpp"
#include "evolve/refit_validation.hpp"

#include <algorithm>

namespace tv {

namespace {

class GuardValidationPass final : public Pass {
public:
  const char* name() const override { return "guard-validation"; }
  const char* help() const override {
    return "drops the wave guard of a rule whose diversions, on folds of the training shapes, "
           "measured slower";
  }
  std::string not_for(const PassContext& ctx) const override {
    return ctx.options.skips("wave-guards") ? "wave-guards is skipped (nothing to judge)" : "";
  }
  PassReport run(PassContext& ctx, ReturnedProgram& result) const override {
    const Problem& problem = ctx.problem;
    const Program& p = result.best.program;
    const auto folds =
        deal_shape_folds(ctx.train_shapes, kRefitFolds, ctx.options.seed, folds_by_size(problem));
    const std::vector<GuardDiversion> diversions =
        guard_diversions(p, ctx.train_shapes, folds, problem.gpu.units, ctx.options.wave_floors);
    // The pairs the run lacks, config by config, in the order the diversions need them (so the
    // timing order, and the run's log, is the same on every run).
    std::vector<std::pair<Config, std::vector<std::size_t>>> missing;
    for (const GuardDiversion& d : diversions) {
      const std::size_t row = problem.train_rows[d.shape];
      for (const Config* c : {&d.plain, &d.guarded}) {
        if (ctx.eval.timed(row, *c)) continue;
        auto it = std::find_if(missing.begin(), missing.end(),
                               [&](const auto& m) { return m.first == *c; });
        if (it == missing.end()) it = missing.insert(missing.end(), {*c, {}});
        if (std::find(it->second.begin(), it->second.end(), d.shape) == it->second.end())
          it->second.push_back(d.shape);
      }
    }
    // A config whose pairs do not fit in what is left of the cap is skipped (its diversions are
    // no evidence).
    for (const auto& [config, which] : missing) {
      const long long left = ctx.ledger.left();
      if (left == 0) break;
      ctx.time_config(name(), config, which, left);
    }
    const GuardValidation v = judge_guards(
        p.rules.size(), int(folds.size()), diversions,
        [&](const GuardDiversion& d, const Config& c) {
          return ctx.eval.cached_time(problem.train_rows[d.shape], c);
        },
        [&](const GuardDiversion& d) { return ctx.train_shapes[d.shape].weight; });
    PassReport r;
    r.summary = v.summary(&p);
    r.data = {{"folds", v.folds}, {"keep", v.keep}, {"keep_floor", v.keep_floor}};
    return r;
  }
};

} // namespace

std::unique_ptr<Pass> guard_validation_pass() {
  return std::make_unique<GuardValidationPass>();
}

} // namespace tv
