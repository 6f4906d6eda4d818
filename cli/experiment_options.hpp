#pragma once
/// What the experiment subcommands (lecture, ablate, splits) share: the thread count of their
/// independent runs and the report directory; and the stopping and selection options that
/// evolve and splits both take.
#include "evolve/kernel_run_budget.hpp"

#include <CLI/CLI.hpp>

#include <string>

namespace tv {

/// Adds --threads (threads for `what`; results do not depend on it).
void add_threads_option(CLI::App& cmd, int& threads,
                        const std::string& what = "the independent runs");
/// Throws InputError when `out` names something that exists and is not a directory (checked
/// before any run, so a bad --out costs nothing).
void check_report_dir(const std::string& out);
/// Adds --stagnation (stop a run after this many programs without a new best; 0 = never; not
/// given: the backend's default).
void add_stagnation_option(CLI::App& cmd, long long& stagnation);
/// Adds --max-kernel-runs N|P%|none (stop a run once it timed N pairs or P% of exhaustive tuning
/// of the training shapes; checked before each program is evaluated; not given: the backend's
/// default).
void add_kernel_run_budget_option(CLI::App& cmd, KernelRunBudget& budget);
/// Adds --rule-penalty (the fraction of the train speedup selection charges per rule; -1, the
/// default, means 0 on the analytic model and 0.01 on recorded or measured timings).
void add_rule_penalty_option(CLI::App& cmd, double& rule_penalty);
/// --sampled-sizes N: sizes drawn to choose among the programs that fit alike
/// (EvolutionOptions::sampled_sizes; -1, the default, means 64 on the analytic model, 0 elsewhere).
void add_sampled_sizes_option(CLI::App& cmd, int& sampled_sizes);
/// --race-batch N: stage 2 racing's batch of new pairs (0 = off).
void add_race_batch_option(CLI::App& cmd, int& race_batch);
/// The switches of the steps that decide the program a run returns, each named where it is
/// bound (a field of EvolutionOptions and of SplitStudyOptions of the same name).
struct ResultSwitches {
  bool& place_thresholds; ///< --searched-thresholds turns threshold placement off
  bool& refit_validation; ///< --no-refit-validation
  bool& wave_guards;      ///< --no-wave-guards
  bool& guard_validation; ///< --no-guard-validation
  bool& guard_returns;    ///< --no-guard-returns
  bool& wave_floors;      ///< --no-wave-floors
  bool& polish;           ///< --no-polish
  bool& explore;          ///< --no-explore
  bool& analytic_seed;    ///< --no-analytic-seed
  bool& optimism_charge;  ///< --no-optimism-charge
  bool& refit_lookahead;  ///< --no-refit-lookahead
  bool& refit_complexity; ///< --no-refit-complexity
  bool& refit_extremes;   ///< --no-refit-extremes
  bool& model_prior;      ///< --no-model-prior
};
/// Adds the flags of `s`, each turning its step off.
void add_result_options(CLI::App& cmd, const ResultSwitches& s);
/// The same flags on `o`, an EvolutionOptions or a SplitStudyOptions (fields of those names),
/// and --sampled-sizes.
template <class Options> void add_result_options(CLI::App& cmd, Options& o) {
  add_result_options(cmd, ResultSwitches{.place_thresholds = o.place_thresholds,
                                         .refit_validation = o.refit_validation,
                                         .wave_guards = o.wave_guards,
                                         .guard_validation = o.guard_validation,
                                         .guard_returns = o.guard_returns,
                                         .wave_floors = o.wave_floors,
                                         .polish = o.polish,
                                         .explore = o.explore,
                                         .analytic_seed = o.analytic_seed,
                                         .optimism_charge = o.optimism_charge,
                                         .refit_lookahead = o.refit_lookahead,
                                         .refit_complexity = o.refit_complexity,
                                         .refit_extremes = o.refit_extremes,
                                         .model_prior = o.model_prior});
  add_sampled_sizes_option(cmd, o.sampled_sizes);
}
/// --folds K: model selection's cross-validation folds (0 = off).
void add_folds_option(CLI::App& cmd, int& folds);

} // namespace tv
