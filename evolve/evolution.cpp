#include "evolve/evolution.hpp"

#include "evolve/attempt_history.hpp"
#include "evolve/candidate_merge.hpp"
#include "evolve/checkpoint.hpp"
#include "evolve/mutators/reply_parser.hpp"
#include "eval/analytic_backend.hpp"
#include "evolve/run_dir.hpp"
#include "evolve/run_exports.hpp"
#include "evolve/viewer_data.hpp"
#include "ir/diff.hpp"
#include "ir/error.hpp"
#include "ir/hash.hpp"
#include "ir/line_diff.hpp"
#include "ir/simplify.hpp"
#include "ir/text.hpp"
#include "models/json_text.hpp"

#include <chrono>
#include <cmath>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <set>
#include <sstream>

namespace tv {

namespace {

/// Measured configs per training shape the mutator is shown (the fastest ones).
constexpr std::size_t kMeasuredPerShape = 64;

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
  case Stage::timing_failed:
    return c.timing_failed;
  case Stage::full:
    return c.full;
  }
  return c.full;
}

template <class T> T get_field(const nlohmann::json& j, const char* key, const char* where) {
  if (!j.is_object() || !j.contains(key))
    throw InputError(fmt::format("{}: field '{}' missing", where, key));
  // Checked first: get<T>() itself would cast an out-of-range number (undefined behaviour).
  if (const std::string why = json_type_problem<T>(j.at(key)); !why.empty())
    throw InputError(fmt::format("{}: field '{}' has the wrong type ({})", where, key, why));
  return j.at(key).get<T>();
}

/// Fingerprint of what `p` decides on `rows`: programs with equal fingerprints choose the same
/// config for every training shape, so timing one tells everything about the other.
std::uint64_t behaviour(const Program& p, const Problem& problem) {
  std::uint64_t h = 0x6265686176696f72ULL;
  for (auto r : problem.train_rows)
    h = hash_mix(h, hash_value(p.choose(problem.shape(r))));
  return h;
}

} // namespace

// ---------------------------------------------------------------- options

nlohmann::json EvolutionOptions::to_json() const {
  return {{"seed", seed},
          {"budget", budget},
          {"stagnation", stagnation},
          {"target_score", target_score},
          {"max_seconds", max_seconds},
          {"batch", batch},
          {"candidates", candidates},
          {"checkpoint_every", checkpoint_every},
          {"drop_unexercised", drop_unexercised},
          {"noise_threshold", noise_threshold},
          {"rule_penalty", rule_penalty},
          {"confirm_samples", confirm_samples},
          {"database",
           {{"islands", database.islands},
            {"island_capacity", database.island_capacity},
            {"archive_size", database.archive_size},
            {"migration_interval", database.migration_interval},
            {"inspirations", database.inspirations},
            {"exploit_rate", database.exploit_rate},
            {"archive_rate", database.archive_rate}}},
          {"cascade",
           {{"enabled", cascade.enabled},
            {"probe_count", cascade.probe_count},
            {"probe_shapes", cascade.probe_shapes},
            {"probe_margin", cascade.probe_margin},
            {"analytic_probes", cascade.analytic_probes}}}};
}

