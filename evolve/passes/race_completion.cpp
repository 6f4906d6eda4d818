// race-completion: under a kernel-run cap, the children racing stopped (stage race_reject) are
// timed in full, in order, while their pairs fit in what is left of the cap: the refits after it
// then see at least the pairs they would have seen without racing. Without a cap racing saves
// kernel runs for good, and the pass does not run.
//
// Report data: "completed", the raced children timed in full.
#include "evolve/passes/pass.hpp"

namespace tv {

namespace {

class RaceCompletionPass final : public Pass {
public:
  const char* name() const override { return "race-completion"; }
  const char* help() const override {
    return "times in full, within the cap, the children racing stopped, so the refits after it "
           "see their pairs";
  }
  std::string not_for(const PassContext& ctx) const override {
    return ctx.ledger.left() < 0 ? "no kernel-run cap (nothing raced)" : "";
  }
  PassReport run(PassContext& ctx, ReturnedProgram&) const override {
    long long completed = 0;
    for (const Program& p : ctx.raced) {
      // Neither probes nor racing can stop it now (no reference, no parent); the cap can.
      const Evaluation ev = ctx.eval.evaluate(p, 0.0, ctx.ledger.left());
      ctx.ledger.charge(name(), ev.kernel_runs);
      if (ev.stage == Stage::over_budget) break;
      if (ev.stage == Stage::full) ++completed;
    }
    PassReport r;
    r.data["completed"] = completed;
    if (completed > 0) r.summary = std::to_string(completed) + " raced children timed in full";
    return r;
  }
};

} // namespace

std::unique_ptr<Pass> race_completion_pass() {
  return std::make_unique<RaceCompletionPass>();
}

} // namespace tv
