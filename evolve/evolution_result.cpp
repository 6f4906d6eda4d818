// What a run returns (see evolution.hpp): once the loop stops, the children racing stopped
// are timed in full where the cap leaves room, the searched program's leaves are polished,
// refit validation may put a tree refitted on the run's measurements in its place, thresholds
// are placed and wave guards added, and finish() writes the run's files.
//
// Map: the loop is evolution.cpp; this file is what follows it.
#include "eval/analytic_backend.hpp"
#include "eval/decision_tree.hpp"
#include "evolve/evolution.hpp"
#include "evolve/evolution_detail.hpp"
#include "evolve/guard_validation.hpp"
#include "evolve/leaf_explore.hpp"
#include "evolve/leaf_polish.hpp"
#include "evolve/model_times.hpp"
#include "evolve/refit.hpp"
#include "evolve/refit_validation.hpp"
#include "evolve/run_dir.hpp"
#include "evolve/run_exports.hpp"
#include "evolve/sampled_sizes.hpp"
#include "evolve/viewer_data.hpp"
#include "ir/rng.hpp"
#include "ir/simplify.hpp"
#include "ir/text.hpp"
#include "ir/threshold_placement.hpp"
#include "ir/wave_guards.hpp"
#include "models/analytic_model.hpp"
#include "models/launch.hpp"
#include "models/time_table.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <limits>
#include <sstream>
#include <utility>

