// EvolutionOptions as JSON (config.json, fingerprints) and the run's config.json content.
#include "evolve/evolution.hpp"

#include "eval/analytic_backend.hpp"
#include "evolve/evolution_detail.hpp"
#include "evolve/sampled_sizes.hpp"
#include "ir/error.hpp"
#include "ir/text.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

namespace tv {

using evolution_detail::get_field;

// ---------------------------------------------------------------- options

bool EvolutionOptions::skips(std::string_view name) const {
  return std::binary_search(skip_passes.begin(), skip_passes.end(), name);
}

void EvolutionOptions::skip(const std::string& name) {
  const auto at = std::lower_bound(skip_passes.begin(), skip_passes.end(), name);
  if (at == skip_passes.end() || *at != name) skip_passes.insert(at, name);
}

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
                   {"analytic_seed", analytic_seed},
                   {"model_prior", model_prior},
                   {"skip_passes", skip_passes},
                   {"sampled_sizes", sampled_sizes},
                   {"guard_returns", guard_returns},
                   {"wave_floors", wave_floors},
                   {"optimism_charge", optimism_charge},
                   {"refit_lookahead", refit_lookahead},
                   {"refit_complexity", refit_complexity},
                   {"refit_extremes", refit_extremes},
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
  kernel_runs.to_json(j);                                                   // only when set
  if (checkpoint_seconds > 0) j["checkpoint_seconds"] = checkpoint_seconds; // likewise
  return j;
}

EvolutionOptions with_backend_defaults(EvolutionOptions o, const Problem& problem) {
  const bool analytic = is_analytic(problem.backend.get());
  if (o.rule_penalty < 0) o.rule_penalty = analytic ? 0.0 : kNoisyRulePenalty;
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
  if (j.contains("skip_passes")) {
    for (const std::string& name : get_field<std::vector<std::string>>(j, "skip_passes", w))
      o.skip(name);
  } else {
    // Written before the passes: a switch per step, and a step whose switch a run lacks did not
    // exist when it was written (the run returned what it had without it). Read as passes.
    if (j.contains("folds") && get_field<int>(j, "folds", w) > 0)
      throw InputError("options: this run chose its result by model selection (--folds), which "
                       "tilevolve no longer has; it cannot be continued");
    const std::pair<const char*, const char*> legacy[] = {
        {"place_thresholds", "threshold-placement"},
        {"wave_guards", "wave-guards"},
        {"guard_validation", "guard-validation"},
        {"polish", "leaf-polish"},
        {"explore", "leaf-exploration"},
        {"refit_validation", "refit-validation"}};
    for (const auto& [key, pass] : legacy)
      if (!j.contains(key) || !get_field<bool>(j, key, w)) o.skip(pass);
  }
  // Switches a run written before they existed lacks: it ran without them.
  const std::pair<const char*, bool*> switches[] = {
      {"analytic_seed", &o.analytic_seed},       {"model_prior", &o.model_prior},
      {"guard_returns", &o.guard_returns},       {"wave_floors", &o.wave_floors},
      {"optimism_charge", &o.optimism_charge},   {"refit_lookahead", &o.refit_lookahead},
      {"refit_complexity", &o.refit_complexity}, {"refit_extremes", &o.refit_extremes}};
  for (const auto& [key, flag] : switches)
    *flag = j.contains(key) && get_field<bool>(j, key, w);
  // Runs written before sampled sizes returned the searched best.
  o.sampled_sizes = j.contains("sampled_sizes") ? get_field<int>(j, "sampled_sizes", w) : 0;
  if (c.contains("analytic_probes"))
    o.cascade.analytic_probes = get_field<bool>(c, "analytic_probes", wc);
  return o;
}

std::string options_difference(const EvolutionOptions& o) {
  const EvolutionOptions d;
  std::string out;
  if (o.rule_penalty >= 0) out += fmt::format(", rule penalty {:g}", o.rule_penalty);
  if (!o.skip_passes.empty()) {
    out += ", skipping";
    for (std::size_t i = 0; i < o.skip_passes.size(); ++i)
      out += (i ? ", " : " ") + o.skip_passes[i];
  }
  const std::pair<bool EvolutionOptions::*, const char*> switches[] = {
      {&EvolutionOptions::optimism_charge, "no optimism charge"},
      {&EvolutionOptions::refit_lookahead, "no refit lookahead"},
      {&EvolutionOptions::refit_complexity, "no refit complexity"},
      {&EvolutionOptions::refit_extremes, "no refit extremes"},
      {&EvolutionOptions::model_prior, "no model prior"},
      {&EvolutionOptions::guard_returns, "no guard returns"},
      {&EvolutionOptions::wave_floors, "no wave floors"},
      {&EvolutionOptions::analytic_seed, "no analytic seed"}};
  for (const auto& [field, text] : switches)
    if (o.*field != d.*field) out += fmt::format(", {}", text);
  if (o.cascade.race_batch == 0) out += ", no racing";
  if (o.sampled_sizes > 0) out += fmt::format(", {} sampled sizes", o.sampled_sizes);
  return out;
}

nlohmann::json migrate_run_config(nlohmann::json config) {
  // Version 1 had a switch per step after the search; version 2 names the passes skipped.
  if (config.is_object() && config.contains("version") && config["version"] == 1 &&
      config.contains("options")) {
    config["options"] = EvolutionOptions::from_json(config["options"]).to_json();
    config["version"] = 2;
  }
  return config;
}

nlohmann::json Evolution::run_config(const Problem& p, const Mutator& m,
                                     const EvolutionOptions& o) {
  return {{"format", "tilevolve-run"},
          {"version", kRunConfigVersion},
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
