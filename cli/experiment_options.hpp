#pragma once
/// What the experiment subcommands (lecture, ablate, splits) share: the thread count of their
/// independent runs and the report directory; and the stopping and selection options that
/// evolve and splits both take.
#include "evolve/evolution_options.hpp"
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
/// --race-batch N: stage 2 racing's batch of new pairs (0 = off).
void add_race_batch_option(CLI::App& cmd, int& race_batch);
/// Adds the options of the passes after the search to `o`: --skip-pass NAME (repeatable; the
/// help lists every pass), --sampled-sizes and the switches within passes.
void add_result_options(CLI::App& cmd, EvolutionOptions& o);

} // namespace tv