EvolutionOptions EvolutionOptions::from_json(const nlohmann::json& j) {
  const char* w = "options";
  EvolutionOptions o;
  o.seed = get_field<std::uint64_t>(j, "seed", w);
  o.budget = get_field<long long>(j, "budget", w);
  o.stagnation = get_field<long long>(j, "stagnation", w);
  o.target_score = get_field<double>(j, "target_score", w);
  o.max_seconds = get_field<double>(j, "max_seconds", w);
  o.batch = get_field<int>(j, "batch", w);
  o.checkpoint_every = get_field<long long>(j, "checkpoint_every", w);
  o.drop_unexercised = get_field<bool>(j, "drop_unexercised", w);
  o.candidates = j.contains("candidates") ? get_field<int>(j, "candidates", w) : 1; // older runs
  const auto db = get_field<nlohmann::json>(j, "database", w);
  const char* wd = "options.database";
  o.database.islands = get_field<int>(db, "islands", wd);
  o.database.island_capacity = get_field<int>(db, "island_capacity", wd);
  o.database.archive_size = get_field<int>(db, "archive_size", wd);
  o.database.migration_interval = get_field<int>(db, "migration_interval", wd);
  o.database.inspirations = get_field<int>(db, "inspirations", wd);
  o.database.exploit_rate = get_field<double>(db, "exploit_rate", wd);
  o.database.archive_rate = get_field<double>(db, "archive_rate", wd);
  const auto c = get_field<nlohmann::json>(j, "cascade", w);
  const char* wc = "options.cascade";
  o.cascade.enabled = get_field<bool>(c, "enabled", wc);
  o.cascade.probe_count = get_field<int>(c, "probe_count", wc);
  o.cascade.probe_shapes = get_field<std::vector<std::string>>(c, "probe_shapes", wc);
  o.cascade.probe_margin = get_field<double>(c, "probe_margin", wc);
  // Measured runs' settings; runs written before they existed had neither.
  if (j.contains("noise_threshold")) o.noise_threshold = get_field<double>(j, "noise_threshold", w);
  if (j.contains("rule_penalty")) o.rule_penalty = get_field<double>(j, "rule_penalty", w);
  if (j.contains("confirm_samples")) o.confirm_samples = get_field<int>(j, "confirm_samples", w);
  if (c.contains("analytic_probes"))
    o.cascade.analytic_probes = get_field<bool>(c, "analytic_probes", wc);
  return o;
}

// ---------------------------------------------------------------- state

struct Evolution::State {
  State(const Problem& p, const EvolutionOptions& o)
      : rng(o.seed), db(o.database), eval(p, o.cascade) {
    for (auto r : p.train_rows)
      train_shapes.push_back(p.shape(r));
  }
  Rng rng;
  ProgramDatabase db;
  CascadeEvaluator eval;
  Lineage lineage;
  Counters counters;
  std::map<std::string, Counters> per_op;
  std::vector<Improvement> improvements;
  Candidate best; ///< the accepted best (beyond the noise threshold, re-measured if asked)
  std::set<std::uint64_t> seen;       ///< structural hashes of programs already evaluated
  std::set<std::uint64_t> behaviours; ///< decisions on the training shapes already evaluated
  std::vector<double> best_times;     ///< best time seen per training shape
  std::vector<Config> best_configs;   ///< the config that ran in best_times, per training shape
  std::vector<Shape> train_shapes;
  std::vector<double> expert_times; ///< the expert's time per training shape
  AttemptHistory history;           ///< each parent's last children and their outcomes
  std::string best_diff;            ///< the edit that produced the best, as SEARCH/REPLACE
  std::uint64_t next_id = 1;
  long long done = 0; ///< programs proposed (the seed is not counted)
  long long since_best = 0;
  bool seeded = false;
  std::string best_reply, best_op = "seed";
  std::unique_ptr<RunLock> lock; ///< held while the run uses its directory
  std::unique_ptr<EventLog> events;
  std::unique_ptr<ViewerData> viewer; ///< what the dashboard reads (run directory only)
  long long last_checkpoint = 0;
  std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
  double seconds_before = 0;
  std::string stop_reason;
  bool resumed = false;

