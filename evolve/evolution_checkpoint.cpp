// The run's checkpoint: write_checkpoint saves Evolution::State to checkpoint.json (atomic),
// load_checkpoint and resume continue a run from it (file format: checkpoint.hpp).
#include "evolve/evolution.hpp"

#include "evolve/checkpoint.hpp"
#include "evolve/evolution_detail.hpp"
#include "ir/bounded_json.hpp"
#include "ir/diff.hpp"
#include "ir/error.hpp"
#include "ir/text.hpp"

#include <filesystem>
#include <fmt/format.h>
#include <sstream>
#include <string>
#include <vector>

namespace tv {

using evolution_detail::get_field;

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
  st["front"] = s.front.to_json();
  st["search_penalty"] = s.search_penalty;
  st["raced"] = nlohmann::json::array();
  for (const Program& p : s.raced)
    st["raced"].push_back(print_program(p));
  if (s.explored) st["exploration"] = *s.explored;
  // Without its pairs: they are in the run's cache below.
  if (s.selection) st["selection"] = s.selection->to_json(false);
  if (const auto m = mutator_->state(); !m.is_null()) st["mutator"] = m;
  if (s.late_from) {
    // Guard validation's pairs apart, for a resumed finished run to hold aside until then.
    st["cache"] = s.eval.cache_to_json(0, *s.late_from);
    st["late_cache"] = s.eval.cache_to_json(*s.late_from);
  } else {
    st["cache"] = s.eval.cache_to_json();
  }
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
  if (st.contains("front"))
    s.front = ComplexityFront::from_json(get_field<nlohmann::json>(st, "front", w));
  if (st.contains("search_penalty")) s.search_penalty = get_field<double>(st, "search_penalty", w);
  s.raced.clear(); // checkpoints written before racing have none
  if (st.contains("raced"))
    for (const auto& text : get_field<std::vector<std::string>>(st, "raced", w)) {
      const ParseResult pr = parse_program(text);
      if (!pr.ok()) throw InputError(fmt::format("{}: a raced program does not parse", path));
      s.raced.push_back(*pr.program);
    }
  s.explored.reset(); // checkpoints written before leaf exploration, or before it ran, have none
  if (st.contains("exploration")) s.explored = get_field<std::string>(st, "exploration", w);
  if (st.contains("selection"))
    s.selection = ModelSelection::from_json(get_field<nlohmann::json>(st, "selection", w));
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
    s.late_cache = nullptr; // a finished run's guard validation pairs; added when it gets there
    if (st.contains("late_cache")) {
      s.late_cache = get_field<nlohmann::json>(st, "late_cache", w);
      s.eval.check_cache_json(s.late_cache); // refused now, not when guard validation reads it
    }
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
