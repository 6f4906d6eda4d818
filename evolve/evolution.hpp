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
#include "evolve/complexity_front.hpp"
#include "evolve/database.hpp"
#include "evolve/guard_validation.hpp"
#include "evolve/kernel_run_budget.hpp"
#include "evolve/lineage.hpp"
#include "evolve/model_selection.hpp"
#include "evolve/mutator.hpp"
#include "evolve/refit.hpp"
#include "evolve/refit_validation.hpp"
#include "evolve/sampled_sizes.hpp"

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

/// The rule penalty on recorded or measured timings (see EvolutionOptions::rule_penalty).
inline constexpr double kNoisyRulePenalty = 0.01;
/// Where kernel runs cost something (recorded or measured timings), a run stops by default
/// after this many programs without a new best ...
inline constexpr long long kCostlyStagnation = 200;
/// ... and times at most this share of exhaustive tuning of its training shapes (a program that
/// does not fit in what is left is not timed, so the share is never passed).
inline constexpr double kCostlyKernelShare = 0.30;

/// Leaf polish (leaf_polish.hpp) times at most this share of the kernel runs the search spent
/// (a 50,000-shape run would otherwise time a quarter million more pairs: bench_large_problem).
inline constexpr double kPolishShare = 0.5;
/// A capped run races children (CascadeOptions::race_batch) once it has spent this share of
/// its kernel-run cap.
inline constexpr double kRaceFromCapShare = 0.5;
/// Before that, a capped run races a child whose new training pairs would take at least this
/// share of what is left of the cap (a child that small a share cannot cost is timed in full,
/// so where the cap is far from binding nothing changes).
inline constexpr double kRaceCostlyChildShare = 0.04;

/// True when `op`, a key of EvolutionResult::per_operator, is a step of the run rather than an
/// edit of the mutator (seeding, model selection, race completion, exploration, polish, guard
/// validation, sampled sizes).
bool is_run_step(const std::string& op);

/// Folds of refit validation (EvolutionOptions::refit_validation).
inline constexpr int kRefitFolds = 5;
/// The splits per node a refit's two-step lookahead weighs (EvolutionOptions::refit_lookahead).
inline constexpr int kRefitLookahead = 10;
/// Refit validation tries trees of up to this many times the baseline tree's leaf limit
/// (ProblemSpec::tree_leaves, at most kMaxTreeLeaves): the held-out figures choose the size.
inline constexpr int kRefitLeafFactor = 2;