  double seconds() const {
    return seconds_before +
           std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
};

Evolution::Evolution(const Problem& problem, Mutator& mutator, EvolutionOptions options,
                     std::string dir)
    : problem_(&problem), mutator_(&mutator), options_(std::move(options)), dir_(std::move(dir)) {
  if (options_.batch < 1) throw InputError("batch must be at least 1");
  if (options_.budget < 0) throw InputError("budget must not be negative");
  if (options_.database.islands < 1) throw InputError("there must be at least one island");
  if (options_.candidates < 1) throw InputError("candidates must be at least 1");
  if (options_.rule_penalty < 0)
    options_.rule_penalty =
        dynamic_cast<const AnalyticBackend*>(problem.backend.get()) ? 0.0 : kNoisyRulePenalty;
  if (!(options_.rule_penalty < 1))
    throw InputError("the rule penalty must be a fraction below 1");
}

double Evolution::selection_score(double speedup, const Program& p) const {
  return speedup * std::pow(1.0 - options_.rule_penalty, double(p.rules.size()));
}

Evolution::~Evolution() = default;

nlohmann::json Evolution::run_config(const Problem& p, const Mutator& m,
                                     const EvolutionOptions& o) {
  return {{"format", "tilevolve-run"},
          {"version", 1},
          {"problem", problem_spec_json(p.spec)},
          {"resolved",
           {{"shapes_file", p.shapes_path},
            {"expert_file", p.expert_path},
            {"expert", print_program(p.expert)},
            {"train_shapes", p.train_rows.size()},
            {"test_shapes", p.test_rows.size()},
            // A table of what was measured grows as runs measure: its size names no run.
            {"configs", p.backend->complete_table() ? nlohmann::json(p.table->configs().size())
                                                    : nlohmann::json(nullptr)}}},
          {"mutator", m.name()},
          {"mutator_settings", m.settings()}, // null for the mock
          {"options", o.to_json()}};
}

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
  s.lineage.add({c.id, "seed", "full", c.score}, 0, {});
  s.improvements.push_back({0, c.id, c.score, "seed"});
  if (s.events)
    s.events->write({{"event", "program"},
                     {"n", 0},
                     {"id", c.id},
                     {"parent", 0},
                     {"inspirations", nlohmann::json::array()},
                     {"island", -1},
                     {"op", "seed"},
                     {"stage", "full"},
                     {"probe", ev.probe.speedup_vs_expert},
                     {"train", c.score},
                     {"kernel_runs", ev.kernel_runs},
                     {"cache_hits", ev.cache_hits}});
  s.seeded = true;
}

// One child of a parent, once the cascade (or an earlier stage) is done with it.
struct Evolution::Child {
  std::uint64_t id = 0;
  Stage stage = Stage::full;
  double score = 0;
  Program program;
};

MutationRequest Evolution::make_request(const ParentSample& sample) {
  State& s = *s_;
  MutationRequest request;
  request.parent_text = print_program(sample.parent.program);
  for (const auto& i : sample.inspirations) {
    request.inspiration_texts.push_back(print_program(i.program));
    request.inspiration_scores.push_back(i.score);
  }
  request.parent_score = sample.parent.score;
  const auto times = s.eval.cached_times(sample.parent.program, problem_->train_rows);
  for (std::size_t i = 0; i < times.size(); ++i) {
    const Shape& sh = s.train_shapes[i];
    const Config chosen = sample.parent.program.choose(sh);
    const bool parent_is_best = times[i] <= s.best_times[i];
    request.feedback.push_back({sh, chosen, times[i], parent_is_best ? times[i] : s.best_times[i],
                                parent_is_best ? chosen : s.best_configs[i],
                                i < s.expert_times.size() ? s.expert_times[i] : 0.0,
                                s.eval.fastest(problem_->train_rows[i], kMeasuredPerShape)});
  }
  const Candidate& best = s.best;
  request.best_text =
      best.id == sample.parent.id ? request.parent_text : print_program(best.program);
  request.best_score = best.score;
  request.previous_attempts = s.history.of(sample.parent.id);
  return request;
}

