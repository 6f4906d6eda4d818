// threshold-placement: each threshold of the returned program moves between the training values
// it separates, near the middle of the gap in log space (ir/threshold_placement.hpp): every
// training shape keeps its config, and an unseen shape in a gap goes by its middle rather than by
// whichever edge the search left the cut on. No kernel runs.
//
// Report lines: one per moved threshold.
#include "evolve/passes/pass.hpp"

#include "ir/threshold_placement.hpp"

namespace tv {

namespace {

class ThresholdPlacementPass final : public Pass {
public:
  const char* name() const override { return "threshold-placement"; }
  const char* help() const override {
    return "moves each threshold between the training values it separates (middle of the gap, "
           "log space)";
  }
  std::string not_for(const PassContext&) const override { return ""; }
  PassReport run(PassContext& ctx, ReturnedProgram& result) const override {
    PlacedThresholds placed =
        place_thresholds(result.best.program, ctx.train_shapes, ctx.problem.gpu.units);
    result.best.program = std::move(placed.program);
    PassReport r;
    r.lines = std::move(placed.changes);
    if (!r.lines.empty()) r.summary = std::to_string(r.lines.size()) + " thresholds moved";
    return r;
  }
};

} // namespace

std::unique_ptr<Pass> threshold_placement_pass() {
  return std::make_unique<ThresholdPlacementPass>();
}

} // namespace tv