namespace tv {

namespace {

/// The sampled sizes' random stream, apart from the search's.
constexpr std::uint64_t kSampledStream = 0x5a3d;

/// Per training shape, what the run measured on it (the fastest first).
std::vector<ShapeFeedback> measured_feedback(const CascadeEvaluator& eval, const Problem& problem,
                                             const std::vector<Shape>& train_shapes) {
  std::vector<ShapeFeedback> feedback;
  for (std::size_t i = 0; i < problem.train_rows.size(); ++i) {
    ShapeFeedback f;
    f.shape = train_shapes[i];
    f.measured = eval.fastest(problem.train_rows[i], std::numeric_limits<std::size_t>::max());
    feedback.push_back(std::move(f));
  }
  return feedback;
}

/// A decision tree fitted only on the pairs the run timed (refit.hpp: a pair it did not time
/// counts as 1.25 x the shape's fastest timed one): what a tree could do with the same kernel
/// runs. `model`: the device whose model may weigh in (RefitChoice::model), or nullptr.
Program measured_tree_of(const CascadeEvaluator& eval, const Problem& problem,
                         const std::vector<Shape>& train_shapes, int leaves, int lookahead,
                         const Gpu* model) {
  const std::vector<ShapeFeedback> feedback = measured_feedback(eval, problem, train_shapes);
  RefitChoice choice;
  choice.max_leaves = leaves;
  choice.lookahead = lookahead;
  choice.features = default_tree_features();
  choice.penalty = 1.25;
  choice.model = model;
  const std::optional<Program> tree = refit_program(feedback, choice);
  return tree ? *tree : problem.expert;
}

/// Makes `tree`, refitted on the run's measurements with at most `leaves` leaves, the result.
void adopt_tree(EvolutionResult& r, Program tree, int leaves) {
  r.best.program = std::move(tree);
  r.best.id = 0;
  r.best_reply.clear();
  r.best_diff.clear();
  r.best_op = "refit";
  r.selected_from = fmt::format("tree {}", leaves);
}

/// Moves the result's thresholds between the training values they separate, noting each move.
void place_result(EvolutionResult& r, const std::vector<Shape>& train_shapes, int units) {
  PlacedThresholds placed = place_thresholds(r.best.program, train_shapes, units);
  r.best.program = std::move(placed.program);
  r.placement = std::move(placed.changes);
}

/// Keeps each of the result's rules to the waves its training shapes fill (floors and return
/// rules as `options` says, the rules `allowed` keeps), noting each change.
void guard_result(EvolutionResult& r, const std::vector<Shape>& train_shapes, int units,
                  const GuardValidation& allowed, const EvolutionOptions& options) {
  GuardedWaves guarded = guard_waves(r.best.program, train_shapes, units,
                                     {.ceilings = allowed.keep,
                                      .floors = allowed.keep_floor,
                                      .with_floors = options.wave_floors,
                                      .returns = options.guard_returns});
  r.best.program = std::move(guarded.program);
  r.wave_guards = std::move(guarded.changes);
}

/// Past this many (training shape, config) cells (64 MB of doubles) leaf exploration goes by
/// the measured winners alone.
constexpr std::size_t kMaxPriorCells = std::size_t(1) << 23;

/// Leaf exploration's prior (ExploreHooks::prior): the analytic model's log slowdown of each
/// config of `space` (set to config_space) against the fastest of them, per training shape;
/// +infinity where model_times has none. `space` is left empty, and so is the result, past
/// kMaxPriorCells.
std::vector<std::vector<double>> analytic_prior(const Problem& problem,
                                                const std::vector<Shape>& train_shapes,
                                                std::vector<Config>& space) {
  space = config_space(problem);
  if (space.size() * train_shapes.size() > kMaxPriorCells) {
    space.clear();
    return {};
  }
  std::vector<std::vector<double>> prior = model_times(problem, train_shapes);
  for (std::vector<double>& p : prior) {
    if (p.empty()) continue;
    const double best = *std::min_element(p.begin(), p.end());
    for (double& v : p)
      v = std::isfinite(v) ? std::log(v / best) : std::numeric_limits<double>::infinity();
  }
  return prior;
}

/// Whether folds of the training shapes keep each (M, N, K)'s shapes together: they mirror the
/// split, and a split that holds out whole sizes (random-mnk, range) has unseen sizes in its test
/// half.
bool folds_by_size(const Problem& problem) {
  return problem.spec.split == "random-mnk" || problem.spec.split == "range";
}

} // namespace

bool is_run_step(const std::string& op) {
  return op == "seed" || op == "analytic seed" || op == "selection" || op == "race completion" ||
         op == "exploration" || op == "polish" || op == "guard validation" || op == "sampled sizes";
}

Program Evolution::measured_tree(int leaves, int lookahead) const {
  return measured_tree_of(s_->eval, *problem_, s_->train_shapes, leaves, lookahead,
                          options_.model_prior ? &problem_->gpu : nullptr);
}

void Evolution::complete_raced(EvolutionResult& r) {
  State& s = *s_;
  // Only under a cap: what racing saved is the cap's to spend. Without one, the kernel runs
  // racing saved stay saved.
  if (kernel_runs_left() < 0) return;
  Counters& done = s.per_op["race completion"];
  for (const Program& p : s.raced) {
    // Neither probes nor racing can stop it now (no reference, no parent); the cap can.
    const Evaluation ev = s.eval.evaluate(p, 0.0, kernel_runs_left());
    s.counters.kernel_runs += ev.kernel_runs;
    done.kernel_runs += ev.kernel_runs;
    if (ev.stage == Stage::over_budget) break;
    if (ev.stage == Stage::full) ++r.raced_completed;
  }
  r.raced_completion_kernel_runs = done.kernel_runs;
}

void Evolution::explore_result(EvolutionResult& r) {
  State& s = *s_;
  if (s.explored) { // a resumed finished run: its pairs are in the cache, counted
    r.exploration = *s.explored;
    r.exploration_kernel_runs = s.per_op["exploration"].kernel_runs;
    return;
  }
  // Under a cap, what the search left of it; without one, an allowance of its own.
  const long long limit =
      kernel_runs_left() >= 0
          ? kernel_runs_left()
          : uncapped_explore_limit(s.eval.exhaustive_train_runs(), s.counters.kernel_runs);
  if (limit <= 0) return; // nothing left of the cap, or no allowance
  const long long stop_at = s.counters.kernel_runs + limit;
  const auto left = [&] { return std::max(0LL, stop_at - s.counters.kernel_runs); };
  Counters& done = s.per_op["exploration"];
  const int leaves = std::min(kMaxTreeLeaves, kRefitLeafFactor * problem_->spec.tree_leaves);
  ExploreHooks hooks;
  hooks.fit = [&] { return measured_tree(leaves); };
  hooks.fastest = [&](std::size_t i, std::size_t k) {
    std::vector<Config> out;
    for (const auto& [secs, c] : s.eval.fastest(problem_->train_rows[i], k))
      out.push_back(c);
    return out;
  };
  hooks.timed = [&](std::size_t i, const Config& c) {
    return s.eval.timed(problem_->train_rows[i], c);
  };
  std::vector<std::size_t> rows;
  hooks.time = [&](const Config& c, const std::vector<std::size_t>& which) {
    rows.clear();
    for (std::size_t i : which)
      rows.push_back(problem_->train_rows[i]);
    const Evaluation ev = s.eval.time_config(c, rows, left());
    s.counters.kernel_runs += ev.kernel_runs;
    done.kernel_runs += ev.kernel_runs;
    return ev.stage != Stage::over_budget;
  };
  const std::vector<std::vector<double>> prior =
      analytic_prior(*problem_, s.train_shapes, hooks.space);
  if (!hooks.space.empty()) hooks.prior = [&](std::size_t i, std::size_t k) { return prior[i][k]; };
  const ExploredLeaves explored = explore_leaves(s.train_shapes, hooks);
  r.exploration = explored.summary();
  r.exploration_kernel_runs = done.kernel_runs;
  s.explored = r.exploration;
}

GuardValidation Evolution::validate_guards_result(EvolutionResult& r) {
  if (!options_.guard_validation) return {};
  State& s = *s_;
  // The pairs timed from here on are checkpointed apart; a resumed finished run adds them now,
  // having polished and validated refits without them as the first run did.
  s.late_from = s.eval.cached_pairs();
  if (!s.late_cache.is_null()) s.eval.cache_from_json(std::exchange(s.late_cache, nullptr), true);
  const Program& p = r.best.program;
  const auto folds =
      deal_shape_folds(s.train_shapes, kRefitFolds, options_.seed, folds_by_size(*problem_));
  const std::vector<GuardDiversion> diversions =
      guard_diversions(p, s.train_shapes, folds, problem_->gpu.units, options_.wave_floors);
  // The pairs the run lacks, config by config, in the order the diversions need them (so the
  // timing order, and the run's log, is the same on every run).
  std::vector<std::pair<Config, std::vector<std::size_t>>> missing;
  for (const GuardDiversion& d : diversions) {
    const std::size_t row = problem_->train_rows[d.shape];
    for (const Config* c : {&d.plain, &d.guarded}) {
      if (s.eval.timed(row, *c)) continue;
      auto it = std::find_if(missing.begin(), missing.end(),
                             [&](const auto& m) { return m.first == *c; });
      if (it == missing.end()) it = missing.insert(missing.end(), {*c, {}});
      if (std::find(it->second.begin(), it->second.end(), row) == it->second.end())
        it->second.push_back(row);
    }
  }
  // A config whose pairs do not fit in what is left of the cap is skipped (its diversions are no
  // evidence); a resumed finished run finds the rest cached and skips the same ones.
  for (const auto& [config, rows] : missing) {
    const long long left = kernel_runs_left();
    if (left == 0) break;
    const long long runs = s.eval.time_config(config, rows, left).kernel_runs;
    s.counters.kernel_runs += runs;
    if (runs > 0) s.per_op["guard validation"].kernel_runs += runs;
  }
  const GuardValidation v = judge_guards(
      p.rules.size(), int(folds.size()), diversions,
      [&](const GuardDiversion& d, const Config& c) {
        return s.eval.cached_time(problem_->train_rows[d.shape], c);
      },
      [&](const GuardDiversion& d) { return s.train_shapes[d.shape].weight; });
  r.guard_validation = v.summary();
  const auto done = s.per_op.find("guard validation");
  r.guard_validation_kernel_runs = done != s.per_op.end() ? done->second.kernel_runs : 0;
  return v;
}

void Evolution::choose_on_sampled_sizes_result(EvolutionResult& r) {
  State& s = *s_;
  // The searched best first, then the database's programs that fit the training shapes alike,
  // the best first (ties: the earliest).
  std::vector<Candidate> held = s.db.held();
  std::stable_sort(held.begin(), held.end(),
                   [](const Candidate& a, const Candidate& b) { return a.score > b.score; });
  std::vector<Candidate> candidates{r.best};
  for (const Candidate& c : held) {
    if (candidates.size() >= kSampledCandidates || c.score < r.best.score * (1 - kSampledTieShare))
      break;
    if (std::none_of(candidates.begin(), candidates.end(),
                     [&](const Candidate& o) { return o.program == c.program; }))
      candidates.push_back(c);
  }
  if (candidates.size() < 2) return; // nothing to choose among, nothing timed
  // Each as the run would return it: thresholds placed, rules guarded (every guard: validating
  // them is a step of the result's own).
  const int units = problem_->gpu.units;
  std::vector<Program> forms;
  for (const Candidate& c : candidates) {
    Program f = c.program;
    if (options_.place_thresholds) f = place_thresholds(f, s.train_shapes, units).program;
    if (options_.wave_guards)
      f = guard_waves(f, s.train_shapes, units,
                      {.with_floors = options_.wave_floors, .returns = options_.guard_returns})
              .program;
    forms.push_back(std::move(f));
  }
  const std::vector<Shape> sizes = sample_sizes(s.train_shapes, options_.sampled_sizes,
                                                Rng(options_.seed).fork(kSampledStream).next());
  // Under a cap, the sizes are timed while their pairs fit; from the first that does not, none.
  // A resumed finished run compares again (the backend gives the same times): its kernel runs
  // the first time are in per_op, and exactly those are allowed again, so it stops where the
  // first pass stopped and counts nothing twice.
  long long& counted = s.per_op["sampled sizes"].kernel_runs;
  const long long cap_left = counted > 0 ? counted : kernel_runs_left();
  long long used = 0;
  bool spent = false;
  const TimeBatch time = [&](const std::vector<TimingRequest>& batch) {
    spent = spent || (cap_left >= 0 && used + (long long)batch.size() > cap_left);
    if (spent) return std::vector<Measurement>(batch.size());
    used += (long long)batch.size();
    return problem_->backend->time(batch);
  };
  r.sampled = choose_on_sampled_sizes(forms, sizes, time);
  r.sampled.range = sampled_range(s.train_shapes);
  for (const Candidate& c : candidates)
    r.sampled_ids.push_back(c.id);
  s.counters.kernel_runs += r.sampled.kernel_runs - counted;
  counted = r.sampled.kernel_runs;
  if (r.sampled.chosen == 0) return;
  r.best = candidates[r.sampled.chosen];
  r.best_reply.clear();
  r.best_diff.clear();
  const std::optional<LineageNode> node = s.lineage.node(r.best.id);
  r.best_op = node ? node->op : "";
  r.selected_from = "sampled sizes";
}

void Evolution::polish_result(EvolutionResult& r) {
  State& s = *s_;
  const std::vector<Config> space = config_space(*problem_);
  // Polish times at most a share of what the search timed, and never past the cap. Its runs so
  // far are in per_op["polish"]: a resumed finished run polishes again from the cache, under
  // the same allowance and with less of it left, so it decides the same and times nothing.
  long long& polished_runs = s.per_op["polish"].kernel_runs;
  const long long allowance =
      (long long)(kPolishShare * double(s.counters.kernel_runs - polished_runs));
  std::vector<std::size_t> rows;
  const LeafCost cost = [&](const std::vector<std::size_t>& which,
                            const Config& c) -> std::optional<double> {
    rows.clear();
    for (std::size_t i : which)
      rows.push_back(problem_->train_rows[i]);
    long long limit = allowance - polished_runs;
    if (const long long left = kernel_runs_left(); left >= 0) limit = std::min(limit, left);
    const Evaluation ev = s.eval.time_config(c, rows, std::max(0LL, limit));
    // Kernel runs only (no cache hits): a resumed finished run polishes again, from its cache,
    // and must count the same.
    s.counters.kernel_runs += ev.kernel_runs;
    polished_runs += ev.kernel_runs;
    if (ev.stage != Stage::full) return std::nullopt;
    double sum = 0;
    for (std::size_t k = 0; k < which.size(); ++k)
      sum += std::max(0.0, s.train_shapes[which[k]].weight) * std::log(ev.train_times[k]);
    return sum;
  };
  PolishedLeaves polished =
      polish_leaves(r.best.program, space, s.train_shapes, cost, 1.0 + options_.noise_threshold);
  r.polish_kernel_runs = polished_runs;
  if (polished.changes.empty()) return;
  r.best.program = std::move(polished.program);
  r.polish = std::move(polished.changes);
}

void Evolution::validate_refit_result(EvolutionResult& r) const {
  const State& s = *s_;
  std::vector<ShapeFeedback> feedback = measured_feedback(s.eval, *problem_, s.train_shapes);
  std::vector<double> searched_log, weights;
  // The searched program as the run returns it (its leaves polished).
  const auto times = s.eval.cached_times(r.best.program, problem_->train_rows);
  for (std::size_t i = 0; i < feedback.size(); ++i) {
    ShapeFeedback& f = feedback[i];
    f.expert_seconds =
        s.eval.cached_time(problem_->train_rows[i], problem_->expert.choose(f.shape));
    if (!(f.expert_seconds > 0 && std::isfinite(f.expert_seconds) && std::isfinite(times[i])))
      return; // nothing to compare with (a pair the run never timed)
    searched_log.push_back(std::log(f.expert_seconds / times[i]));
    weights.push_back(std::max(0.0, f.shape.weight));
  }
  // Folds mirror the split: with test sizes unseen (random-mnk), a held-out size is unseen too.
  // Cross-validation chooses the tree's size, up to twice the baseline tree's leaf limit. Up to
  // kMaxTreeLeaves fitted large random training sets better and transferred worse to model
  // shapes (README, "Refit validation: every tree size, measured and not kept").
  const int max_leaves = std::min(kMaxTreeLeaves, kRefitLeafFactor * problem_->spec.tree_leaves);
  r.refit = validate_refit(feedback, {.max_leaves = max_leaves,
                                      .folds = kRefitFolds,
                                      .seed = options_.seed,
                                      .group_sizes = folds_by_size(*problem_),
                                      .lookahead = options_.refit_lookahead ? kRefitLookahead : 0,
                                      .complexity = options_.refit_complexity,
                                      .model = options_.model_prior ? &problem_->gpu : nullptr,
                                      .extremes = options_.refit_extremes});
  r.refit_verdict =
      compare_refit(r.refit, searched_log, weights,
                    options_.optimism_charge ? int(r.best.program.rules.size()) + 1 : 0);
  if (r.refit_verdict.tree_wins) {
    adopt_tree(r, measured_tree(r.refit_verdict.leaves, r.refit.lookahead), r.refit_verdict.leaves);
    r.polish.clear(); // it polished the searched program, not this one (its runs stay counted)
  }
}

EvolutionResult Evolution::finish() {
  State& s = *s_;
  EvolutionResult r;
  r.best_searched = s.best;
  r.best = s.best;
  r.best_reply = s.best_reply;
  r.best_diff = s.best_diff;
  r.best_op = s.best_op;
  r.front = s.front;
  complete_raced(r); // before any refit of the run's measurements, on every path
  if (s.selection) {
    // Model selection: what cross-validation preferred, a tree refitted on the run's
    // measurements or the front's choice under the chosen charge.
    r.selection = *s.selection;
    if (s.selection->tree_leaves > 0) {
      adopt_tree(r, measured_tree(s.selection->tree_leaves), s.selection->tree_leaves);
    } else {
      if (const auto chosen = s.front.choose(s.selection->penalty);
          chosen && chosen->candidate.id != s.best.id) {
        r.best = chosen->candidate;
        r.best_reply = chosen->diff;
        r.best_diff = chosen->diff;
        r.best_op = chosen->op;
      }
      // As cross-validation scored it: thresholds between the training values they separate
      // (then wave guards, below).
      place_result(r, s.train_shapes, problem_->gpu.units);
    }
  } else {
    if (options_.sampled_sizes > 0) choose_on_sampled_sizes_result(r);
    if (options_.explore) explore_result(r);
    if (options_.polish) polish_result(r);
    if (options_.refit_validation) validate_refit_result(r);
    if (options_.place_thresholds) place_result(r, s.train_shapes, problem_->gpu.units);
  }
  // Guards last, on every path: guarded first, placement would move the rules' thresholds around
  // the guards (loosened where a guard excludes the shapes beyond them), and unseen shapes fared
  // worse (README, "Wave guards").
  if (options_.wave_guards)
    guard_result(r, s.train_shapes, problem_->gpu.units, validate_guards_result(r), options_);
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
      // The result is not the searched best as its new_best event showed it: thresholds placed,
      // or model selection's choice. Viewers show this one.
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
    if (r.raced_completion_kernel_runs > 0)
      s.events->write({{"event", "race_completion"},
                       {"programs", r.raced_completed},
                       {"kernel_runs", r.raced_completion_kernel_runs}});
    if (!r.sampled.figures.empty())
      s.events->write({{"event", "sampled_sizes"},
                       {"sizes", r.sampled.sizes},
                       {"candidates", r.sampled_ids},
                       {"chosen", r.sampled_ids.at(r.sampled.chosen)},
                       {"kernel_runs", r.sampled.kernel_runs}});
    if (r.polish_kernel_runs > 0 || !r.polish.empty())
      s.events->write(
          {{"event", "polish"}, {"kernel_runs", r.polish_kernel_runs}, {"changes", r.polish}});
    // The other steps after the search that time pairs: a viewer's kernel-run count is the
    // summary's once every one is in.
    for (const char* step : {"selection", "exploration", "guard validation"}) {
      const auto at = r.per_operator.find(step);
      if (at != r.per_operator.end() && at->second.kernel_runs > 0)
        s.events->write(
            {{"event", "run_step"}, {"step", step}, {"kernel_runs", at->second.kernel_runs}});
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
