// One child, from the mutator's reply to the database (see evolution.hpp). settle() runs four
// named steps in order:
//   draft   the reply (or a merge's text) becomes a program, or the stage that stopped it
//   trial   a repeat is a no-op; the rest goes through the cascade (racing under a cap) and a
//           would-be new best is re-measured
//   accept  a fully timed child joins the database; it may be the new best
//   record  counters, the parent's attempt history, the lineage and the events
//
// Map: the loop that calls settle() is evolution.cpp.
#include "evolve/evolution.hpp"

#include "evolve/evolution_detail.hpp"
#include "evolve/mutators/reply_parser.hpp"
#include "ir/diff.hpp"
#include "ir/hash.hpp"

#include <cmath>
#include <fmt/format.h>

namespace tv {

using evolution_detail::behaviour;
using evolution_detail::diff_text_of;
using evolution_detail::stage_counter;

/// What a child went through: the stage it ended in and why, its evaluation and what it cost.
struct Evolution::Trial {
  Stage stage = Stage::full;
  std::string reason;
  std::optional<Program> program; ///< the child as written (before unexercised rules drop)
  Program child;                  ///< what was evaluated
  Evaluation ev;
  Counters delta; ///< this child's counts (proposed, its stage, kernel runs, ...)
};

Evolution::Trial Evolution::draft(const MutationReply& reply, const std::string& parent_text,
                                  const std::string* merged_text) const {
  Trial t;
  t.delta.proposed = 1;
  const auto parse = [&](const std::string& text) {
    if (ParseResult pr = parse_program(text); !pr.ok()) {
      t.stage = Stage::parse_failed;
      t.reason = pr.error->str();
    } else {
      t.program = std::move(*pr.program);
    }
  };
  if (!reply.ok) {
    t.stage = Stage::mutator_failed;
    t.reason = reply.error;
  } else if (merged_text) {
    parse(*merged_text);
  } else if (reply.child) {
    t.program = reply.child; // what its text gives, as the mutator made it (see MutationReply)
  } else if (ReplyEdit edit = edit_from_reply(reply.text, parent_text); !edit.ok()) {
    t.stage = Stage::diff_failed;
    t.reason = edit.failure;
  } else {
    parse(edit.child_text);
  }
  return t;
}

void Evolution::trial(Trial& t, const Candidate& parent) {
  State& s = *s_;
  const Program child =
      options_.drop_unexercised ? drop_unexercised_rules(*t.program, s.train_shapes) : *t.program;
  t.child = child;
  if (child == parent.program || !s.seen.insert(hash_value(child)).second) {
    t.stage = Stage::noop;
    t.reason =
        child == parent.program ? "same program as its parent" : "same program as an earlier one";
    return;
  }
  const std::uint64_t decisions = behaviour(child, *problem_);
  if (s.behaviours.count(decisions) && problem_->static_issues(child).empty()) {
    // A launchable child that decides every training shape like an earlier program adds
    // nothing the database can rank: it would only crowd out diversity.
    t.stage = Stage::noop;
    t.reason = "same decisions as an earlier program on every training shape";
    return;
  }
  const double ref = s.eval.cached_probe_score(parent.program).speedup_vs_expert;
  // The cap is a cap: a stage whose new pairs do not fit is not timed (over_budget), and the
  // run stops there. (Going on with the programs that fit, on pairs already timed, was
  // measured: no better on the replay protocols, and each proposal costs an LLM call.) Racing
  // saves kernel runs where they run short: from half the cap on (none without a cap), and
  // before that for a child whose new pairs would take at least kRaceCostlyChildShare of what is
  // left. Other children, and every child of an uncapped run, are timed in full and join the
  // database (racing every child from the start cost the measured protocol on mi300x 0.85
  // points; docs: racing).
  const long long left_now = kernel_runs_left();
  const bool late =
      left_now >= 0 && double(s.counters.kernel_runs) >= kRaceFromCapShare * double(kernel_cap());
  const long long race_from =
      late ? 0 : (long long)std::ceil(kRaceCostlyChildShare * double(left_now));
  Evaluation& ev = t.ev;
  ev = s.eval.evaluate(child, ref, left_now, left_now >= 0 ? &parent.program : nullptr, race_from);
  if (ev.stage != Stage::static_reject) s.behaviours.insert(decisions);
  t.stage = ev.stage;
  t.reason = ev.reason;
  t.delta.kernel_runs = ev.kernel_runs;
  t.delta.cache_hits = ev.cache_hits;
  if (t.stage == Stage::static_reject)
    t.delta.static_reasons[CascadeEvaluator::reason_category(t.reason)] = 1;
  // Kernels within a few percent swap places from run to run: a would-be new best is
  // re-measured first, and taken only when that fits in the cap too.
  const long long confirm_runs =
      (long long)options_.confirm_samples * (long long)problem_->train_rows.size();
  const double bar = 1.0 + options_.noise_threshold;
  if (t.stage != Stage::full || confirm_runs == 0 ||
      !(selection_score(ev.train.speedup_vs_expert, child) > s.best.score * bar))
    return;                                  // nothing to re-measure
  const long long left = kernel_runs_left(); // this child's first timings not counted yet
  if (left >= 0 && left - ev.kernel_runs < confirm_runs) {
    t.stage = Stage::over_budget;
    t.reason = fmt::format("re-measuring a would-be new best needs {} kernel runs and the run "
                           "has {} left",
                           confirm_runs, std::max(0LL, left - ev.kernel_runs));
    return;
  }
  const Evaluation again = s.eval.confirm(child, ev.train_times, options_.confirm_samples);
  t.delta.kernel_runs += again.kernel_runs;
  if (again.stage != Stage::full) {
    t.stage = Stage::timing_failed;
    t.reason = "re-measuring a would-be new best: " + again.reason;
  } else {
    ev.train = again.train;
    ev.train_times = again.train_times;
  }
}

void Evolution::accept(Trial& t, Child& out, const ParentSample& sample,
                       const std::string& parent_text, const MutationReply& reply,
                       const std::string& op) {
  State& s = *s_;
  const Candidate& parent = sample.parent;
  const double bar = 1.0 + options_.noise_threshold;
  Candidate c;
  c.id = out.id;
  c.parent = parent.id;
  c.program = t.child;
  c.score = selection_score(t.ev.train.speedup_vs_expert, t.child);
  c.island = sample.island;
  out.program = t.child;
  out.score = c.score;
  if (c.score > parent.score * bar) t.delta.improved = 1;
  if (c.score > s.best.score * bar) {
    t.delta.new_best = 1;
    s.best = c;
    s.improvements.push_back({s.done, c.id, c.score, op});
    s.best_reply = reply.text;
    s.best_diff = diff_text_of(reply.text, parent_text, t.child);
    s.best_op = op;
    s.since_best = 0;
  }
  s.db.add(c, s.rng);
  for (std::size_t i = 0; i < t.ev.train_times.size(); ++i)
    if (t.ev.train_times[i] < s.best_times[i]) {
      s.best_times[i] = t.ev.train_times[i];
      s.best_configs[i] = c.program.choose(s.train_shapes[i]);
    }
}

void Evolution::record(const Trial& t, const Child& out, const ParentSample& sample,
                       const MutationReply& reply, const std::string& op,
                       const std::vector<std::uint64_t>& merged_from) {
  State& s = *s_;
  const Candidate& parent = sample.parent;
  Counters delta = t.delta;
  stage_counter(delta, t.stage) = 1;
  s.counters.add(delta);
  s.per_op[op].add(delta);
  std::vector<std::uint64_t> insp;
  for (const auto& i : sample.inspirations)
    insp.push_back(i.id);
  if (!merged_from.empty()) insp = merged_from; // a merge's other parents are its candidates
  const double score = t.stage == Stage::full ? t.ev.train.speedup_vs_expert : 0.0;
  s.history.record(parent.id, {op, std::string(stage_name(t.stage)),
                               describe_attempt(t.stage, t.reason, score, parent.score)});
  s.lineage.add({out.id, op, std::string(stage_name(t.stage)), score}, parent.id, insp);
  write_backend_events();
  if (!s.events) return;
  nlohmann::json e{{"event", "program"},
                   {"n", s.done},
                   {"id", out.id},
                   {"parent", parent.id},
                   {"inspirations", insp},
                   {"island", sample.island},
                   {"op", op},
                   {"stage", stage_name(t.stage)},
                   {"kernel_runs", delta.kernel_runs},
                   {"cache_hits", delta.cache_hits}};
  if (!t.reason.empty()) e["reason"] = t.reason;
  if (t.ev.probe.valid) e["probe"] = t.ev.probe.speedup_vs_expert;
  if (t.stage == Stage::full) e["train"] = score;
  if (!merged_from.empty()) e["merged"] = merged_from;
  if (!reply.model.empty()) {
    e["model"] = reply.model;
    e["prompt_tokens"] = reply.prompt_tokens;
    e["completion_tokens"] = reply.completion_tokens;
    e["latency_s"] = reply.latency_s;
    e["attempts"] = reply.attempts;
  }
  s.events->write(e);
  if (delta.new_best) {
    nlohmann::json b{
        {"event", "new_best"}, {"n", s.done}, {"id", out.id}, {"score", score}, {"op", op}};
    if (s.viewer) b.update(s.viewer->best_fields(s.best.program));
    s.events->write(b);
  }
}

Evolution::Child Evolution::settle(const ParentSample& sample, const std::string& parent_text,
                                   const MutationReply& reply, const std::string* merged_text,
                                   const std::vector<std::uint64_t>& merged_from) {
  State& s = *s_;
  ++s.done;
  ++s.since_best;
  Child out;
  out.id = s.next_id++;
  const std::string op = reply.op.empty() ? "unknown" : reply.op;
  Trial t = draft(reply, parent_text, merged_text);
  if (t.stage == Stage::full) trial(t, sample.parent);
  if (t.stage == Stage::full) accept(t, out, sample, parent_text, reply, op);
  out.stage = t.stage;
  record(t, out, sample, reply, op, merged_from);
  return out;
}

} // namespace tv
