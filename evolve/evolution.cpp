// The evolution loop (see evolution.hpp): seeding, proposing a batch, settling each child
// (diff, parse, cascade, database) and stop reasons.
//
// Map: the loop is this file; what follows it (race completion, polish, refit validation,
// finish) is evolution_result.cpp; EvolutionOptions::to_json/from_json and run_config are
// evolution_options.cpp; checkpoints (write, load, resume) are evolution_checkpoint.cpp; the
// run state they share (Evolution::State) is evolution_detail.hpp.
#include "evolve/evolution.hpp"

#include "evolve/analytic_seed.hpp"
#include "evolve/attempt_history.hpp"
#include "evolve/candidate_merge.hpp"
#include "evolve/evolution_detail.hpp"
#include "evolve/mutators/reply_parser.hpp"
#include "evolve/passes/pipeline.hpp"
#include "evolve/run_dir.hpp"
#include "evolve/viewer_data.hpp"
#include "ir/diff.hpp"
#include "ir/error.hpp"
#include "ir/hash.hpp"
#include "ir/line_diff.hpp"
#include "ir/text.hpp"
#include "models/json_text.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <limits>
#include <optional>
#include <set>
#include <sstream>

namespace tv {

using evolution_detail::behaviour;
using evolution_detail::stage_counter;

namespace {

/// Measured configs per training shape the mutator is shown (the fastest ones).
constexpr std::size_t kMeasuredPerShape = 64;

/// The `program` event of a seed (op "seed", no parent, program number 0): its stage, kernel
/// runs and cache hits, the reason it stopped, its probe figure and `train` when given.
nlohmann::json seed_event(std::uint64_t id, const Evaluation& ev, std::optional<double> train) {
  nlohmann::json e{{"event", "program"},
                   {"n", 0},
                   {"id", id},
                   {"parent", 0},
                   {"inspirations", nlohmann::json::array()},
                   {"island", -1},
                   {"op", "seed"},
                   {"stage", stage_name(ev.stage)},
                   {"kernel_runs", ev.kernel_runs},
                   {"cache_hits", ev.cache_hits}};
  if (!ev.reason.empty()) e["reason"] = ev.reason;
  if (ev.probe.valid) e["probe"] = ev.probe.speedup_vs_expert;
  if (train) e["train"] = *train;
  return e;
}

} // namespace

namespace evolution_detail {

long long& stage_counter(Counters& c, Stage s) {
  switch (s) {
  case Stage::mutator_failed:
    return c.mutator_failed;
  case Stage::diff_failed:
    return c.diff_failed;
  case Stage::parse_failed:
    return c.parse_failed;
  case Stage::noop:
    return c.noop;
  case Stage::static_reject:
    return c.static_reject;
  case Stage::probe_reject:
    return c.probe_reject;
  case Stage::race_reject:
    return c.race_reject;
  case Stage::timing_failed:
    return c.timing_failed;
  case Stage::over_budget:
    return c.over_budget;
  case Stage::full:
    return c.full;
  }
  return c.full;
}

std::uint64_t behaviour(const Program& p, const Problem& problem) {
  std::uint64_t h = 0x6265686176696f72ULL;
  for (auto r : problem.train_rows)
    h = hash_mix(h, hash_value(p.choose(problem.shape(r))));
  return h;
}

std::string diff_text_of(const std::string& reply, const std::string& parent_text,
                         const Program& child) {
  const ParsedReply parsed = parse_reply(reply);
  return parsed.kind == ReplyKind::diff
             ? format_diff(parsed.blocks)
             : format_diff(diff_lines(parent_text, print_program(child)));
}

} // namespace evolution_detail

bool is_run_step(const std::string& op) {
  return op == "seed" || op == "analytic seed" || op == "vendor seed";
}

// Options (to_json, from_json) and run_config: evolution_options.cpp.
// The run state (Evolution::State): evolution_detail.hpp.

Evolution::Evolution(const Problem& problem, Mutator& mutator, EvolutionOptions options,
                     std::string dir)
    : problem_(&problem), mutator_(&mutator), options_(std::move(options)), dir_(std::move(dir)) {
  if (options_.batch < 1) throw InputError("batch must be at least 1");
  if (options_.budget < 0) throw InputError("budget must not be negative");
  if (options_.database.islands < 1) throw InputError("there must be at least one island");
  if (options_.candidates < 1) throw InputError("candidates must be at least 1");
  for (const std::string& name : options_.skip_passes)
    check_pass_name(name, true); // a run's own options may name a pass since retired
  options_ = with_backend_defaults(std::move(options_), problem);
  if (!(options_.rule_penalty < 1)) throw InputError("the rule penalty must be a fraction below 1");
}

double Evolution::selection_score(double speedup, const Program& p) const {
  return speedup * std::pow(1.0 - s_->search_penalty, double(p.rules.size()));
}

nlohmann::json Evolution::timed_pairs() const {
  return s_ ? s_->eval.cache_to_json() : nlohmann::json::array();
}

long long Evolution::kernel_cap() const {
  State& s = *s_;
  if (s.kernel_cap < 0)
    s.kernel_cap =
        options_.kernel_runs.any() ? options_.kernel_runs.cap(s.eval.exhaustive_train_runs()) : 0;
  return s.kernel_cap;
}

long long Evolution::kernel_runs_left() const {
  return kernel_cap() > 0 ? std::max(0LL, kernel_cap() - s_->counters.kernel_runs) : -1;
}

bool Evolution::kernel_runs_spent() const {
  // The first program that did not fit ends the run (its counter is in every checkpoint).
  return kernel_cap() > 0 &&
         (s_->counters.kernel_runs >= kernel_cap() || s_->counters.over_budget > 0);
}

Evolution::~Evolution() = default;
// ---------------------------------------------------------------- loop

void Evolution::seed_run() {
  State& s = *s_;
  const Program& expert = problem_->expert;
  std::vector<std::string> probe_names;
  for (auto r : s.eval.probe_rows())
    probe_names.push_back(problem_->shape(r).label());
  if (s.events)
    s.events->write({{"event", "start"},
                     {"seed", options_.seed},
                     {"budget", options_.budget},
                     {"mutator", mutator_->name()},
                     {"train_shapes", problem_->train_rows.size()},
                     {"test_shapes", problem_->test_rows.size()},
                     {"probe_shapes", probe_names}});
  Evaluation ev = s.eval.evaluate(expert, 0.0);
  if (ev.stage != Stage::full)
    throw InputError(fmt::format("the expert program could not be evaluated: {}", ev.reason));
  s.counters.kernel_runs += ev.kernel_runs;
  s.counters.cache_hits += ev.cache_hits;
  s.per_op["seed"].kernel_runs += ev.kernel_runs;
  s.per_op["seed"].cache_hits += ev.cache_hits;
  Candidate c;
  c.id = s.next_id++;
  c.program = expert;
  c.score = selection_score(ev.train.speedup_vs_expert, expert);
  for (int i = 0; i < s.db.islands(); ++i) {
    c.island = i;
    s.db.add(c, s.rng);
  }
  s.best = s.db.best();
  s.seen.insert(hash_value(expert));
  s.behaviours.insert(behaviour(expert, *problem_));
  s.best_times = ev.train_times;
  s.expert_times = ev.train_times;
  s.best_configs.clear();
  for (const Shape& sh : s.train_shapes)
    s.best_configs.push_back(expert.choose(sh));
  // Lineage nodes and program events carry the raw training speedup, as a child's do (a resume
  // rebuilds the lineage from the events); improvements carry the selection score.
  s.lineage.add({c.id, "seed", "full", ev.train.speedup_vs_expert}, 0, {});
  s.improvements.push_back({0, c.id, c.score, "seed"});
  write_backend_events();
  if (s.events) s.events->write(seed_event(c.id, ev, ev.train.speedup_vs_expert));
  if (options_.analytic_seed && kernel_runs_left() >= 0 && analytic_seed_applies(*problem_))
    seed_analytic();
  if (problem_->spec.vendor_dispatch) seed_vendor();
  s.seeded = true;
}

void Evolution::seed_analytic() {
  const int leaves = std::min(kMaxTreeLeaves, kRefitLeafFactor * problem_->spec.tree_leaves);
  const std::optional<Program> tree = analytic_seed_tree(*problem_, s_->train_shapes, leaves);
  if (!tree || *tree == problem_->expert || !problem_->static_issues(*tree).empty()) return;
  // Raced against the expert from its first pair, after the expert's probe shapes: a tree the
  // table does not bear out costs a few kernel runs, not one per training shape.
  seed_start(*tree, "analytic", true);
}

void Evolution::seed_vendor() {
  // The vendor library everywhere: one kernel run per training shape, timed in full (it is the
  // floor a run is held to), so every shape's measurements include the library's time.
  Program vendor;
  vendor.default_config = vendor_config();
  if (!problem_->static_issues(vendor).empty()) return;
  seed_start(vendor, "vendor", false);
}

void Evolution::seed_start(const Program& program, const std::string& kind, bool race) {
  State& s = *s_;
  const Program& expert = problem_->expert;
  const double ref = race ? s.eval.cached_probe_score(expert).speedup_vs_expert : 0.0;
  const Evaluation ev =
      s.eval.evaluate(program, ref, kernel_runs_left(), race ? &expert : nullptr, 0);
  s.counters.kernel_runs += ev.kernel_runs;
  s.counters.cache_hits += ev.cache_hits;
  Counters& mine = s.per_op[kind + " seed"];
  mine.kernel_runs += ev.kernel_runs;
  mine.cache_hits += ev.cache_hits;
  stage_counter(mine, ev.stage) = 1;
  Candidate c;
  c.id = s.next_id++;
  c.program = program;
  c.score = ev.stage == Stage::full ? selection_score(ev.train.speedup_vs_expert, program) : 0.0;
  s.seen.insert(hash_value(program));
  if (ev.stage != Stage::static_reject) s.behaviours.insert(behaviour(program, *problem_));
  s.lineage.add({c.id, "seed", std::string(stage_name(ev.stage)),
                 ev.stage == Stage::full ? ev.train.speedup_vs_expert : 0.0},
                0, {});
  const bool new_best = ev.stage == Stage::full && c.score > s.best.score;
  if (ev.stage == Stage::full) {
    for (int i = 0; i < s.db.islands(); ++i) {
      c.island = i;
      s.db.add(c, s.rng);
    }
    for (std::size_t i = 0; i < ev.train_times.size(); ++i)
      if (ev.train_times[i] < s.best_times[i]) {
        s.best_times[i] = ev.train_times[i];
        s.best_configs[i] = program.choose(s.train_shapes[i]);
      }
    if (new_best) {
      s.best = c;
      s.improvements.push_back({0, c.id, c.score, "seed"});
    }
  }
  if (!s.events) return;
  nlohmann::json e = seed_event(
      c.id, ev,
      ev.stage == Stage::full ? std::optional<double>(ev.train.speedup_vs_expert) : std::nullopt);
  e["seed"] = kind;
  s.events->write(e);
  if (new_best) {
    nlohmann::json b{
        {"event", "new_best"}, {"n", 0}, {"id", c.id}, {"score", c.score}, {"op", "seed"}};
    if (s.viewer) b.update(s.viewer->best_fields(s.best.program));
    s.events->write(b);
  }
}

MutationRequest Evolution::make_request(const ParentSample& sample) {
  State& s = *s_;
  MutationRequest request;
  request.parent_text = s.text_of(sample.parent);
  for (const auto& i : sample.inspirations) {
    request.inspiration_texts.push_back(s.text_of(i));
    request.inspiration_scores.push_back(i.score);
  }
  request.parent_score = sample.parent.score;
  const std::vector<std::size_t>& rows = problem_->train_rows;
  request.feedback.reserve(rows.size());
  const State::Choices& choices = s.choices_of(sample.parent, rows);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const Shape& sh = s.train_shapes[i];
    const Config& chosen = choices.configs[i];
    const double time = choices.seconds[i];
    const bool parent_is_best = time <= s.best_times[i];
    request.feedback.push_back({sh, chosen, time, parent_is_best ? time : s.best_times[i],
                                parent_is_best ? chosen : s.best_configs[i],
                                i < s.expert_times.size() ? s.expert_times[i] : 0.0,
                                s.eval.fastest_list(rows[i], kMeasuredPerShape)});
  }
  const Candidate& best = s.best;
  request.best_text = best.id == sample.parent.id ? request.parent_text : s.text_of(best);
  request.best_score = best.score;
  request.previous_attempts = s.history.of(sample.parent.id);
  request.model_prior = options_.model_prior;
  return request;
}

