#include "cli/evolve_command.hpp"

#include "cli/problem_options.hpp"
#include "eval/baselines.hpp"
#include "eval/export_provenance.hpp"
#include "evolve/evolution.hpp"
#include "evolve/mock_llm.hpp"
#include "evolve/run_dir.hpp"
#include "evolve/summary.hpp"
#include "ir/error.hpp"
#include "ir/exporters/vllm_exporter.hpp"
#include "ir/version.hpp"

#include <cstdio>
#include <filesystem>
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
  std::vector<std::string> export_vllm; ///< "N,K[,E]" each
};

/// The vLLM exports asked for with --export-vllm, checked before the run starts.
std::vector<VllmExportOptions> vllm_targets(const EvolveOptions& o, const Problem& problem) {
  std::vector<VllmExportOptions> out;
  for (const auto& t : o.export_vllm) {
    std::vector<std::int64_t> v;
    std::size_t start = 0;
    bool ok = true;
    while (ok && start <= t.size()) {
      const std::size_t end = std::min(t.find(',', start), t.size());
      const std::string item = t.substr(start, end - start);
      ok = !item.empty() && item.size() < 12 &&
           item.find_first_not_of("0123456789") == std::string::npos && std::stoll(item) > 0;
      if (ok) v.push_back(std::stoll(item));
      start = end + 1;
    }
    if (!ok || v.size() < 2 || v.size() > 3)
      throw InputError(
          fmt::format("--export-vllm '{}': expected N,K or N,K,E (positive integers)", t));
    VllmExportOptions e;
    e.N = v[0];
    e.K = v[1];
    if (v.size() == 3) e.E = v[2];
    const auto device = vllm_device_name(problem.gpu.name);
    if (!device)
      throw InputError(fmt::format("--export-vllm: no vLLM device name is known for GPU '{}'; "
                                   "export afterwards with tilevolve export RUN_DIR --format vllm "
                                   "--device NAME",
                                   problem.gpu.name));
    e.device = *device;
    out.push_back(e);
  }
  if (!out.empty() && o.out.empty()) throw InputError("--export-vllm needs --out DIR");
  return out;
}

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
    const auto cfg = nlohmann::json::parse(read_file(o.resume + "/config.json"), nullptr, false);
    if (cfg.is_discarded() || !cfg.contains("problem") || !cfg.contains("options"))
      throw InputError(fmt::format("{}/config.json: not a tilevolve run configuration", o.resume));
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
  MockLlmOptions mo;
  mo.one_field_only = o.one_field;
  mo.split_features = parse_split_features(o.split_features);
  auto problem = load_problem(o.spec);
  const auto vllm = vllm_targets(o, *problem);
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
    for (const auto& v : vllm) {
      // exports/vllm/ is a config folder: point VLLM_TUNED_CONFIG_FOLDER at it.
      const VllmExport e = export_vllm(r.best_simplified, v);
      const ExportInfo info =
          export_info(*problem, r.best_train, r.best_test,
                      fmt::format("tilevolve {} (tilevolve evolve --export-vllm)", version()),
                      fmt::format("run directory {}: its best program (simplified)", o.out));
      const std::string dir = o.out + "/exports/vllm";
      std::filesystem::create_directories(dir);
      atomic_write(dir + "/" + e.file_name, e.json);
      atomic_write(dir + "/" + e.file_name.substr(0, e.file_name.size() - 5) + ".provenance.txt",
                   vllm_provenance_text(r.best_simplified, info, e));
    }
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
      ->capture_default_str();
  cmd->add_option("--budget", o->evo.budget, "programs to propose")->capture_default_str();
  cmd->add_option("--stagnation", o->evo.stagnation,
                  "stop after this many programs without a new best (0 = never)")
      ->capture_default_str();
  cmd->add_option("--target", o->evo.target_score,
                  "stop when the best train speedup over the expert reaches this (0 = never)");
  cmd->add_option("--max-seconds", o->evo.max_seconds,
                  "stop after this wall time (0 = never; a time limit makes runs irreproducible)");
  cmd->add_option("--batch", o->evo.batch, "programs proposed between database updates")
      ->capture_default_str();
  cmd->add_option("--islands", o->evo.database.islands, "islands of the program database")
      ->capture_default_str();
  cmd->add_option("--probes", o->evo.cascade.probe_count, "probe shapes of cascade stage 1")
      ->capture_default_str();
  cmd->add_option("--probe-margin", o->evo.cascade.probe_margin,
                  "stop a child whose probe speedup is below (1 - margin) x its parent's")
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
      ->capture_default_str();
  cmd->add_option("--out", o->out,
                  "run directory: config, events.ndjson, checkpoint, best program, its exports "
                  "(exports/: C++, Python, Triton, JSON), lineage, summary");
  cmd->add_option("--resume", o->resume,
                  "continue the run in this directory from its checkpoint (all settings come "
                  "from its config.json)");
  cmd->add_option("--export-vllm", o->export_vllm,
                  "also write the best program as a vLLM per-M config for the GEMM N,K (or the "
                  "MoE layer N,K,E) into DIR/exports/vllm/ (needs --out; the device name comes "
                  "from the GPU profile); repeat for more. exports/ always holds best.hpp, "
                  "best_heuristic.py, best_triton.py and best.json")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
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
