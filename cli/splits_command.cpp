#include "cli/splits_command.hpp"

#include "cli/experiment_options.hpp"
#include "cli/number_checks.hpp"
#include "cli/problem_options.hpp"
#include "evolve/mock_llm.hpp"
#include "experiments/split_study.hpp"

#include <cmath>
#include <fmt/format.h>
#include <memory>
#include <nlohmann/json.hpp>

namespace tv {

namespace {

struct SplitsCommandOptions {
  SplitStudyOptions study;
  std::string split_features = "M";
  std::string out;
  bool json = false;
};

nlohmann::json to_json(const SplitStudyResult& r) {
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& row : r.rows) {
    nlohmann::json tests = nlohmann::json::array(), trains = nlohmann::json::array(),
                   taus = nlohmann::json::array();
    for (const auto& run : row.evolved.runs) {
      tests.push_back(run.best_test.fraction_of_oracle);
      trains.push_back(run.best_train.fraction_of_oracle);
      taus.push_back(run.model_agreement.tau());
    }
    nlohmann::json vendor;
    if (row.vendor_test)
      vendor = {{"test_fraction_of_oracle", row.vendor_test->fraction_of_oracle},
                {"train_fraction_of_oracle", row.vendor_train->fraction_of_oracle}};
    rows.push_back({{"split_seed", row.split_seed},
                    {"vendor_library", vendor},
                    {"per_m_table",
                     {{"train_fraction_of_oracle", row.per_m_train.fraction_of_oracle},
                      {"test_fraction_of_oracle", row.per_m_test.fraction_of_oracle}}},
                    {"evolved",
                     {{"train_fraction_of_oracle", trains},
                      {"test_fraction_of_oracle", tests},
                      {"train_median", row.evolved.train_fraction.median},
                      {"test_median", row.evolved.test_fraction.median}}},
                    {"best_single_config",
                     {{"test_fraction_of_oracle", row.best_single_test.fraction_of_oracle}}},
                    {"decision_tree",
                     {{"train_fraction_of_oracle", row.tree_train.fraction_of_oracle},
                      {"test_fraction_of_oracle", row.tree_test.fraction_of_oracle}}},
                    {"test_gap", row.gap},
                    {"test_gap_to_tree", row.tree_gap},
                    {"cost_matched_tree", {{"test_median", row.cost_tree_test}}},
                    {"test_gap_to_cost_matched_tree", row.cost_tree_gap},
                    {"model_tau", taus},
                    {"max_kernel_run_fraction", row.max_kernel_fraction}});
  }
  const EvolutionOptions& run = r.options.run;
  nlohmann::json one_shape = nlohmann::json::array();
  for (const auto& [shape, runs] : r.one_shape_losses)
    one_shape.push_back({{"shape", shape}, {"runs", runs}});
  return {
      {"command", "splits"},
      {"gpu", r.gpu},
      {"shapes", r.options.problem.shapes},
      {"split", r.options.problem.split},
      {"backend", r.options.problem.backend},
      {"budget", run.budget},
      {"stagnation", run.stagnation},
      {"max_kernel_runs",
       run.kernel_runs.any() ? nlohmann::json(run.kernel_runs.text()) : nlohmann::json()},
      {"rule_penalty", run.rule_penalty >= 0 ? nlohmann::json(run.rule_penalty) : nlohmann::json()},
      {"seeds", r.options.seeds},
      {"first_split", r.options.first_split},
      {"mutator", MockLlm::name_for(r.options.mutator)},
      {"splits", rows},
      {"mean_test_gap", r.mean_gap},
      {"mean_test_gap_standard_error",
       std::isfinite(r.mean_gap_se) ? nlohmann::json(r.mean_gap_se) : nlohmann::json()},
      {"splits_at_least_per_m", r.splits_at_least},
      {"run_test_gap_sd", r.run_gap_sd},
      {"mean_train_gap", r.mean_train_gap},
      {"mean_test_gap_to_tree", r.mean_tree_gap},
      {"mean_test_gap_to_tree_standard_error",
       std::isfinite(r.mean_tree_gap_se) ? nlohmann::json(r.mean_tree_gap_se) : nlohmann::json()},
      {"splits_at_least_tree", r.splits_at_least_tree},
      {"runs", r.runs},
      {"runs_below_tree_by_1pt", r.runs_below_tree_by_1pt},
      {"worst_run_gap_to_tree", r.worst_run_tree_gap},
      {"runs_below_tree", r.runs_below_tree},
      {"runs_below_tree_by_one_shape", r.runs_below_tree_by_one_shape},
      {"skip_passes", run.skip_passes},
      {"guard_returns", run.guard_returns},
      {"wave_floors", run.wave_floors},
      {"analytic_seed", run.analytic_seed},
      {"optimism_charge", run.optimism_charge},
      {"refit_lookahead", run.refit_lookahead},
      {"refit_complexity", run.refit_complexity},
      {"refit_extremes", run.refit_extremes},
      {"model_prior", run.model_prior},
      {"sampled_sizes", run.sampled_sizes},
      {"race_batch", run.cascade.race_batch},
      {"mean_test_gap_to_cost_matched_tree", r.mean_cost_tree_gap},
      {"splits_at_least_cost_matched_tree", r.splits_at_least_cost_tree},
      {"splits_at_least_best_single_config", r.splits_at_least_best_single},
      {"tree_splits_at_least_best_single_config", r.tree_splits_at_least_best_single},
      {"max_kernel_run_fraction", r.max_kernel_fraction},
      {"one_shape_losses", one_shape}};
}

void run_splits_command(const SplitsCommandOptions& o) {
  check_report_dir(o.out);
  SplitStudyOptions study = o.study;
  study.mutator.split_features = parse_split_features(o.split_features);
  const SplitStudyResult r = run_split_study(study);
  if (o.json)
    fmt::print("{}\n", to_json(r).dump(2));
  else
    fmt::print("{}", r.report.text());
  if (!o.out.empty()) {
    // study.json beside the report: the figures as --json prints them, for scripts and for
    // `tilevolve serve` (a directory holding it is a split study on the dashboard).
    Report rep = r.report;
    rep.files["study.json"] = to_json(r).dump(2) + "\n";
    rep.write(o.out);
    if (!o.json)
      fmt::print("\nReport written to {0}/report.md, its figures to {0}/study.json (`tilevolve "
                 "serve` shows the study).\n",
                 o.out);
  }
}

} // namespace