// settle() and its steps (draft, trial, accept, record): evolution_settle.cpp.

void Evolution::step_batch(long long count) {
  State& s = *s_;
  const int k = options_.candidates;
  // Groups of k proposals for one parent. With k > 1 each group keeps a place in the batch for
  // the merge of its children, so a batch of `count` holds count / (k + 1) groups; when fewer
  // than k + 1 programs are left, one group of that many proposals and no merge.
  struct Group {
    ParentSample sample;
    std::string parent_text;
    std::size_t first = 0, size = 0;
    bool merge_room = false;
  };
  std::vector<Group> groups;
  std::vector<MutationRequest> requests;
  const bool merge_room = k > 1 && count >= k + 1;
  const long long group_count = k == 1 ? count : (merge_room ? count / (k + 1) : 1);
  for (long long gi = 0; gi < group_count; ++gi) {
    Group g;
    g.sample = s.db.sample(int((s.done + gi) % s.db.islands()), s.rng);
    MutationRequest base = make_request(g.sample);
    g.parent_text = base.parent_text;
    g.merge_room = merge_room;
    g.size = std::size_t(k == 1 ? 1 : (merge_room ? k : count));
    g.first = requests.size();
    for (std::size_t c = 0; c < g.size; ++c) {
      MutationRequest r;
      if (c + 1 < g.size)
        r = base;
      else
        r = std::move(base); // the last one takes it
      r.seed = s.rng.next();
      r.candidate = int(c);
      r.candidates = k;
      requests.push_back(std::move(r));
    }
    groups.push_back(std::move(g));
  }
  // The parents as values (the groups no longer move): the mock LLM need not parse them.
  for (const Group& g : groups)
    for (std::size_t c = 0; c < g.size; ++c)
      requests[g.first + c].parent_program = &g.sample.parent.program;
  const std::vector<MutationReply> replies = mutator_->propose_all(requests);
  if (replies.size() != requests.size())
    throw std::logic_error("the mutator returned a different number of replies");

  for (const Group& g : groups) {
    std::vector<Child> better; // children that beat the parent, best first
    for (std::size_t c = 0; c < g.size; ++c) {
      if (kernel_runs_spent()) return; // the rest of the batch is not evaluated
      Child child = settle(g.sample, g.parent_text, replies[g.first + c], nullptr, {});
      if (child.stage == Stage::full &&
          child.score > g.sample.parent.score * (1.0 + options_.noise_threshold))
        better.push_back(std::move(child));
    }
    if (!g.merge_room || better.size() < 2 || kernel_runs_spent()) continue;
    std::stable_sort(better.begin(), better.end(),
                     [](const Child& a, const Child& b) { return a.score > b.score; });
    std::vector<std::string> texts;
    for (const Child& b : better)
      texts.push_back(print_program(b.program));
    const auto merged = merge_edits(g.parent_text, texts);
    if (!merged) continue;
    std::vector<std::uint64_t> from;
    for (std::size_t i : merged->contributors)
      from.push_back(better[i].id);
    MutationReply reply;
    reply.op = "merge";
    reply.text = format_diff(merged->blocks);
    settle(g.sample, g.parent_text, reply, &merged->text, from);
  }
}

