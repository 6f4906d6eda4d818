#pragma once
/// The evolution loop (ask/tell): sample a parent and inspirations from the database, ask the
/// mutator for a SEARCH/REPLACE reply, build the child with the IR's diff engine, run the
/// cascade, tell the database. Same seed, same run, bit for bit.
///
/// Map: Evolution owns the run state (database, Rng, counters, cache via the evaluator) and,
/// when given a directory, writes config.json, events.ndjson, checkpoint.json (atomic) and
/// at the end best.py, best_simplified.py, exports/ (run_exports.hpp), lineage.graphml/.dot
/// and summary.json; the viewer files (per_shape.json, new_best details) come from
/// viewer_data.hpp. Sources: the loop in evolution.cpp, the options in evolution_options.cpp,
/// the checkpoints in evolution_checkpoint.cpp, the shared run state in evolution_detail.hpp.
#include "eval/cascade.hpp"
#include "eval/counters.hpp"
#include "eval/problem.hpp"
#include "evolve/database.hpp"
#include "evolve/evolution_options.hpp"
#include "evolve/lineage.hpp"
#include "evolve/mutator.hpp"
#include "evolve/passes/pass.hpp"
#include "evolve/refit.hpp"

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace tv {

/// When the best score improved.
struct Improvement {
  long long program = 0; ///< 1-based count of proposed programs at that moment
  std::uint64_t id = 0;
  double score = 0; ///< train speedup over the expert
  std::string op;
};

/// True when `op`, a key of EvolutionResult::per_operator, is how the run started (the expert,
/// the analytic seed, the vendor library) rather than an edit of the mutator.
bool is_run_step(const std::string& op);

/// Progress, reported after each batch.
struct Progress {
  long long done = 0, budget = 0;
  double best_score = 0, best_fraction = 0; ///< train speedup and fraction of the oracle
  long long kernel_runs = 0;
  double seconds = 0; ///< wall time so far
};

/// What a finished (or stopped) run produced.
struct EvolutionResult {
  Candidate best;
  SetScore best_train, best_test; ///< figures of the best program on both halves
  Program best_simplified;
  std::string best_reply; ///< the mutator reply that produced the best (empty = seed)
  std::string best_diff;  ///< its SEARCH/REPLACE blocks, re-formatted
  std::string best_op;
  Counters counters;
  std::map<std::string, Counters> per_operator;
  std::vector<Improvement> improvements;
  long long programs = 0;
  long long exhaustive_train_runs = 0;
  std::string stop_reason;
  double seconds = 0;
  bool resumed = false;
  nlohmann::json mutator_stats; ///< the mutator's cost statistics (null for the mock)
  /// The program the search ranked best (before the passes); `best` is the run's result.
  Candidate best_searched;
  /// "front": the result is the searched best (passes may have changed its thresholds, leaves
  /// and guards); "sampled sizes": another program of the database; "tree N": a decision tree
  /// of N leaves refitted on the run's measurements (refit validation).
  std::string selected_from = "front";
  /// What each pass of the pipeline did, in the order they ran (skipped ones included).
  std::vector<PassReport> passes;
  /// The report of the pass `name`, or nullptr when the pipeline has none of that name.
  const PassReport* pass(std::string_view name) const;
  /// The decision-tree baseline fitted on the pairs this run timed, no others (the tree a
  /// user with the same kernel runs would get), with the problem's leaf limit.
  Program cost_matched_tree;
  /// How the device's analytic model orders the pairs the run timed on each training shape, at
  /// the end (no pairs on the analytic backend), and whether the run's refits could lean on it
  /// (EvolutionOptions::model_prior; each refit judges the agreement on the shapes it fits,
  /// refit.hpp).
  ModelAgreement model_agreement;
  bool model_prior = false;
};

/// The version of config.json a run writes (Evolution::run_config).
inline constexpr int kRunConfigVersion = 2;
/// A run's config.json as an earlier version wrote it, in the current version's form (the
/// options read as EvolutionOptions::from_json reads them); other content unchanged. Throws
/// InputError for options that cannot be read.
nlohmann::json migrate_run_config(nlohmann::json config);

/// A run stopped between two batches because Evolution::on_stop_request asked it to (the CLI:
/// SIGINT or SIGTERM). With a run directory its checkpoint was written there first, so resume
/// continues it as if it had not stopped. Not bad input: the CLI reports it apart.
struct InterruptedError : std::runtime_error {
  InterruptedError(long long programs_done, double best)
      : std::runtime_error("the run was interrupted"), programs(programs_done), best_score(best) {}
  long long programs = 0; ///< programs proposed before the stop
  double best_score = 0;  ///< the best program's selection score so far
};

/// One run.
class Evolution {
public:
  /// `dir` empty: nothing is written. Otherwise the run directory is created (an existing
  /// run there is refused: use resume).
  Evolution(const Problem& problem, Mutator& mutator, EvolutionOptions options,
            std::string dir = "");
  ~Evolution();
  /// Runs to a stop condition from the start.
  EvolutionResult run();
  /// Continues the run in `dir` from its checkpoint (the Evolution must have been built
  /// with the options and problem in dir/config.json); throws InputError for a corrupt,
  /// truncated or mismatched checkpoint.
  EvolutionResult resume();
  /// The (shape, config) pairs the run timed, in CascadeEvaluator::cache_to_json form.
  nlohmann::json timed_pairs() const;
  /// A decision tree of at most `leaves` leaves fitted on the pairs the run timed so far, no
  /// others (a pair it did not time counts as 1.25 x the shape's fastest timed one), grown with
  /// `lookahead` (TreeOptions::lookahead; 0 greedy).
  Program measured_tree(int leaves, int lookahead = 0) const;
  /// Pairs another run already timed on this problem's table (CascadeEvaluator::cache_to_json
  /// form), known to this run from its start: reading them is a cache hit, not a kernel run
  /// (their cost is counted where they were timed). Call before run().
  void know_pairs(nlohmann::json pairs) { known_pairs_ = std::move(pairs); }
  /// Called after every batch (e.g. for a progress line).
  void on_progress(std::function<void(const Progress&)> f) { progress_ = std::move(f); }
  /// Asked before every batch of the search; true stops the run there: the checkpoint is
  /// written (with a run directory) and InterruptedError thrown. Not asked in the steps after
  /// the search.
  void on_stop_request(std::function<bool()> f) { stop_request_ = std::move(f); }
  /// The run's config.json content for `problem` and `options` (the backend's defaults
  /// resolved, as the run writes them).
  static nlohmann::json run_config(const Problem& problem, const Mutator& mutator,
                                   const EvolutionOptions& options);

private:
  struct State;
  /// What the database ranks: the train speedup less the rule penalty.
  double selection_score(double speedup, const Program& p) const;
  /// The kernel-run cap in pairs (0: none), resolved on first use.
  long long kernel_cap() const;
  /// True when the cap is reached or a program did not fit in what was left of it.
  bool kernel_runs_spent() const;
  /// Kernel runs left under the cap (-1: no cap).
  long long kernel_runs_left() const;
  struct Child;
  /// The passes after the search (evolve/passes/pipeline.hpp) on the searched best, after those
  /// a checkpoint records as done; sets r's program, its origin and r.passes.
  void run_passes(EvolutionResult& r);
  EvolutionResult loop();
  MutationRequest make_request(const ParentSample& sample);
  /// One child from the mutator's reply to the database: draft, trial, accept, record
  /// (evolution_settle.cpp).
  Child settle(const ParentSample& sample, const std::string& parent_text,
               const MutationReply& reply, const std::string* merged_text,
               const std::vector<std::uint64_t>& merged_from);
  struct Trial;
  /// The child the reply (or a merge's text) makes of the parent, or the stage that stopped it.
  Trial draft(const MutationReply& reply, const std::string& parent_text,
              const std::string* merged_text) const;
  /// A repeat is a no-op; any other child goes through the cascade, and a would-be new best is
  /// re-measured.
  void trial(Trial& t, const Candidate& parent);
  /// A fully timed child joins the database (the new best when it beats it).
  void accept(Trial& t, Child& out, const ParentSample& sample, const std::string& parent_text,
              const MutationReply& reply, const std::string& op);
  /// Counters, attempt history, lineage and events of a settled child.
  void record(const Trial& t, const Child& out, const ParentSample& sample,
              const MutationReply& reply, const std::string& op,
              const std::vector<std::uint64_t>& merged_from);
  void seed_run();
  /// seed_run's second start on recorded timings under a cap (EvolutionOptions::analytic_seed):
  /// the analytic model's tree, raced against the expert; it joins the database when timed in
  /// full. Its kernel runs count under per_operator "analytic seed".
  void seed_analytic();
  /// seed_run's start with vendor dispatch: the vendor library on every training shape, timed in
  /// full (one kernel run per shape, under per_operator "vendor seed"); it joins the database,
  /// and is the run's best when it beats the expert.
  void seed_vendor();
  /// Times `program` as a start of kind `kind` ("analytic", "vendor"; raced against the expert
  /// with `race`) and, timed in full, adds it to every island of the database.
  void seed_start(const Program& program, const std::string& kind, bool race);
  void step_batch(long long count);
  void write_checkpoint();
  void load_checkpoint();
  void write_backend_events();
  /// loop(), writing the backend's events (the last device's retirement) before a
  /// GaveOutError or an InterruptedError leaves it.
  EvolutionResult guarded_loop();
  EvolutionResult finish();

  const Problem* problem_;
  Mutator* mutator_;
  EvolutionOptions options_;
  std::string dir_;
  std::unique_ptr<State> s_;
  nlohmann::json known_pairs_; ///< know_pairs(); null: none
  std::function<void(const Progress&)> progress_;
  std::function<bool()> stop_request_;
};

} // namespace tv
