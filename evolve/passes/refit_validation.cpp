// refit-validation: decision trees refitted on the run's own measurements are cross-validated
// over folds of the training shapes (evolve/refit_validation.hpp), and the best one becomes the
// returned program when its held-out gain over the searched program's training figure (charged
// with the optimism of a refitted tree of as many leaves, where the options say so) is
// positive. No kernel runs: only pairs the run timed are read. Where the extreme folds chose a
// tree of another size than the best charge's (RefitValidation::off_range_leaves), it decides
// the shapes outside the box of the training shapes (ir/box_split.hpp).
//
// Report data (when it validated, "folds" > 0): the figures summary.json shows under
// "refit_validation" (folds, leaves tried, held-out speedups, the verdict and how the size was
// chosen).
#include "evolve/passes/pass.hpp"

#include "evolve/evolution_options.hpp"
#include "evolve/measured_tree.hpp"
#include "evolve/refit_validation.hpp"
#include "ir/box_split.hpp"
#include "ir/training_range.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

namespace tv {

namespace {

class RefitValidationPass final : public Pass {
public:
  const char* name() const override { return "refit-validation"; }
  const char* help() const override {
    return "returns a tree refitted on the run's measurements where held-out folds say it does "
           "better";
  }
  std::string not_for(const PassContext&) const override { return ""; }
  PassReport run(PassContext& ctx, ReturnedProgram& result) const override {
    const Problem& problem = ctx.problem;
    const EvolutionOptions& o = ctx.options;
    PassReport r;
    r.data["folds"] = 0;
    std::vector<ShapeFeedback> feedback = measured_feedback(ctx.eval, problem, ctx.train_shapes);
    std::vector<double> searched_log, weights;
    // The searched program as the run returns it (its leaves polished).
    const auto times = ctx.eval.cached_times(result.best.program, problem.train_rows);
    for (std::size_t i = 0; i < feedback.size(); ++i) {
      ShapeFeedback& f = feedback[i];
      f.expert_seconds =
          ctx.eval.cached_time(problem.train_rows[i], problem.expert.choose(f.shape));
      if (!(f.expert_seconds > 0 && std::isfinite(f.expert_seconds) && std::isfinite(times[i])))
        return r; // nothing to compare with (a pair the run never timed)
      searched_log.push_back(std::log(f.expert_seconds / times[i]));
      weights.push_back(std::max(0.0, f.shape.weight));
    }
    // Folds mirror the split: with test sizes unseen (random-mnk), a held-out size is unseen
    // too. Cross-validation chooses the tree's size, up to twice the baseline tree's leaf limit.
    const RefitValidation v =
        validate_refit(feedback, {.max_leaves = ctx.refit_leaves(),
                                  .folds = kRefitFolds,
                                  .seed = o.seed,
                                  .group_sizes = folds_by_size(problem),
                                  .lookahead = o.refit_lookahead ? kRefitLookahead : 0,
                                  .complexity = o.refit_complexity,
                                  .model = o.model_prior ? &problem.gpu : nullptr,
                                  .extremes = o.refit_extremes});
    const RefitVerdict verdict =
        compare_refit(v, searched_log, weights,
                      o.optimism_charge ? int(result.best.program.rules.size()) + 1 : 0);
    if (v.folds > 0)
      r.data = {{"folds", v.folds},
                {"leaves", v.leaves},
                {"held_out_speedup", v.held_out},
                {"best_leaves", verdict.leaves},
                {"gain", verdict.gain},
                {"optimism", v.optimism},
                {"optimism_charge", verdict.charge},
                {"standard_error", verdict.standard_error},
                {"tree_chosen", verdict.tree_wins},
                {"lookahead", v.lookahead},
                {"chosen_held_out_speedup", v.best_held_out},
                {"complexity", v.complexity},
                {"leaf_charge", v.leaf_charge},
                {"extreme_folds", v.extreme_folds},
                {"close_charges", v.close_charges},
                {"folds_best_leaves", v.folds_best_leaves},
                {"off_range_leaves", v.off_range_leaves},
                {"off_range_charge", v.off_range_charge}};
    if (!verdict.tree_wins) return r;
    result.best.program = ctx.measured_tree(verdict.leaves, v.lookahead);
    if (v.off_range_leaves > 0)
      result.best.program =
          box_split(training_range(Program{}, ctx.train_shapes).box, result.best.program,
                    ctx.measured_tree(v.off_range_leaves, v.lookahead));
    result.best.id = 0;
    result.reply.clear();
    result.diff.clear();
    result.op = "refit";
    result.selected_from = fmt::format("tree {}", verdict.leaves);
    r.summary =
        fmt::format("a tree of {} leaves refitted on the run's measurements", verdict.leaves);
    if (v.off_range_leaves > 0)
      r.summary += fmt::format(", one of {} past the training shapes' box", v.off_range_leaves);
    return r;
  }
};

} // namespace

std::unique_ptr<Pass> refit_validation_pass() {
  return std::make_unique<RefitValidationPass>();
}

} // namespace tv