void add_splits_command(CLI::App& app) {
  auto o = std::make_shared<SplitsCommandOptions>();
  CLI::App* cmd = app.add_subcommand(
      "splits", "Generalization over random splits (or range splits, --split range; or one fixed "
                "pair, --test-shapes): on each "
                "split, evolution over seeds against what the same training half gives the "
                "baselines: the per-M table, the best single config, the decision tree on "
                "every pair and the tree on the pairs each run timed (lecture shapes on the "
                "analytic model unless --shapes / --backend say otherwise)");
  add_problem_options(*cmd, o->study.problem, ProblemOptionSet::over_seeds);
  cmd->add_option("--budget", o->study.run.budget, "programs proposed per evolution run")
      ->check(integer_in(0, kMaxCount))
      ->capture_default_str();
  add_stagnation_option(*cmd, o->study.run.stagnation);
  add_kernel_run_budget_option(*cmd, o->study.run.kernel_runs);
  add_rule_penalty_option(*cmd, o->study.run.rule_penalty);
  add_race_batch_option(*cmd, o->study.run.cascade.race_batch);
  add_result_options(*cmd, o->study.run);
  cmd->add_option("--splits", o->study.splits,
                  "random half/half splits (split seeds K .. K+N-1, K = --first-split)")
      ->check(integer_in(1, 100000))
      ->capture_default_str();
  cmd->add_option("--first-split", o->study.first_split,
                  "the first split seed K: e.g. --first-split 20 --splits 40 judges a change "
                  "chosen on split seeds 0-19 on 40 splits it never saw")
      ->check(integer_in(0, 1000000))
      ->capture_default_str();
  cmd->add_option("--seeds", o->study.seeds, "evolution runs per split (seeds 0 .. N-1)")
      ->check(integer_in(1, 10000))
      ->capture_default_str();
  add_threads_option(*cmd, o->study.threads);
  cmd->add_option("--split-features", o->split_features,
                  "features the mock LLM may bound when it splits a rule (as for evolve), e.g. M "
                  "or MNK")
      ->capture_default_str();
  cmd->add_option("--out", o->out,
                  "write report.md and study.json (the --json object) into this directory; "
                  "`tilevolve serve` shows a directory holding study.json as a split study");
  cmd->add_flag("--json", o->json, "print one JSON object to stdout instead of the report");
  cmd->callback([o] { run_splits_command(*o); });
}

} // namespace tv