EvolutionResult Evolution::loop() {
  State& s = *s_;
  if (!s.seeded && kernel_cap() > 0) {
    // Every run starts by timing the expert on the training shapes; a cap below that cannot
    // be kept, so it is refused rather than passed.
    const long long need = s.eval.uncached(problem_->expert, problem_->train_rows);
    if (need > kernel_runs_left())
      throw InputError(fmt::format(
          "--max-kernel-runs: a cap of {} kernel runs ({:.2f}% of exhaustive tuning) is below "
          "the {} it takes to time the expert program on the {} training shapes, where every "
          "run starts; give at least {} (or {:.2f}%)",
          kernel_cap(), 100.0 * double(kernel_cap()) / double(s.eval.exhaustive_train_runs()), need,
          problem_->train_rows.size(), need + s.counters.kernel_runs,
          std::ceil(10000.0 * double(need + s.counters.kernel_runs) /
                    double(s.eval.exhaustive_train_runs())) /
              100.0));
  }
  if (!s.seeded) {
    seed_run();
    if (!dir_.empty()) write_checkpoint();
  }
  while (!s.search_done) {
    if (s.done >= options_.budget)
      s.stop_reason = "budget";
    else if (options_.stagnation > 0 && s.since_best >= options_.stagnation)
      s.stop_reason = "stagnation";
    else if (options_.target_score > 0 && s.best.score >= options_.target_score)
      s.stop_reason = "target score";
    else if (options_.max_seconds > 0 && s.seconds() >= options_.max_seconds)
      s.stop_reason = "wall time";
    else if (kernel_runs_spent())
      s.stop_reason = "kernel-run budget";
    else if (const std::string why = mutator_->exhausted(); !why.empty())
      s.stop_reason = why; // a spent token or request budget, a server that keeps failing
    if (!s.stop_reason.empty()) break;
    if (stop_request_ && stop_request_()) {
      // Between two batches, as a periodic checkpoint: a resume goes on from here.
      // The interrupted event follows the checkpoint (a resume truncates it away): a page
      // watching the run says at once that it stopped and can go on.
      if (!dir_.empty()) write_checkpoint();
      if (s.events)
        s.events->write(
            {{"event", "interrupted"}, {"programs", s.done}, {"best_train", s.best.score}});
      throw InterruptedError(s.done, s.best.score);
    }
    long long count = std::min<long long>(options_.batch, options_.budget - s.done);
    if (const long long left = mutator_->remaining_requests(); left >= 0)
      count = std::min(count, left);
    step_batch(count);
    if (!dir_.empty() &&
        checkpoint_due({options_.checkpoint_every, options_.checkpoint_seconds},
                       s.done - s.last_checkpoint, s.seconds() - s.last_checkpoint_seconds))
      write_checkpoint();
    if (progress_) {
      Progress pr;
      pr.done = s.done;
      pr.budget = options_.budget;
      pr.best_score = s.best.score;
      pr.best_fraction = problem_->train->score(s.best.program).fraction_of_oracle;
      pr.kernel_runs = s.counters.kernel_runs;
      pr.seconds = s.seconds();
      progress_(pr);
    }
  }
  return finish();
}

