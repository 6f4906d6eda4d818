#pragma once
/// Internal to evolve/evolution*.cpp (not part of the public API in evolution.hpp): the run
/// state Evolution keeps between batches and a checked JSON field reader, shared by the loop
/// (evolution.cpp), the options (evolution_options.cpp) and the checkpoints
/// (evolution_checkpoint.cpp).
#include "eval/cascade.hpp"
#include "evolve/attempt_history.hpp"
#include "evolve/checkpoint_policy.hpp"
#include "evolve/evolution.hpp"
#include "evolve/run_dir.hpp"
#include "evolve/viewer_data.hpp"
#include "ir/error.hpp"
#include "ir/text.hpp"
#include "models/json_text.hpp"

#include <chrono>
#include <cmath>
#include <cstdint>
#include <fmt/format.h>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

namespace tv {

namespace evolution_detail {

/// `j[key]` as a T; throws InputError naming `where` when `j` is no object, the field is
/// missing or its type (or range) does not fit T.
template <class T> T get_field(const nlohmann::json& j, const char* key, const char* where) {
  if (!j.is_object() || !j.contains(key))
    throw InputError(fmt::format("{}: field '{}' missing", where, key));
  // Checked first: get<T>() itself would cast an out-of-range number (undefined behaviour).
  if (const std::string why = json_type_problem<T>(j.at(key)); !why.empty())
    throw InputError(fmt::format("{}: field '{}' has the wrong type ({})", where, key, why));
  return j.at(key).get<T>();
}

/// The counter of `c` that stage `s` ends in.
long long& stage_counter(Counters& c, Stage s);
/// Fingerprint of what `p` decides on the problem's training shapes: programs with equal
/// fingerprints choose the same config for every training shape.
std::uint64_t behaviour(const Program& p, const Problem& problem);
/// The SEARCH/REPLACE blocks of `reply`, re-formatted, or the line diff from the parent to
/// `child` when the reply held no diff (a whole program).
std::string diff_text_of(const std::string& reply, const std::string& parent_text,
                         const Program& child);

} // namespace evolution_detail

// One child of a parent, once the cascade (or an earlier stage) is done with it.
struct Evolution::Child {
  std::uint64_t id = 0;
  Stage stage = Stage::full;
  double score = 0;
  Program program;
};

/// Everything a run carries between batches (and writes to / reads from its checkpoint).
struct Evolution::State {
  State(const Problem& p, const EvolutionOptions& o)
      : rng(o.seed), db(o.database), eval(p, o.cascade), search_penalty(o.rule_penalty) {
    for (auto r : p.train_rows)
      train_shapes.push_back(p.shape(r));
  }
  Rng rng;
  ProgramDatabase db;
  CascadeEvaluator eval;
  /// The kernel-run cap in pairs (0 = none), worked out once: counting the configs of a
  /// measured problem's space is not free, and the loop asks before every program.
  long long kernel_cap = -1;
  Lineage lineage;
  Counters counters;
  std::map<std::string, Counters> per_op; ///< the mutator's operators and the seeds
  /// The kernel-run cap and what each pass after the search timed (its total is
  /// counters.kernel_runs).
  KernelLedger ledger{counters.kernel_runs, 0};
  /// True once the search stopped (stop_reason says why): a resumed run goes on with the passes.
  bool search_done = false;
  /// The reports of the passes that ran, and the program they handed on (checkpointed: a
  /// resumed run does not run them again).
  std::vector<PassReport> pass_reports;
  std::optional<ReturnedProgram> returned;
  std::vector<Improvement> improvements;
  Candidate best; ///< the accepted best (beyond the noise threshold, re-measured if asked)
  double search_penalty = 0;          ///< the charge per rule the search ranks by
  std::set<std::uint64_t> seen;       ///< structural hashes of programs already evaluated
  std::set<std::uint64_t> behaviours; ///< decisions on the training shapes already evaluated
  std::vector<double> best_times;     ///< best time seen per training shape
  std::vector<Config> best_configs;   ///< the config that ran in best_times, per training shape
  std::vector<Shape> train_shapes;
  std::vector<double> expert_times; ///< the expert's time per training shape
  AttemptHistory history;           ///< each parent's last children and their outcomes
  std::string best_diff;            ///< the edit that produced the best, as SEARCH/REPLACE
  /// Printed programs of candidates, by id (a parent is sampled many times; printing it once
  /// is enough). Derived data: not in checkpoints.
  std::unordered_map<std::uint64_t, std::string> texts;
  /// print_program(c.program), printed once per candidate id.
  const std::string& text_of(const Candidate& c) {
    auto [it, fresh] = texts.try_emplace(c.id);
    if (fresh) it->second = print_program(c.program);
    return it->second;
  }
  /// What a candidate chooses on each training shape and the time the run has for each choice
  /// (+inf while unmeasured). Derived data: not in checkpoints.
  struct Choices {
    std::vector<Config> configs;
    std::vector<double> seconds;
    bool complete = false; ///< every time finite: measurements never change, so kept as they are
  };
  std::unordered_map<std::uint64_t, Choices> choices; ///< by candidate id
  /// c.program's choices on the training shapes (table rows `rows`, in train_shapes' order),
  /// worked out once per candidate id; their times looked up again until all are measured.
  const Choices& choices_of(const Candidate& c, const std::vector<std::size_t>& rows) {
    auto [it, fresh] = choices.try_emplace(c.id);
    Choices& ch = it->second;
    if (fresh) {
      ch.configs.reserve(train_shapes.size());
      for (const Shape& sh : train_shapes)
        ch.configs.push_back(c.program.choose(sh));
    }
    if (!ch.complete) {
      ch.seconds.clear();
      ch.complete = true;
      for (std::size_t i = 0; i < rows.size(); ++i) {
        ch.seconds.push_back(eval.cached_time(rows[i], ch.configs[i]));
        ch.complete = ch.complete && std::isfinite(ch.seconds.back());
      }
    }
    return ch;
  }
  std::uint64_t next_id = 1;
  long long done = 0; ///< programs proposed (the seed is not counted)
  long long since_best = 0;
  bool seeded = false;
  std::string best_reply, best_op = "seed";
  std::unique_ptr<RunLock> lock; ///< held while the run uses its directory
  std::unique_ptr<EventLog> events;
  std::unique_ptr<ViewerData> viewer; ///< what the dashboard reads (run directory only)
  long long last_checkpoint = 0;      ///< `done` at the last checkpoint
  double last_checkpoint_seconds = 0; ///< seconds() at the last checkpoint
  std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
  double seconds_before = 0;
  std::string stop_reason;
  bool resumed = false;

  double seconds() const {
    return seconds_before +
           std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
};

} // namespace tv