/// Knobs of one run; all have defaults.
struct EvolutionOptions {
  std::uint64_t seed = 0;
  long long budget = 1000; ///< programs to propose (stop when reached)
  /// Stop after this many programs without a new best (0 = off). Negative: the backend's
  /// default, 0 on the analytic model and kCostlyStagnation otherwise.
  long long stagnation = -1;
  double target_score = 0; ///< stop when the best train speedup reaches this (0 = off)
  double max_seconds = 0;  ///< stop after this wall time (0 = off; makes runs irreproducible)
  /// At most this many pairs are timed (the expert's, timed first, excepted). The first
  /// program whose new pairs (and the re-measurement of a would-be new best) do not fit in
  /// what is left is not timed (stage over_budget) and the run stops there; the rest of its
  /// batch is not evaluated. Not given (backend_default): no cap on the analytic model,
  /// kCostlyKernelShare otherwise.
  KernelRunBudget kernel_runs = KernelRunBudget::from_backend();
  int batch = 8; ///< programs proposed between database updates
  /// Proposals per parent in one step (K). With K > 1 the K children are evaluated together
  /// and, when two or more beat the parent, their edits are merged into one more program
  /// ("merge"); a batch then holds max(1, batch / (K + 1)) parents.
  int candidates = 1;
  /// A run directory's checkpoints (checkpoint_policy.hpp): every this many programs (0 =
  /// not by count) or every this many wall seconds (0 = not by time), whichever comes first.
  long long checkpoint_every = 100;
  double checkpoint_seconds = 0;
  /// Drop rules of a child that decide no training shape before evaluating it (and, when the
  /// default decides none, let the last rule's config become the default): such a config was
  /// never timed, so it would only be an untested guess on unseen shapes.
  bool drop_unexercised = true;
  /// A child counts as better than its parent, and as a new best, only when its train speedup
  /// beats the other's by more than this fraction (the run-to-run noise of a measuring
  /// backend; 0 = any gain counts).
  double noise_threshold = 0;
  /// The search charges each rule this fraction of a program's train speedup (the database
  /// ranks speedup x (1 - rule_penalty)^rules). Reports show the plain speedup. Negative: 0
  /// with model selection (folds > 0), where cross-validation decides how complex the result
  /// may be; without it 0 on the analytic model and kNoisyRulePenalty otherwise.
  double rule_penalty = -1;
  /// Model selection (model_selection.hpp), off by default: cross-validation over this many
  /// folds of the training shapes chooses how the result is picked (the run's complexity front
  /// under a charge per comparison, thresholds placed between training values, or a tree
  /// refitted on the run's measurements). 0: the result is the best training score. Measured
  /// (README, "Model selection"): it has not beaten the default on the public protocols yet.
  int folds = 0;
  /// The result's thresholds are moved between the training values they separate, near the
  /// middle of the gap in log space (ir/threshold_placement.hpp): the same decision on every
  /// training shape, and unseen shapes in a gap go by its middle rather than by whichever edge
  /// the search left the cut on. Off: the searched program is returned as it is.
  bool place_thresholds = true;
  /// Each rule of the result is kept to the waves of its own tile that its training shapes fill
  /// (ir/wave_guards.hpp): the same decision on every training shape, and an unseen shape whose
  /// grid would spill into one more wave falls through to the later rules. Off: no comparison is
  /// added.
  bool wave_guards = true;
  /// With wave guards, return rules (ir/wave_guards.hpp): a shape one tile row high that a guard
  /// sends on to a later rule or the default whose tile is the rule's made taller (the same
  /// tiles, each padding more rows) gets the guarded rule's config back. Off: the guards alone.
  bool guard_returns = true;
  /// With wave guards, wave floors (ir/wave_guards.hpp): a rule each of whose training shapes
  /// fills at least two waves of its own tile gets `tiles >= units`, so an unseen shape that would
  /// leave units idle falls through to the later rules. Off: upper bounds only.
  bool wave_floors = true;
  /// Guard validation (evolve/guard_validation.hpp) before the wave guards are added: guards
  /// placed on folds of the training shapes divert some held-out ones to a later rule, and a
  /// rule whose diversions the run measured as slower in sum gets no guard. The diverted pairs
  /// the run lacks are timed (within the cap). Off: every rule gets its guard.
  bool guard_validation = true;
  /// Sampled sizes (evolve/sampled_sizes.hpp), first of the steps after the search: this many
  /// sizes are drawn inside the training shapes' range and timed, and among the programs of the
  /// database whose training figure is within kSampledTieShare of the best, the one fastest on
  /// them becomes the searched best. -1: the backend's default (kDefaultSampledSizes where it
  /// can time any shape, the analytic model; 0 elsewhere). 0: off. Not with folds > 0.
  int sampled_sizes = -1;
  /// Leaf polish (evolve/leaf_polish.hpp) of the searched program before refit validation: each
  /// leaf config replaced by a one-field neighbour that is faster on the leaf's training shapes,
  /// within kPolishShare of the search's kernel runs and the cap. Off: the configs as searched.
  /// Not with model selection (folds > 0).
  bool polish = true;
  /// Leaf exploration (evolve/leaf_explore.hpp): what the search left of the kernel-run cap
  /// (without a cap, uncapped_explore_limit: 1% of exhaustive tuning of the training shapes,
  /// never past 4% for the run) is spent timing, on each leaf of trees refitted on the run's
  /// measurements, the leaf's config, the configs its shapes' measurements rank fastest and
  /// those the analytic model ranks first, before polish and refit validation. Off: the run's
  /// measurements are the search's. Not with model selection (folds > 0).
  bool explore = true;
  /// The analytic seed (evolve/analytic_seed.hpp): where the timings come from a complete table
  /// (not the analytic model itself) and the run has a kernel-run cap, the decision tree the
  /// analytic model fits on the training shapes joins the expert as a starting program, raced
  /// against the expert. Off: the expert alone.
  bool analytic_seed = true;
  /// Refit validation (evolve/refit_validation.hpp): decision trees refitted on the run's own
  /// measurements are cross-validated over folds of the training shapes, and the best one
  /// becomes the result when its held-out gain over the searched program's training figure
  /// (charged with optimism_charge) is positive. No kernel runs: only pairs the run timed are
  /// read. Not with folds > 0 (model selection decides there).
  bool refit_validation = true;
  /// Refit validation charges the searched program's training figure with the optimism of a
  /// refitted tree of as many leaves (RefitValidation::optimism) before comparing: a program
  /// ranked on noisy timings fits their noise at least as a tree does. Off on the analytic
  /// model (with_backend_defaults): its timings have no noise, and its searched programs carry
  /// over better than its trees (README, "Refit validation, third form").
  bool optimism_charge = true;
  /// Refit validation also cross-validates trees grown with a two-step lookahead
  /// (TreeOptions::lookahead, the kRefitLookahead best splits of each node) on the same folds,
  /// and refits with the growth whose best held-out estimate is higher (greedy on ties).
  bool refit_lookahead = true;
  /// Refit validation chooses the tree's size by cost-complexity (validate_refit's
  /// `complexity`: a charge per leaf chosen on the folds, then the tree that charge picks from
  /// the fit on every training shape) instead of a leaf count chosen on the folds.
  bool refit_complexity = true;
  /// With refit_complexity: of the charges whose held-out figure is within one standard error of
  /// the best, the one whose trees do best on folds at the extremes of M, N and K
  /// (validate_refit's `extremes`; README, "Refit validation, sixth form").
  bool refit_extremes = true;
  /// Every refit of the run's measurements (the mock's refit operator, leaf exploration, refit
  /// validation, the cost-matched tree) may lean on the device's analytic model: where the
  /// model orders the fitted shapes' timed pairs as the measurements do (Kendall's tau at least
  /// kModelPriorTau), each leaf counts one pseudo-shape of the model's log slowdowns, so a leaf
  /// of few shapes whose measured configs nearly tie takes the model's favourite (refit.hpp).
  /// No kernel runs. Off: the measurements alone. Off on the analytic model
  /// (with_backend_defaults): its times are the timings there, so the prior would price the
  /// pairs a run never timed at their true cost, for free.
  bool model_prior = true;
  /// A would-be new best is re-measured this many more times before it is accepted; its
  /// score becomes that of the median times (0 = accept on the first measurement).
  int confirm_samples = 0;
  DatabaseOptions database;
  CascadeOptions cascade;