Evolution::Child Evolution::settle(const ParentSample& sample, const std::string& parent_text,
                                   const MutationReply& reply, const std::string* merged_text,
                                   const std::vector<std::uint64_t>& merged_from) {
  State& s = *s_;
  ++s.done;
  ++s.since_best;
  Child out;
  const std::uint64_t id = s.next_id++;
  out.id = id;
  const Candidate& parent = sample.parent;
  const std::string op = reply.op.empty() ? "unknown" : reply.op;
  Counters delta;
  delta.proposed = 1;
  Stage stage = Stage::full;
  std::string reason, child_text;
  Evaluation ev;
  if (!reply.ok) {
    stage = Stage::mutator_failed;
    reason = reply.error;
  } else if (merged_text) {
    child_text = *merged_text;
  } else if (ReplyEdit edit = edit_from_reply(reply.text, parent_text); !edit.ok()) {
    stage = Stage::diff_failed;
    reason = edit.failure;
  } else {
    child_text = std::move(edit.child_text);
  }
  if (stage == Stage::full) {
    if (ParseResult pr = parse_program(child_text); !pr.ok()) {
      stage = Stage::parse_failed;
      reason = pr.error->str();
    } else if (const Program child = options_.drop_unexercised
                                         ? drop_unexercised_rules(*pr.program, s.train_shapes)
                                         : *pr.program;
               child == parent.program || s.seen.count(hash_value(child))) {
      stage = Stage::noop;
      reason =
          child == parent.program ? "same program as its parent" : "same program as an earlier one";
    } else if (s.seen.insert(hash_value(child)); s.behaviours.count(behaviour(child, *problem_)) &&
                                                 problem_->static_issues(child).empty()) {
      // A launchable child that decides every training shape like an earlier program adds
      // nothing the database can rank: it would only crowd out diversity.
      stage = Stage::noop;
      reason = "same decisions as an earlier program on every training shape";
    } else {
      const double ref = s.eval.cached_probe_score(parent.program).speedup_vs_expert;
      ev = s.eval.evaluate(child, ref);
      if (ev.stage != Stage::static_reject) s.behaviours.insert(behaviour(child, *problem_));
      stage = ev.stage;
      reason = ev.reason;
      delta.kernel_runs = ev.kernel_runs;
      delta.cache_hits = ev.cache_hits;
      if (stage == Stage::static_reject)
        delta.static_reasons[CascadeEvaluator::reason_category(reason)] = 1;
      const double bar = 1.0 + options_.noise_threshold;
      if (stage == Stage::full && options_.confirm_samples > 0 &&
          selection_score(ev.train.speedup_vs_expert, child) > s.best.score * bar) {
        // Kernels within a few percent swap places from run to run: re-measure first.
        const Evaluation again = s.eval.confirm(child, ev.train_times, options_.confirm_samples);
        delta.kernel_runs += again.kernel_runs;
        if (again.stage != Stage::full) {
          stage = Stage::timing_failed;
          reason = "re-measuring a would-be new best: " + again.reason;
        } else {
          ev.train = again.train;
          ev.train_times = again.train_times;
        }
      }
      if (stage == Stage::full) {
        Candidate c;
        c.id = id;
        c.parent = parent.id;
        c.program = child;
        c.score = selection_score(ev.train.speedup_vs_expert, child);
        c.island = sample.island;
        out.program = child;
        out.score = c.score;
        const bool new_best = c.score > s.best.score * bar;
        if (c.score > parent.score * bar) delta.improved = 1;
        if (new_best) {
          delta.new_best = 1;
          s.best = c;
          s.improvements.push_back({s.done, id, c.score, op});
          s.best_reply = reply.text;
          const ParsedReply parsed = parse_reply(reply.text);
          s.best_diff = parsed.kind == ReplyKind::diff
                            ? format_diff(parsed.blocks)
                            : format_diff(diff_lines(parent_text, print_program(child)));
          s.best_op = op;
          s.since_best = 0;
        }
        s.db.add(c, s.rng);
        for (std::size_t i = 0; i < ev.train_times.size(); ++i)
          if (ev.train_times[i] < s.best_times[i]) {
            s.best_times[i] = ev.train_times[i];
            s.best_configs[i] = c.program.choose(s.train_shapes[i]);
          }
      }
    }
  }
  out.stage = stage;
  stage_counter(delta, stage) = 1;
  s.counters.add(delta);
  s.per_op[op].add(delta);
  std::vector<std::uint64_t> insp;
  for (const auto& i : sample.inspirations)
    insp.push_back(i.id);
  if (!merged_from.empty()) insp = merged_from; // a merge's other parents are its candidates
  const double score = stage == Stage::full ? ev.train.speedup_vs_expert : 0.0;
  s.history.record(parent.id, {op, std::string(stage_name(stage)),
                               describe_attempt(stage, reason, score, parent.score)});
  s.lineage.add({id, op, std::string(stage_name(stage)), score}, parent.id, insp);
  if (s.events) {
    nlohmann::json e{{"event", "program"},
                     {"n", s.done},
                     {"id", id},
                     {"parent", parent.id},
                     {"inspirations", insp},
                     {"island", sample.island},
                     {"op", op},
                     {"stage", stage_name(stage)},
                     {"kernel_runs", delta.kernel_runs},
                     {"cache_hits", delta.cache_hits}};
    if (!reason.empty()) e["reason"] = reason;
    if (ev.probe.valid) e["probe"] = ev.probe.speedup_vs_expert;
    if (stage == Stage::full) e["train"] = score;
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
          {"event", "new_best"}, {"n", s.done}, {"id", id}, {"score", score}, {"op", op}};
      if (s.viewer) b.update(s.viewer->best_fields(s.best.program));
      s.events->write(b);
    }
  }
  return out;
}

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
    const MutationRequest base = make_request(g.sample);
    g.parent_text = base.parent_text;
    g.merge_room = merge_room;
    g.size = std::size_t(k == 1 ? 1 : (merge_room ? k : count));
    g.first = requests.size();
    for (std::size_t c = 0; c < g.size; ++c) {
      MutationRequest r = base;
      r.seed = s.rng.next();
      r.candidate = int(c);
      r.candidates = k;
      requests.push_back(std::move(r));
    }
    groups.push_back(std::move(g));
  }
  const std::vector<MutationReply> replies = mutator_->propose_all(requests);
  if (replies.size() != requests.size())
    throw std::logic_error("the mutator returned a different number of replies");

  for (const Group& g : groups) {
    std::vector<Child> better; // children that beat the parent, best first
    for (std::size_t c = 0; c < g.size; ++c) {
      Child child = settle(g.sample, g.parent_text, replies[g.first + c], nullptr, {});
      if (child.stage == Stage::full &&
          child.score > g.sample.parent.score * (1.0 + options_.noise_threshold))
        better.push_back(std::move(child));
    }
    if (!g.merge_room || better.size() < 2) continue;
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
  if (!s.seeded) {
    seed_run();
    if (!dir_.empty()) write_checkpoint();
  }
  while (true) {
    if (s.done >= options_.budget)
      s.stop_reason = "budget";
    else if (options_.stagnation > 0 && s.since_best >= options_.stagnation)
      s.stop_reason = "stagnation";
    else if (options_.target_score > 0 && s.best.score >= options_.target_score)
      s.stop_reason = "target score";
    else if (options_.max_seconds > 0 && s.seconds() >= options_.max_seconds)
      s.stop_reason = "wall time";
    else if (const std::string why = mutator_->exhausted(); !why.empty())
      s.stop_reason = why; // a spent token or request budget, a server that keeps failing
    if (!s.stop_reason.empty()) break;
    long long count = std::min<long long>(options_.batch, options_.budget - s.done);
    if (const long long left = mutator_->remaining_requests(); left >= 0)
      count = std::min(count, left);
    step_batch(count);
    if (!dir_.empty() && s.done - s.last_checkpoint >= options_.checkpoint_every)
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
  return loop();
}

// ---------------------------------------------------------------- checkpoints

void Evolution::write_checkpoint() {
  State& s = *s_;
  nlohmann::json st;
  st["seeded"] = s.seeded;
  st["done"] = s.done;
  st["next_id"] = s.next_id;
  st["since_best"] = s.since_best;
  st["rng"] = s.rng.state();
  st["database"] = s.db.to_json();
  st["counters"] = s.counters.to_json();
  for (const auto& [op, c] : s.per_op)
    st["per_operator"][op] = c.to_json();
  if (!st.contains("per_operator")) st["per_operator"] = nlohmann::json::object();
  st["improvements"] = nlohmann::json::array();
  for (const auto& i : s.improvements)
    st["improvements"].push_back(
        {{"program", i.program}, {"id", i.id}, {"score", i.score}, {"op", i.op}});
  st["seen"] = s.seen;
  st["behaviours"] = s.behaviours;
  st["best_times"] = s.best_times;
  st["best_configs"] = nlohmann::json::array();
  for (const Config& c : s.best_configs)
    st["best_configs"].push_back(print_config(c));
  st["best"] = {{"id", s.best.id},
                {"parent", s.best.parent},
                {"program", print_program(s.best.program)},
                {"score", s.best.score},
                {"island", s.best.island}};
  st["best_reply"] = s.best_reply;
  st["best_diff"] = s.best_diff;
  st["best_op"] = s.best_op;
  st["history"] = s.history.to_json();
  if (const auto m = mutator_->state(); !m.is_null()) st["mutator"] = m;
  st["cache"] = s.eval.cache_to_json();
  st["events_offset"] = s.events ? s.events->sync() : 0;
  st["seconds"] = s.seconds();
  atomic_write(dir_ + "/checkpoint.json",
               checkpoint_text(st, run_fingerprint(run_config(*problem_, *mutator_, options_))));
  if (s.seeded) s.viewer->write_per_shape(dir_, s.best.id, s.best.program);
  s.last_checkpoint = s.done;
}

void Evolution::load_checkpoint() {
  const std::string path = dir_ + "/checkpoint.json";
  if (!std::filesystem::exists(path))
    throw InputError(fmt::format("'{}' has no checkpoint.json: the run stopped before its first "
                                 "checkpoint; start it again without --resume",
                                 dir_));
  const nlohmann::json st = checkpoint_state(
      read_file(path), path, run_fingerprint(run_config(*problem_, *mutator_, options_)));
  State& s = *s_;
  const char* w = "checkpoint";
  s.seeded = get_field<bool>(st, "seeded", w);
  s.done = get_field<long long>(st, "done", w);
  s.next_id = get_field<std::uint64_t>(st, "next_id", w);
  s.since_best = get_field<long long>(st, "since_best", w);
  if (!s.rng.set_state(get_field<std::vector<std::uint64_t>>(st, "rng", w)))
    throw InputError(fmt::format("{}: bad rng state", path));
  s.counters = Counters::from_json(get_field<nlohmann::json>(st, "counters", w));
  const auto per_op = get_field<nlohmann::json>(st, "per_operator", w);
  for (const auto& [op, c] : per_op.items())
    s.per_op[op] = Counters::from_json(c);
  const auto improvements = get_field<nlohmann::json>(st, "improvements", w);
  for (const auto& i : improvements)
    s.improvements.push_back(
        {get_field<long long>(i, "program", w), get_field<std::uint64_t>(i, "id", w),
         get_field<double>(i, "score", w), get_field<std::string>(i, "op", w)});
  for (auto h : get_field<std::vector<std::uint64_t>>(st, "seen", w))
    s.seen.insert(h);
  for (auto h : get_field<std::vector<std::uint64_t>>(st, "behaviours", w))
    s.behaviours.insert(h);
  s.best_times = get_field<std::vector<double>>(st, "best_times", w);
  s.best_configs.clear();
  for (const auto& text : get_field<std::vector<std::string>>(st, "best_configs", w)) {
    std::string why;
    const auto c = parse_config(text, &why);
    if (!c)
      throw InputError(fmt::format("{}: bad config '{}' in best_configs: {}", path, text, why));
    s.best_configs.push_back(*c);
  }
  s.best_reply = get_field<std::string>(st, "best_reply", w);
  s.best_diff = st.contains("best_diff") ? get_field<std::string>(st, "best_diff", w)
                                         : format_diff(parse_diff(s.best_reply));
  s.best_op = get_field<std::string>(st, "best_op", w);
  if (st.contains("history"))
    s.history = AttemptHistory::from_json(get_field<nlohmann::json>(st, "history", w));
  if (st.contains("mutator"))
    mutator_->restore(get_field<nlohmann::json>(st, "mutator", w));
  else if (!mutator_->state().is_null())
    throw InputError(
        fmt::format("{}: the checkpoint has no state of the mutator '{}'", path, mutator_->name()));
  s.seconds_before = get_field<double>(st, "seconds", w);
  s.last_checkpoint = s.done;
  if (s.seeded) {
    s.db = ProgramDatabase::from_json(get_field<nlohmann::json>(st, "database", w));
    s.best = s.db.best(); // the accepted best, below; older checkpoints: the database's
    if (st.contains("best")) {
      const auto& b = st["best"];
      const ParseResult pr = parse_program(get_field<std::string>(b, "program", w));
      if (!pr.ok()) throw InputError(fmt::format("{}: the best program does not parse", path));
      s.best.id = get_field<std::uint64_t>(b, "id", w);
      s.best.parent = get_field<std::uint64_t>(b, "parent", w);
      s.best.program = *pr.program;
      s.best.score = get_field<double>(b, "score", w);
      s.best.island = get_field<int>(b, "island", w);
    }
    s.eval.cache_from_json(get_field<nlohmann::json>(st, "cache", w));
    if (s.best_times.size() != problem_->train_rows.size())
      throw InputError(fmt::format("{}: best_times has the wrong length", path));
    if (s.best_configs.size() != problem_->train_rows.size())
      throw InputError(fmt::format("{}: best_configs has the wrong length", path));
    s.expert_times = s.eval.cached_times(problem_->expert, problem_->train_rows);
  }
  const auto offset = get_field<std::uint64_t>(st, "events_offset", w);
  // Rebuild the lineage from the events kept before the checkpoint.
  const std::string events_path = dir_ + "/events.ndjson";
  const std::string events = std::filesystem::exists(events_path) ? read_file(events_path) : "";
  if (events.size() < offset)
    throw InputError(fmt::format("{} is shorter ({} bytes) than the checkpoint says ({})",
                                 events_path, events.size(), offset));
  std::istringstream lines(events.substr(0, offset));
  std::string line;
  while (std::getline(lines, line)) {
    nlohmann::json e;
    try {
      e = nlohmann::json::parse(line);
    } catch (const nlohmann::json::parse_error&) {
      throw InputError(fmt::format("{}: corrupt event line before the checkpoint", events_path));
    }
    if (!e.is_object() || !e.contains("event") || e["event"] != "program") continue;
    const char* we = "events.ndjson";
    s.lineage.add({get_field<std::uint64_t>(e, "id", we), get_field<std::string>(e, "op", we),
                   get_field<std::string>(e, "stage", we),
                   e.contains("train") ? get_field<double>(e, "train", we) : 0.0},
                  get_field<std::uint64_t>(e, "parent", we),
                  get_field<std::vector<std::uint64_t>>(e, "inspirations", we));
  }
  s.events = std::make_unique<EventLog>(events_path, offset);
  s.viewer = std::make_unique<ViewerData>(*problem_);
  s.resumed = true;
}

EvolutionResult Evolution::resume() {
  if (dir_.empty()) throw InputError("resume needs a run directory");
  s_ = std::make_unique<State>(*problem_, options_);
  s_->lock = std::make_unique<RunLock>(dir_);
  load_checkpoint();
  return loop();
}

// ---------------------------------------------------------------- results

EvolutionResult Evolution::finish() {
  State& s = *s_;
  EvolutionResult r;
  r.best = s.best;
  r.best_train = problem_->train->score(r.best.program);
  r.best_test = problem_->test->score(r.best.program);
  r.best_simplified = simplify(r.best.program);
  r.best_reply = s.best_reply;
  r.best_diff = s.best_diff;
  r.best_op = s.best_op;
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
