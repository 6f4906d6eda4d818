// The run's checkpoint: write_checkpoint saves Evolution::State to checkpoint.json (atomic),
// load_checkpoint and resume continue a run from it (file format: checkpoint.hpp).
#include "evolve/evolution.hpp"

#include "evolve/checkpoint.hpp"
#include "evolve/evolution_detail.hpp"
#include "evolve/passes/pipeline.hpp"
#include "ir/bounded_json.hpp"
#include "ir/diff.hpp"
#include "ir/error.hpp"
#include "ir/text.hpp"
#include "models/json_text.hpp"

#include <filesystem>
#include <fmt/format.h>
#include <sstream>
#include <string>
#include <vector>

namespace tv {

using evolution_detail::get_field;

namespace {

/// Version 2's names of the steps after the search among the operators, and their passes.
const std::pair<const char*, const char*> kVersion2Steps[] = {
    {"race completion", "race-completion"},
    {"sampled sizes", "sampled-sizes"},
    {"exploration", "leaf-exploration"},
    {"polish", "leaf-polish"},
    {"guard validation", "guard-validation"}};

nlohmann::json returned_to_json(const ReturnedProgram& r) {
  return {{"id", r.best.id},
          {"parent", r.best.parent},
          {"program", print_program(r.best.program)},
          {"score", r.best.score},
          {"island", r.best.island},
          {"reply", r.reply},
          {"diff", r.diff},
          {"op", r.op},
          {"selected_from", r.selected_from}};
}

ReturnedProgram returned_from_json(const nlohmann::json& j, const std::string& path) {
  const char* w = "checkpoint: returned";
  ReturnedProgram r;
  const ParseResult pr = parse_program(get_field<std::string>(j, "program", w));
  if (!pr.ok()) throw InputError(fmt::format("{}: the returned program does not parse", path));
  r.best.program = *pr.program;
  r.best.id = get_field<std::uint64_t>(j, "id", w);
  r.best.parent = get_field<std::uint64_t>(j, "parent", w);
  r.best.score = get_field<double>(j, "score", w);
  r.best.island = get_field<int>(j, "island", w);
  r.reply = get_field<std::string>(j, "reply", w);
  r.diff = get_field<std::string>(j, "diff", w);
  r.op = get_field<std::string>(j, "op", w);
  r.selected_from = get_field<std::string>(j, "selected_from", w);
  return r;
}

} // namespace

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
  st["search_penalty"] = s.search_penalty;
  if (s.search_done) {
    // The search stopped; the passes that ran, what they timed and the program they handed on.
    st["search_done"] = true;
    st["stop_reason"] = s.stop_reason;
    st["passes"] = nlohmann::json::array();
    for (const PassReport& r : s.pass_reports)
      st["passes"].push_back(r.to_json());
    st["pass_runs"] = s.ledger.per_pass();
    if (s.returned) st["returned"] = returned_to_json(*s.returned);
  }
  if (const auto m = mutator_->state(); !m.is_null()) st["mutator"] = m;
  st["cache"] = s.eval.cache_to_json();
  if (s.seeded) write_backend_events(); // before it, they follow the start event
  st["events_offset"] = s.events ? s.events->sync() : 0;
  st["seconds"] = s.seconds();
  atomic_write(dir_ + "/checkpoint.json",
               checkpoint_text(st, run_fingerprint(run_config(*problem_, *mutator_, options_))));
  if (s.seeded) s.viewer->write_per_shape(dir_, s.best.id, s.best.program);
  s.last_checkpoint = s.done;
  s.last_checkpoint_seconds = s.seconds();
}