  /// All options as JSON (for config.json and fingerprints).
  nlohmann::json to_json() const;
  /// Reads options written by to_json; throws InputError on bad fields.
  static EvolutionOptions from_json(const nlohmann::json& j);
};

/// `o` with every "the backend's default" resolved for `problem`: the rule penalty, the
/// stagnation stop, the kernel-run cap and the sampled sizes (throws InputError for sampled
/// sizes on a backend that times only its table's shapes). On the analytic model a kernel run costs
/// nothing, so there is no stop but the budget; on recorded or measured timings a run stops at
/// kCostlyStagnation programs without a new best or at kCostlyKernelShare of exhaustive tuning.
EvolutionOptions with_backend_defaults(EvolutionOptions o, const Problem& problem);

/// When the best score improved.
struct Improvement {
  long long program = 0; ///< 1-based count of proposed programs at that moment
  std::uint64_t id = 0;
  double score = 0; ///< train speedup over the expert
  std::string op;
};

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
  /// The best program per rule count the run evaluated (training speedups).
  ComplexityFront front;
  /// What cross-validation chose (folds = 0 when it did not run).
  ModelSelection selection;
  /// The program the search ranked best (before model selection and threshold placement);
  /// `best` is the run's result.
  Candidate best_searched;
  /// The thresholds moved between training values, one line each.
  std::vector<std::string> placement;
  /// The wave guards added to the result's rules, one line each.
  std::vector<std::string> wave_guards;
  /// What guard validation found (empty when it did not run) and the kernel runs it took.
  std::string guard_validation;
  long long guard_validation_kernel_runs = 0;
  /// What the comparison on sampled sizes found (sizes = 0 and no figures when it did not run),
  /// and the database ids of the programs it compared (the searched best first).
  SampledChoice sampled;
  std::vector<std::uint64_t> sampled_ids;
  /// The leaf configs polish replaced in the result (leaf_polish.hpp), one line each (none when
  /// refit validation returned a tree instead), and the kernel runs polish took.
  std::vector<std::string> polish;
  long long polish_kernel_runs = 0;
  /// What leaf exploration did (empty when it did not run) and the kernel runs it took.
  std::string exploration;
  long long exploration_kernel_runs = 0;
  /// Children racing stopped that were timed in full at the end (under a kernel-run cap), and
  /// the kernel runs that took (in per_operator as "race completion").
  long long raced_completed = 0, raced_completion_kernel_runs = 0;
  /// The decision-tree baseline fitted on the pairs this run timed, no others (the tree a
  /// user with the same kernel runs would get), with the problem's leaf limit.
  Program cost_matched_tree;
  /// "front": the result is the front's choice (the searched best without folds); "tree N":
  /// cross-validation (folds or refit validation) preferred a tree of N leaves refitted on the
  /// run's measurements (measured_tree).
  std::string selected_from = "front";
  /// Refit validation's figures (folds = 0 when it did not run) and its verdict.
  RefitValidation refit;
  RefitVerdict refit_verdict;
  /// How the device's analytic model orders the pairs the run timed on each training shape, at
  /// the end (no pairs on the analytic backend), and whether the run's refits could lean on it
  /// (EvolutionOptions::model_prior; each refit judges the agreement on the shapes it fits,
  /// refit.hpp).
  ModelAgreement model_agreement;
  bool model_prior = false;
};

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
  /// Refit validation: makes the best cross-validated tree on the run's measurements the
  /// result `r` when it beats the searched program (see EvolutionOptions::refit_validation).
  void validate_refit_result(EvolutionResult& r) const;
  /// Under a kernel-run cap, times the children racing stopped in full, in order, while their
  /// pairs fit: the pairs a refit sees are then never fewer than without racing.
  void complete_raced(EvolutionResult& r);
  /// Sampled sizes (sampled_sizes.hpp): among the programs that fit the training shapes alike,
  /// makes the one fastest on sizes drawn inside their range the result's program.
  void choose_on_sampled_sizes_result(EvolutionResult& r);
  /// Polishes the result's leaf configs (leaf_polish.hpp) within the kernel-run cap.
  void polish_result(EvolutionResult& r);
  /// Guard validation (guard_validation.hpp) of the result's unguarded program: times the
  /// diverted pairs the run lacks (within the cap) and returns which rules may get a ceiling and
  /// which a floor.
  GuardValidation validate_guards_result(EvolutionResult& r);
  /// Spends what is left of the kernel-run cap (without one, uncapped_explore_limit) on leaf
  /// exploration (leaf_explore.hpp) of trees refitted on the run's measurements, before polish
  /// and refit validation.
  void explore_result(EvolutionResult& r);
  /// Runs cross-validation (model_selection.hpp) and hands what it timed to the run.
  void select_model();
  EvolutionResult loop();
  MutationRequest make_request(const ParentSample& sample);
  Child settle(const ParentSample& sample, const std::string& parent_text,
               const MutationReply& reply, const std::string* merged_text,
               const std::vector<std::uint64_t>& merged_from);
  void seed_run();
  /// seed_run's second start on recorded timings under a cap (EvolutionOptions::analytic_seed):
  /// the analytic model's tree, raced against the expert; it joins the database when timed in
  /// full. Its kernel runs count under per_operator "analytic seed".
  void seed_analytic();
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
