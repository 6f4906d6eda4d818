// wave-guards: each rule of the returned program is kept to the waves of its own tile that its
// training shapes fill (ir/wave_guards.hpp), with floors on rules fitted on full grids and return
// rules for shapes one tile row high, as the options say; the rules guard-validation dropped get
// none. Every training shape keeps its config; an unseen shape whose grid would spill into one
// more wave (or leave units idle) falls through to the later rules. No kernel runs.
//
// Report lines: one per guard, floor or return rule added.
#include "evolve/passes/pass.hpp"

#include "evolve/evolution_options.hpp"
#include "ir/wave_guards.hpp"

namespace tv {

namespace {

class WaveGuardsPass final : public Pass {
public:
  const char* name() const override { return "wave-guards"; }
  const char* help() const override {
    return "keeps each rule to the waves of its tile its training shapes fill (floors, return "
           "rules)";
  }
  std::string not_for(const PassContext&) const override { return ""; }
  PassReport run(PassContext& ctx, ReturnedProgram& result) const override {
    GuardOptions g{.with_floors = ctx.options.wave_floors, .returns = ctx.options.guard_returns};
    // What guard validation allowed (every rule when it did not run).
    if (const PassReport* v = ctx.report("guard-validation"); v && v->ran) {
      g.ceilings = v->data.at("keep").get<std::vector<bool>>();
      g.floors = v->data.at("keep_floor").get<std::vector<bool>>();
    }
    GuardedWaves guarded =
        guard_waves(result.best.program, ctx.train_shapes, ctx.problem.gpu.units, g);
    result.best.program = std::move(guarded.program);
    PassReport r;
    r.lines = std::move(guarded.changes);
    if (!r.lines.empty())
      r.summary = std::to_string(r.lines.size()) + " guards, floors and returns";
    return r;
  }
};

} // namespace

std::unique_ptr<Pass> wave_guards_pass() {
  return std::make_unique<WaveGuardsPass>();
}

} // namespace tv