void Evolution::load_checkpoint() {
  const std::string path = dir_ + "/checkpoint.json";
  if (!std::filesystem::exists(path))
    throw InputError(fmt::format("'{}' has no checkpoint.json: the run stopped before its first "
                                 "checkpoint; start it again without --resume",
                                 dir_));
  const nlohmann::json config = run_config(*problem_, *mutator_, options_);
  std::vector<std::string> fingerprints{run_fingerprint(config)};
  // A run written by an earlier version: its checkpoint names its config.json as that version
  // wrote it, and it resumes when that file, migrated, is this run's configuration.
  if (const std::string cfg_path = dir_ + "/config.json"; std::filesystem::exists(cfg_path)) {
    const nlohmann::json written = parse_json_text(read_file(cfg_path), cfg_path);
    if (written != config && migrate_run_config(written) == config)
      fingerprints.push_back(run_fingerprint(written));
  }
  const nlohmann::json st = checkpoint_state(read_file(path), path, fingerprints);
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
  if (st.contains("search_penalty")) s.search_penalty = get_field<double>(st, "search_penalty", w);
  // ("raced", the children racing stopped, in checkpoints written while race completion timed
  // them after the search: nothing reads them now.)
  if (st.contains("search_done") && get_field<bool>(st, "search_done", w)) {
    s.search_done = true;
    s.stop_reason = get_field<std::string>(st, "stop_reason", w);
    for (const auto& report : get_field<nlohmann::json>(st, "passes", w)) {
      s.pass_reports.push_back(PassReport::from_json(report, "checkpoint: passes"));
      check_pass_name(s.pass_reports.back().name, true);
    }
    const nlohmann::json runs = get_field<nlohmann::json>(st, "pass_runs", w);
    if (!runs.is_object()) throw InputError(fmt::format("{}: 'pass_runs' is not an object", path));
    for (const auto& [pass, count] : runs.items()) {
      check_pass_name(pass, true);
      s.ledger.restore(pass, get_field<long long>(runs, pass.c_str(), w));
    }
    if (st.contains("returned"))
      s.returned = returned_from_json(get_field<nlohmann::json>(st, "returned", w), path);
  }
  // Checkpoints of version 2 counted the steps after the search among the operators, and kept
  // the pairs guard validation timed apart: read as the passes' counts and cache.
  for (const auto& [step, pass] : kVersion2Steps)
    if (const auto it = s.per_op.find(step); it != s.per_op.end()) {
      s.ledger.restore(pass, it->second.kernel_runs);
      s.per_op.erase(it);
    }
  if (st.contains("mutator"))
    mutator_->restore(get_field<nlohmann::json>(st, "mutator", w));
  else if (!mutator_->state().is_null())
    throw InputError(
        fmt::format("{}: the checkpoint has no state of the mutator '{}'", path, mutator_->name()));
  s.seconds_before = get_field<double>(st, "seconds", w);
  s.last_checkpoint = s.done;
  s.last_checkpoint_seconds = s.seconds_before;
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
    if (st.contains("late_cache")) // version 2
      s.eval.cache_from_json(get_field<nlohmann::json>(st, "late_cache", w), true);
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
      e = read_json(line, events_path);
    } catch (const InputError&) {
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

/// The backend's events (worker faults, retries, poison pairs, retired devices) go into the
/// stream where the run is, before its next program event or checkpoint.
void Evolution::write_backend_events() {
  std::vector<nlohmann::json> events = problem_->backend->take_events();
  if (!s_ || !s_->events) return;
  for (const auto& e : events)
    s_->events->write(e);
}

EvolutionResult Evolution::guarded_loop() {
  // A run that ends early (its workers gave out, or a stop was requested) still writes what
  // the backend reported, and syncs its stream, before the error leaves.
  const auto flush = [this] {
    write_backend_events();
    if (s_->events) s_->events->sync();
  };
  try {
    return loop();
  } catch (const GaveOutError&) {
    flush();
    throw;
  } catch (const InterruptedError&) {
    flush();
    throw;
  }
}

EvolutionResult Evolution::resume() {
  if (dir_.empty()) throw InputError("resume needs a run directory");
  s_ = std::make_unique<State>(*problem_, options_);
  s_->lock = std::make_unique<RunLock>(dir_);
  load_checkpoint();
  return guarded_loop();
}

} // namespace tv
