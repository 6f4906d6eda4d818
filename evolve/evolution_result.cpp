// What a run returns (see evolution.hpp): once the search stops, the pipeline of passes
// (evolve/passes/pipeline.hpp) runs on the searched best, then finish() scores the result, fits
// the cost-matched tree and writes the run's files.
//
// Map: the loop is evolution.cpp; this file is what follows it.
#include "eval/analytic_backend.hpp"
#include "evolve/evolution.hpp"
#include "evolve/evolution_detail.hpp"
#include "evolve/measured_tree.hpp"
#include "evolve/passes/pipeline.hpp"
#include "evolve/run_dir.hpp"
#include "evolve/run_exports.hpp"
#include "evolve/viewer_data.hpp"
#include "ir/simplify.hpp"
#include "ir/text.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <sstream>
#include <utility>

namespace tv {

const PassReport* EvolutionResult::pass(std::string_view name) const {
  const auto it = std::find_if(passes.begin(), passes.end(),
                               [&](const PassReport& p) { return p.name == name; });
  return it == passes.end() ? nullptr : &*it;
}

Program Evolution::measured_tree(int leaves, int lookahead) const {
  return measured_tree_of(s_->eval, *problem_, s_->train_shapes, leaves, lookahead,
                          options_.model_prior ? &problem_->gpu : nullptr);
}

void Evolution::run_passes(EvolutionResult& r) {
  State& s = *s_;
  ReturnedProgram result =
      s.returned ? *s.returned
                 : ReturnedProgram{s.best, s.best_reply, s.best_diff, s.best_op, "front"};
  s.ledger.set_cap(kernel_cap());
  PassContext ctx{.problem = *problem_,
                  .options = options_,
                  .eval = s.eval,
                  .ledger = s.ledger,
                  .train_shapes = s.train_shapes,
                  .db = s.db,
                  .lineage = s.lineage};
  r.passes = run_pipeline(ctx, result, s.pass_reports,
                          [&](const std::vector<PassReport>& reports, const ReturnedProgram& now) {
                            s.pass_reports = reports;
                            s.returned = now;
                            if (!s.events) return;
                            nlohmann::json e = reports.back().to_json(
                                false); // no wall time: a run's events repeat
                            e["event"] = "pass";
                            s.events->write(e);
                            // A pass that timed pairs is not timed again: a run stopped after it
                            // resumes from here.
                            if (reports.back().kernel_runs > 0) write_checkpoint();
                          });
  s.pass_reports = r.passes;
  s.returned = result;
  r.best = result.best;
  r.best_reply = result.reply;
  r.best_diff = result.diff;
  r.best_op = result.op;
  r.selected_from = result.selected_from;
}

EvolutionResult Evolution::finish() {
  State& s = *s_;
  EvolutionResult r;
  r.best_searched = s.best;
  s.search_done = true;
  run_passes(r);
  r.best_train = problem_->train->score(r.best.program);
  r.best_test = problem_->test->score(r.best.program);
  r.best_simplified = simplify(r.best.program);
  r.cost_matched_tree = measured_tree(problem_->spec.tree_leaves);
  // (Not on the analytic model: there the model is the timings, and agrees with itself.)
  if (!is_analytic(problem_->backend.get()))
    r.model_agreement =
        model_agreement(measured_feedback(s.eval, *problem_, s.train_shapes), problem_->gpu);
  r.model_prior = options_.model_prior;
  r.counters = s.counters;
  r.per_operator = s.per_op;
  r.improvements = s.improvements;
  r.programs = s.done;
  r.exhaustive_train_runs = s.eval.exhaustive_train_runs();
  r.stop_reason = s.stop_reason;
  r.seconds = s.seconds();
  r.resumed = s.resumed;
  r.mutator_stats = mutator_->stats();
  if (!dir_.empty()) {
    // The last checkpoint excludes the end event, so resuming a finished run rewrites the
    // same files.
    write_checkpoint();
    if (r.best.program != s.best.program) {
      // The result is not the searched best as its new_best event showed it: the passes changed
      // it. Viewers show this one.
      nlohmann::json e{{"event", "result"},
                       {"n", s.done},
                       {"id", r.best.id},
                       {"score", selection_score(r.best_train.speedup_vs_expert, r.best.program)},
                       {"op", r.selected_from == "front" ? "placement" : r.best_op}};
      if (s.viewer) {
        e.update(s.viewer->best_fields(r.best.program));
        s.viewer->write_per_shape(dir_, r.best.id, r.best.program);
      }
      s.events->write(e);
    }
    nlohmann::json end{{"event", "end"},
                       {"programs", s.done},
                       {"stop", s.stop_reason},
                       {"best_id", r.best.id},
                       {"best_train", r.best.score},
                       {"kernel_runs", s.counters.kernel_runs}};
    if (!r.mutator_stats.is_null()) end["llm"] = r.mutator_stats;
    s.events->write(end);
    s.events->sync();
    atomic_write(dir_ + "/best.py", print_program(r.best.program));
    atomic_write(dir_ + "/best_simplified.py", print_program(r.best_simplified));
    write_run_exports(dir_, *problem_, r);
    std::ostringstream graphml, dot;
    s.lineage.write_graphml(graphml);
    s.lineage.write_dot(dot);
    atomic_write(dir_ + "/lineage.graphml", graphml.str());
    atomic_write(dir_ + "/lineage.dot", dot.str());
  }
  return r;
}

} // namespace tv