EvolutionResult Evolution::run() {
  s_ = std::make_unique<State>(*problem_, options_);
  if (!known_pairs_.is_null()) s_->eval.cache_from_json(known_pairs_);
  if (!dir_.empty()) {
    namespace fs = std::filesystem;
    std::error_code ec;
    fs::create_directories(dir_, ec);
    if (ec)
      throw InputError(fmt::format("cannot create run directory '{}': {}", dir_, ec.message()));
    s_->lock = std::make_unique<RunLock>(dir_);
    if (fs::exists(dir_ + "/config.json") || fs::exists(dir_ + "/checkpoint.json"))
      throw InputError(fmt::format("'{}' already holds a run; continue it with --resume {} or "
                                   "choose another --out",
                                   dir_, dir_));
    atomic_write(dir_ + "/config.json", run_config(*problem_, *mutator_, options_).dump(2) + "\n");
    s_->events = std::make_unique<EventLog>(dir_ + "/events.ndjson", 0);
    s_->viewer = std::make_unique<ViewerData>(*problem_);
    write_checkpoint(); // so that a run killed at any moment can be resumed
  }
  return guarded_loop();
}

// Checkpoints (write_checkpoint, load_checkpoint, resume): evolution_checkpoint.cpp.

// The results (race completion, polish, refit validation, finish()): evolution_result.cpp.

} // namespace tv
