#include "cli/evolve_command.hpp"

#include "cli/number_checks.hpp"
#include "cli/problem_options.hpp"
#include "cli/progress_bar.hpp"
#include "eval/baselines.hpp"
#include "evolve/evolution.hpp"
#include "evolve/mock_llm.hpp"
#include "evolve/run_dir.hpp"
#include "evolve/summary.hpp"
#include "ir/error.hpp"

#include <cstdio>
#include <fmt/format.h>
#include <memory>
#include <unistd.h>

namespace tv {

namespace {

struct EvolveOptions {
  ProblemSpec spec;
  EvolutionOptions evo;
  std::string out;
  std::string resume;
  bool one_field = false;
  std::string split_features = "M";
  bool json = false;
  bool quiet = false;
};

void print_progress(const Progress& p) {
  const double rate = p.seconds > 0 ? p.done / p.seconds : 0;
  const double eta = rate > 0 ? (p.budget - p.done) / rate : 0;
  std::fprintf(stderr,
               "\r[%6lld/%lld] %7.0f programs/s  best train %.3fx (%.1f%% of oracle)  "
               "kernel runs %lld  ETA %.1fs   ",
               p.done, p.budget, rate, p.best_score, 100 * p.best_fraction, p.kernel_runs, eta);
  std::fflush(stderr);
}

void run_evolve(EvolveOptions o) {
  if (!o.resume.empty()) {
    // Everything comes from the run's own config.json.
    const nlohmann::json cfg = read_run_config(o.resume);
    o.spec = problem_spec_from_json(cfg["problem"], o.resume + "/config.json");
    o.evo = EvolutionOptions::from_json(cfg["options"]);
    const std::string name = cfg.value("mutator", "");
    const auto recorded = MockLlm::options_for(name);
    if (!recorded)
      throw InputError(fmt::format("{}/config.json: unknown mutator '{}'", o.resume, name));
    o.one_field = recorded->one_field_only;
    o.split_features = split_features_text(recorded->split_features);
    o.out = o.resume;
  }
  if (o.quiet) TerminalProgressBar::silence();
  MockLlmOptions mo;
  mo.one_field_only = o.one_field;
  mo.split_features = parse_split_features(o.split_features);
  auto problem = load_problem(o.spec);
  MockLlm mutator(problem->gpu, mock_options_for(*problem, mo));
  Evolution evo(*problem, mutator, o.evo, o.out);
  if (!o.quiet && !o.json && ::isatty(::fileno(stderr))) evo.on_progress(print_progress);
  const EvolutionResult r = o.resume.empty() ? evo.run() : evo.resume();
  if (!o.quiet && !o.json && ::isatty(::fileno(stderr))) std::fprintf(stderr, "\n");
  const auto baselines =
      compute_baselines(*problem->train, *problem->test, problem->expert, problem->backend.get());
  const auto summary = summary_json(*problem, r, baselines);
  if (!o.out.empty()) {
    atomic_write(o.out + "/summary.json", summary.dump(2) + "\n");
    atomic_write(o.out + "/summary.txt", summary_text(*problem, r, baselines));
  }
  if (o.json)
    fmt::print("{}\n", summary.dump(2));
  else
    fmt::print("{}{}", summary_text(*problem, r, baselines),
               o.out.empty() ? "" : fmt::format("\nRun directory: {}\n", o.out));
}

} // namespace

void add_evolve_command(CLI::App& app) {
  auto o = std::make_shared<EvolveOptions>();
  o->spec.gpu = "mi300x";
  CLI::App* cmd = app.add_subcommand(
      "evolve", "Evolve a tiling heuristic from the expert with the mock LLM and the cascaded "
                "evaluator; report it beside the baselines on train and test");
  add_problem_options(*cmd, o->spec);
  cmd->add_option("--seed", o->evo.seed, "seed of the evolution (same seed, same run)")
      ->check(integer_in(0, UINT64_MAX))
      ->capture_default_str();
  cmd->add_option("--budget", o->evo.budget, "programs to propose")
      ->check(integer_in(0, kMaxCount))
      ->capture_default_str();
  cmd->add_option("--stagnation", o->evo.stagnation,
                  "stop after this many programs without a new best (0 = never)")
      ->check(integer_in(0, kMaxCount))
      ->capture_default_str();
  cmd->add_option("--target", o->evo.target_score,
                  "stop when the best train speedup over the expert reaches this (0 = never)")
      ->check(number_in(0, 1e6));
  cmd->add_option("--max-seconds", o->evo.max_seconds,
                  "stop after this wall time (0 = never; a time limit makes runs irreproducible)")
      ->check(number_in(0, 1e9));
  cmd->add_option("--batch", o->evo.batch, "programs proposed between database updates")
      ->check(integer_in(1, 1 << 20))
      ->capture_default_str();
  cmd->add_option("--islands", o->evo.database.islands, "islands of the program database")
      ->check(integer_in(1, 1024))
      ->capture_default_str();
  cmd->add_option("--probes", o->evo.cascade.probe_count, "probe shapes of cascade stage 1")
      ->check(integer_in(1, 1 << 20))
      ->capture_default_str();
  cmd->add_option("--probe-margin", o->evo.cascade.probe_margin,
                  "stop a child whose probe speedup is below (1 - margin) x its parent's")
      ->check(number_in(0, 1))
      ->capture_default_str();
  cmd->add_flag_callback(
      "--no-cascade", [o] { o->evo.cascade.enabled = false; },
      "skip the probe stage: time every launchable child on all training shapes");
  cmd->add_flag_callback(
      "--keep-unexercised", [o] { o->evo.drop_unexercised = false; },
      "keep rules of a child that decide no training shape (by default they are "
      "dropped, and a default config that decides none gives way to the last rule's: their "
      "configs were never timed)");
  cmd->add_flag("--one-field", o->one_field,
                "mock LLM makes only one-field edits (the 'small LLM' ablation)");
  cmd->add_option("--split-features", o->split_features,
                  "features the mock LLM may bound when it splits a rule: M (token count; "
                  "steadier on unseen shapes, see README) or letters of M, N, K, "
                  "e.g. MNK")
      ->capture_default_str();
  cmd->add_option("--checkpoint-every", o->evo.checkpoint_every,
                  "programs between checkpoints in the run directory")
      ->check(integer_in(1, kMaxCount))
      ->capture_default_str();
  cmd->add_option("--out", o->out,
                  "run directory: config, events.ndjson, checkpoint, best program, lineage, "
                  "summary");
  cmd->add_option("--resume", o->resume,
                  "continue the run in this directory from its checkpoint (all settings come "
                  "from its config.json)");
  cmd->add_flag("--json", o->json, "print one JSON summary object to stdout");
  cmd->add_flag("--quiet", o->quiet, "no progress line");
  cmd->callback([o, cmd] {
    if (!o->resume.empty())
      for (const CLI::Option* opt : cmd->get_options())
        if (opt->count() > 0 && opt->get_name() != "--resume" && opt->get_name() != "--json" &&
            opt->get_name() != "--quiet" && opt->get_name() != "--help")
          throw InputError(fmt::format("--resume takes every setting from the run's config.json; "
                                       "do not combine it with {}",
                                       opt->get_name()));
    run_evolve(*o);
  });
}

} // namespace tv
