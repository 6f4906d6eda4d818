// EvolutionOptions as JSON (config.json, fingerprints) and the run's config.json content.
#include "evolve/evolution.hpp"

#include "eval/analytic_backend.hpp"
#include "evolve/evolution_detail.hpp"
#include "ir/error.hpp"
#include "ir/text.hpp"

#include <fmt/format.h>

#include <string>
#include <vector>

namespace tv {

using evolution_detail::get_field;

// ---------------------------------------------------------------- options

nlohmann::json EvolutionOptions::to_json() const {
  nlohmann::json j{{"seed", seed},
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
                   {"folds", folds},
                   {"place_thresholds", place_thresholds},
                   {"wave_guards", wave_guards},
                   {"guard_validation", guard_validation},
                   {"guard_returns", guard_returns},
                   {"wave_floors", wave_floors},
                   {"polish", polish},
                   {"explore", explore},
                   {"analytic_seed", analytic_seed},
                   {"refit_validation", refit_validation},
                   {"optimism_charge", optimism_charge},
                   {"refit_lookahead", refit_lookahead},
                   {"refit_complexity", refit_complexity},
                   {"refit_extremes", refit_extremes},
                   {"model_prior", model_prior},
                   {"sampled_sizes", sampled_sizes},
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
                     {"analytic_probes", cascade.analytic_probes},
                     {"race_batch", cascade.race_batch}}}};
  kernel_runs.to_json(j); // only when set, so older runs' options read back the same
  if (checkpoint_seconds > 0) j["checkpoint_seconds"] = checkpoint_seconds; // likewise
  return j;
}

EvolutionOptions with_backend_defaults(EvolutionOptions o, const Problem& problem) {
  const bool analytic = is_analytic(problem.backend.get());
  if (o.rule_penalty < 0) o.rule_penalty = o.folds > 0 || analytic ? 0.0 : kNoisyRulePenalty;
  if (o.stagnation < 0) o.stagnation = analytic ? 0 : kCostlyStagnation;
  if (analytic) o.optimism_charge = false;
  // The analytic model's times are the timings there: a prior from it would price pairs the run
  // never timed at their true cost, for free.
  if (analytic) o.model_prior = false;
  const bool any_shape = problem.backend->times_any_shape();
  if (o.sampled_sizes < 0) o.sampled_sizes = any_shape ? kDefaultSampledSizes : 0;
  if (o.sampled_sizes > 0 && !any_shape)
    throw InputError(fmt::format("--sampled-sizes: the {} backend times only the shapes it "
                                 "holds, not sizes drawn between them (give 0, or leave it out)",
                                 problem.backend->name()));
  if (o.kernel_runs.backend_default) {
    // A cap set on the "not given" value (runs or share) counts as given.
    o.kernel_runs.backend_default = false;
    if (!o.kernel_runs.any() && !analytic) o.kernel_runs.share = kCostlyKernelShare;
  }
  return o;
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
  if (j.contains("checkpoint_seconds"))
    o.checkpoint_seconds = get_field<double>(j, "checkpoint_seconds", w);
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
  // Runs written before racing did not race.
  o.cascade.race_batch = c.contains("race_batch") ? get_field<int>(c, "race_batch", wc) : 0;
  // Measured runs' settings; runs written before they existed had neither.
  if (j.contains("noise_threshold")) o.noise_threshold = get_field<double>(j, "noise_threshold", w);
  if (j.contains("rule_penalty")) o.rule_penalty = get_field<double>(j, "rule_penalty", w);
  o.kernel_runs = KernelRunBudget::from_json(j);
  if (j.contains("confirm_samples")) o.confirm_samples = get_field<int>(j, "confirm_samples", w);
  // Runs written before model selection returned their best training score: no folds.
  o.folds = j.contains("folds") ? get_field<int>(j, "folds", w) : 0;
  // Runs written before threshold placement returned the searched program (with folds, placed).
  o.place_thresholds =
      j.contains("place_thresholds") ? get_field<bool>(j, "place_thresholds", w) : false;
  // Runs written before wave guards returned their rules unguarded.
  o.wave_guards = j.contains("wave_guards") ? get_field<bool>(j, "wave_guards", w) : false;
  // Runs written before guard validation guarded every rule.
  o.guard_validation =
      j.contains("guard_validation") ? get_field<bool>(j, "guard_validation", w) : false;
  // Runs written before guard returns had none.
  o.guard_returns = j.contains("guard_returns") ? get_field<bool>(j, "guard_returns", w) : false;
  // Runs written before wave floors had none.
  o.wave_floors = j.contains("wave_floors") ? get_field<bool>(j, "wave_floors", w) : false;
  // Runs written before leaf polish returned the searched configs.
  o.polish = j.contains("polish") ? get_field<bool>(j, "polish", w) : false;
  // Runs written before leaf exploration left what the search did not spend of the cap unspent.
  o.explore = j.contains("explore") ? get_field<bool>(j, "explore", w) : false;
  // Runs written before the analytic seed started from the expert alone.
  o.analytic_seed = j.contains("analytic_seed") ? get_field<bool>(j, "analytic_seed", w) : false;
  o.refit_validation =
      j.contains("refit_validation") ? get_field<bool>(j, "refit_validation", w) : false;
  // Runs written before the optimism charge compared the training figure as it was.
  o.optimism_charge =
      j.contains("optimism_charge") ? get_field<bool>(j, "optimism_charge", w) : false;
  // Runs written before the lookahead refitted greedy trees only.
  o.refit_lookahead =
      j.contains("refit_lookahead") ? get_field<bool>(j, "refit_lookahead", w) : false;
  // Runs written before cost-complexity chose the refitted tree's leaf count on the folds.
  o.refit_complexity =
      j.contains("refit_complexity") ? get_field<bool>(j, "refit_complexity", w) : false;
  // Runs written before the extreme folds chose among the close charges.
  o.refit_extremes = j.contains("refit_extremes") ? get_field<bool>(j, "refit_extremes", w) : false;
  // Runs written before the model prior refitted on the measurements alone.
  o.model_prior = j.contains("model_prior") ? get_field<bool>(j, "model_prior", w) : false;
  // Runs written before sampled sizes returned the searched best.
  o.sampled_sizes = j.contains("sampled_sizes") ? get_field<int>(j, "sampled_sizes", w) : 0;
  if (c.contains("analytic_probes"))
    o.cascade.analytic_probes = get_field<bool>(c, "analytic_probes", wc);
  return o;
}

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
          {"options", with_backend_defaults(o, p).to_json()}};
}

} // namespace tv
