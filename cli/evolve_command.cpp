#include "cli/evolve_command.hpp"

#include "cli/exit_code.hpp"
#include "cli/experiment_options.hpp"
#include "cli/help_formatter.hpp"
#include "cli/llm_options.hpp"
#include "cli/number_checks.hpp"
#include "cli/problem_options.hpp"
#include "cli/progress_bar.hpp"
#include "cli/stop_signals.hpp"
#include "cli/worker_options.hpp"
#include "eval/backend_factory.hpp"
#include "eval/backends/measured_backend.hpp"
#include "eval/baselines.hpp"
#include "eval/decision_tree.hpp"
#include "eval/export_provenance.hpp"
#include "eval/noise.hpp"
#include "eval/training_coverage.hpp"
#include "evolve/evolution.hpp"
#include "evolve/mock_llm.hpp"
#include "evolve/run_dir.hpp"
#include "evolve/summary.hpp"
#include "evolve/viewer_data.hpp"
#include "ir/bounded_json.hpp"
#include "ir/error.hpp"
#include "ir/exporters/vllm_exporter.hpp"
#include "ir/version.hpp"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <functional>
#include <memory>
#include <omp.h>
#include <optional>
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
  bool explain = false; ///< print the full account instead of the brief report
  bool quiet = false;
  int threads = 0; ///< OpenMP threads of the table and the baselines (0 = the default)
  LlmOptions llm;
  std::string model_alias;              ///< --model: --llm-model or --preset, by context
  std::vector<std::string> export_vllm; ///< "N,K[,E]" each
  // Measured runs (and replays of them).
  std::string probe_backend = "measured";
  bool full_baselines = false;
  int noise_reps = -1;         ///< -1: 5 on a noisy backend, else 0
  double noise_threshold = -1; ///< -1: the measured spread
  int confirm = -1;            ///< -1: 1 on a noisy backend, else 0
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

/// Flags that only an LLM run reads.
const char* const kLlmFlags[] = {
    "--llm-model",           "--api-key-env",      "--llm-concurrency", "--llm-timeout",
    "--llm-connect-timeout", "--llm-retries",      "--llm-backoff",     "--llm-max-wait",
    "--llm-ca-cert",         "--max-requests",     "--max-tokens",      "--llm-max-failures",
    "--temperature",         "--max-reply-tokens", "--prompts",         "--prompt-mode"};

/// The run directory's record of how a measured run starts its workers (not part of the
/// run's fingerprint: a resumed run may use other machines, but must read the same cache).
constexpr const char* kMeasuredSettings = "measured.json";

void save_measured_settings(const EvolveOptions& o) {
  const PoolOptions& w = o.spec.workers;
  const nlohmann::json j{{"cache", std::filesystem::absolute(o.spec.cache).string()},
                         {"worker_cmd", w.command},
                         {"devices", w.devices},
                         {"worker_timeout", w.timeout_s},
                         {"worker_start_timeout", w.start_timeout_s},
                         {"worker_backoff", w.backoff_s},
                         {"worker_max_backoff", w.max_backoff_s},
                         {"worker_max_failed_starts", w.max_failed_starts},
                         {"worker_max_faults", w.max_faults_in_row},
                         {"poison_strikes", w.poison_strikes},
                         {"poison_config_after", w.poison_config_after},
                         {"reps", w.reps},
                         {"warmup", w.warmup},
                         {"noise_reps", o.noise_reps}};
  std::error_code ec;
  std::filesystem::create_directories(o.out, ec); // the run creates it too; we write first
  atomic_write(o.out + "/" + kMeasuredSettings, j.dump(2) + "\n");
}

/// The worker flags a resumed run may change: where and how it measures, not what.
const char* const kResumableWorkerFlags[] = {"--worker-cmd",
                                             "--devices",
                                             "--worker-timeout",
                                             "--worker-start-timeout",
                                             "--worker-backoff",
                                             "--worker-max-backoff",
                                             "--worker-max-failed-starts",
                                             "--worker-max-faults",
                                             "--poison-strikes",
                                             "--poison-config-after"};

/// Reads measured.json into `o`; worker options given on the command line (`flag_given(flag)`)
/// win.
void load_measured_settings(const std::string& dir, EvolveOptions& o,
                            const std::function<bool(const char*)>& flag_given) {
  const std::string path = dir + "/" + kMeasuredSettings;
  const auto j = read_json(read_file(path), path); // bounded; InputError names the position
  if (!j.is_object() || !j.contains("cache") || !j["cache"].is_string())
    throw InputError(fmt::format("{}: not a measured run's settings (need \"cache\")", path));
  try {
    o.spec.cache = j["cache"].get<std::string>();
    PoolOptions& w = o.spec.workers;
    // A flag given now wins; else the run's own setting; else (older runs) the default.
    const auto pick = [&](auto& field, const char* flag, const char* key) {
      if (!flag_given(flag)) field = j.value(key, field);
    };
    pick(w.command, "--worker-cmd", "worker_cmd");
    pick(w.devices, "--devices", "devices");
    pick(w.timeout_s, "--worker-timeout", "worker_timeout");
    pick(w.start_timeout_s, "--worker-start-timeout", "worker_start_timeout");
    pick(w.backoff_s, "--worker-backoff", "worker_backoff");
    pick(w.max_backoff_s, "--worker-max-backoff", "worker_max_backoff");
    pick(w.max_failed_starts, "--worker-max-failed-starts", "worker_max_failed_starts");
    pick(w.max_faults_in_row, "--worker-max-faults", "worker_max_faults");
    pick(w.poison_strikes, "--poison-strikes", "poison_strikes");
    pick(w.poison_config_after, "--poison-config-after", "poison_config_after");
    o.spec.workers.reps = j.value("reps", 20);
    o.spec.workers.warmup = j.value("warmup", 5);
    o.noise_reps = j.value("noise_reps", -1);
  } catch (const nlohmann::json::exception&) {
    throw InputError(fmt::format("{}: a field has the wrong type", path));
  }
}

/// Fills the problem and evolution options from the run directory's config.json; returns it.
nlohmann::json read_run_config(const std::string& dir, EvolveOptions& o) {
  // Checked: a missing, malformed or foreign config.json is refused with what to do.
  const nlohmann::json cfg = tv::read_run_config(dir);
  // How workers start and which cache they use come from measured.json, not config.json.
  const PoolOptions workers = o.spec.workers;
  const std::string cache = o.spec.cache;
  o.spec = problem_spec_from_json(cfg["problem"], dir + "/config.json");
  o.spec.workers = workers;
  o.spec.cache = cache;
  o.evo = EvolutionOptions::from_json(cfg["options"]);
  return cfg;
}

void print_progress(const Progress& p) {
  const double rate = p.seconds > 0 ? p.done / p.seconds : 0;
  const double eta = rate > 0 ? (p.budget - p.done) / rate : 0;
  // A table of what was measured so far has no oracle yet for a new best's configs.
  const std::string fraction =
      p.best_fraction > 0 ? fmt::format(" ({:.1f}% of oracle)", 100 * p.best_fraction) : "";
  std::fprintf(stderr,
               "\r[%6lld/%lld] %7.0f programs/s  best train %.3fx%s  kernel runs %lld  "
               "ETA %.1fs   ",
               p.done, p.budget, rate, p.best_score, fraction.c_str(), p.kernel_runs, eta);
  std::fflush(stderr);
}

/// For a table of what was measured: measure the best program and the cost-matched tree on
/// every shape and the baselines chosen on the training shapes (best single config, per-M
/// table, decision tree) on the test shapes too, and the vendor library,
/// then score the best program on the table that results.
void complete_measured(Problem& p, EvolutionResult& r) {
  if (p.backend->complete_table()) return;
  // The cost-matched tree (fitted on the run's own pairs) is scored on the test shapes too.
  refresh_table(p, {r.best.program, r.cost_matched_tree});
  // Each measurement can add configs to the table and so change what the baselines choose:
  // measure until their choices stand still (compute_baselines then fits the same programs).
  std::vector<Program> measured = {r.best.program, r.cost_matched_tree};
  TreeOptions tree;
  tree.max_leaves = p.spec.tree_leaves;
  for (int round = 0; round < 8; ++round) {
    std::vector<Program> fresh;
    for (Program& q : std::vector<Program>{best_single_config(*p.train), per_m_table(*p.train),
                                           fit_decision_tree(*p.train, tree)})
      if (std::find(measured.begin(), measured.end(), q) == measured.end()) {
        fresh.push_back(q);
        measured.push_back(std::move(q));
      }
    if (fresh.empty()) break;
    refresh_table(p, fresh);
  }
  p.backend->time_vendor(p.table->shapes());
  r.best_train = p.train->score(r.best.program);
  r.best_test = p.test->score(r.best.program);
}

void run_evolve(EvolveOptions o) {
  const bool interactive = !o.quiet && !o.json && ::isatty(::fileno(stderr));
  std::string replay_dir;
  const bool server = wants_llm_server(o.llm, replay_dir);
  // --resume and --llm replay: take every setting from a run's own config.json.
  const std::string recorded_dir = !o.resume.empty() ? o.resume : replay_dir;
  std::optional<LlmSettings> llm;
  nlohmann::json cfg;
  if (!recorded_dir.empty()) {
    cfg = read_run_config(recorded_dir, o);
    const std::string name = cfg.value("mutator", "");
    if (cfg.contains("mutator_settings") && !cfg["mutator_settings"].is_null()) {
      const auto& ms = cfg["mutator_settings"];
      if (!ms.is_object() || ms.value("kind", "") != "llm")
        throw InputError(fmt::format("{}/config.json: unknown mutator '{}'", recorded_dir, name));
      llm = LlmSettings::from_json(ms);
    } else {
      if (!replay_dir.empty())
        throw InputError(fmt::format("--llm replay:{}: that run used the mutator '{}', not an "
                                     "LLM server: there is nothing to replay",
                                     replay_dir, name));
      const auto recorded = MockLlm::options_for(name);
      if (!recorded)
        throw InputError(fmt::format("{}/config.json: unknown mutator '{}'", recorded_dir, name));
      o.one_field = recorded->one_field_only;
      o.split_features = split_features_text(recorded->split_features);
    }
  } else if (server) {
    llm = llm_settings_from_flags(o.llm);
  }
  if (!o.resume.empty()) o.out = o.resume;
  check_worker_options(o.spec.workers);
  if (o.probe_backend != "analytic" && o.probe_backend != "measured")
    throw InputError(
        fmt::format("--probe-backend must be analytic or measured, got '{}'", o.probe_backend));
  if (recorded_dir.empty()) o.evo.cascade.analytic_probes = o.probe_backend == "analytic";
  o.spec.workers.progress = interactive;
  if (o.quiet) TerminalProgressBar::silence();
  if (o.threads > 0) omp_set_num_threads(o.threads);
  auto problem = load_problem(o.spec);
  warn_if_few_test_shapes(*problem);
  TimingBackend& backend = *problem->backend;
  if (o.full_baselines && !backend.complete_table()) {
    fmt::print(stderr,
               "tilevolve: measuring the full table first: {} (shape, config) pairs, each a "
               "kernel run unless the cache has it\n",
               full_table_pairs(*problem));
    refresh_table(*problem, {}, true);
  }
  // Noise: one typical kernel timed several times; a gain must beat its spread.
  if (o.noise_reps < 0) o.noise_reps = backend.noisy() ? 5 : 0;
  std::optional<NoiseEstimate> noise;
  if (o.noise_reps > 0) {
    const Shape& s = problem->shape(noise_row(*problem));
    noise = estimate_noise(backend, s, problem->expert.choose(s), o.noise_reps);
    if (!noise->valid) throw InputError(noise->text() + table_hint(o.spec.backend));
  }
  if (recorded_dir.empty()) {
    if (o.noise_threshold < 0) o.noise_threshold = noise ? noise->spread : 0.0;
    o.evo.noise_threshold = o.noise_threshold;
    if (o.confirm < 0) o.confirm = backend.noisy() ? 1 : 0;
    o.evo.confirm_samples = o.confirm;
  }
  const auto vllm = vllm_targets(o, *problem);
  std::unique_ptr<Mutator> mutator;
  LlmMutator* llm_mutator = nullptr;
  if (llm) {
    LlmRuntime rt;
    rt.concurrency = o.llm.concurrency;
    if (replay_dir.empty()) {
      rt.api_key = api_key_from_env(llm->api_key_env, server && !o.llm.api_key_env.empty());
      if (rt.api_key.empty() && server)
        fmt::print(stderr,
                   "tilevolve: note: {} is not set: requests carry no Authorization "
                   "header (fine for a local server)\n",
                   llm->api_key_env);
    }
    if (!o.out.empty()) rt.record_path = o.out + "/llm_exchanges.ndjson";
    // The first failed attempt is shown as it happens, not after its retries; the rest are
    // counted in the report.
    auto told = std::make_shared<std::atomic<bool>>(false);
    rt.on_failure = [told, interactive](const ChatAttempt& a) {
      if (told->exchange(true)) return;
      fmt::print(stderr, "{}tilevolve: warning: an LLM request failed ({}: {}){}\n",
                 interactive ? "\n" : "", failure_kind_name(a.failure), a.error,
                 a.final ? "" : fmt::format("; retrying in {:.1f} s", a.wait_s));
    };
    rt.resume = !o.resume.empty();
    if (!replay_dir.empty()) rt.replay_path = replay_dir + "/llm_exchanges.ndjson";
    auto m = make_llm_mutator(*problem, *llm, std::move(rt), recorded_dir,
                              recorded_dir.empty() ? nullptr : &cfg["mutator_settings"]);
    llm_mutator = m.get();
    mutator = std::move(m);
  } else {
    MockLlmOptions mo;
    mo.one_field_only = o.one_field;
    mo.split_features = parse_split_features(o.split_features);
    mutator = std::make_unique<MockLlm>(problem->gpu, mock_options_for(*problem, mo));
  }
  Evolution evo(*problem, *mutator, o.evo, o.out);
  if (interactive) evo.on_progress(print_progress);
  if (o.resume.empty() && !o.out.empty() && o.spec.backend == "measured") save_measured_settings(o);
  // Ctrl-C (or SIGTERM) stops the search between two batches, checkpointed; a second one ends
  // the process at once.
  StopSignals stop;
  evo.on_stop_request([&stop] { return stop.requested(); });
  EvolutionResult r;
  try {
    r = o.resume.empty() ? evo.run() : evo.resume();
  } catch (const InterruptedError& e) {
    if (interactive) std::fprintf(stderr, "\n");
    const int sig = stop.signal_number();
    fmt::print(stderr,
               "tilevolve: stopped by {} after {} programs (best train speedup so far "
               "{:.3f}x); {}\n",
               stop_signal_name(sig), e.programs, e.best_score,
               o.out.empty() ? "without --out nothing was kept"
                             : fmt::format("checkpointed: tilevolve evolve --resume {} continues "
                                           "it as if it had not stopped",
                                           o.out));
    throw ExitCode{kExitInterruptedBase + sig};
  }
  if (interactive) std::fprintf(stderr, "\n");
  complete_measured(*problem, r);
  const auto baselines = compute_baselines(*problem->train, *problem->test, problem->expert,
                                           problem->backend.get(), problem->spec.tree_leaves);
  // A measured run's table grew while it ran and just above: per_shape.json again, from the
  // table and baselines as the run ended (the run wrote it from those it started with).
  if (!o.out.empty() && !backend.complete_table())
    atomic_write(o.out + "/per_shape.json",
                 ViewerData(*problem, baselines).per_shape(r.best.id, r.best.program).dump() +
                     "\n");
  auto summary = summary_json(*problem, r, baselines);
  if (llm_mutator) summary["llm_answered_from_recording"] = llm_mutator->answered_from_recording();
  std::string extra;
  if (noise) {
    summary["noise"] = noise->to_json();
    summary["noise"]["threshold"] = o.evo.noise_threshold;
    summary["noise"]["confirm_samples"] = o.evo.confirm_samples;
    extra +=
        fmt::format("\nNoise: {}; a child must beat its parent (and a new best the best) "
                    "by more than {:.2f}%{}\n",
                    noise->text(), 100 * o.evo.noise_threshold,
                    o.evo.confirm_samples > 0
                        ? fmt::format(", and a new best is re-measured {} more time{} "
                                      "before it is accepted",
                                      o.evo.confirm_samples, o.evo.confirm_samples == 1 ? "" : "s")
                        : "");
  }
  if (const auto* m = dynamic_cast<const MeasuredBackend*>(problem->backend.get())) {
    summary["measurement"] = m->report_json();
    extra += "\nMeasurement:\n" + m->report_text();
    if (!o.out.empty()) {
      // What each device went through, after the end event (the run's events are written).
      const auto& mj = summary["measurement"];
      std::ofstream events(o.out + "/events.ndjson", std::ios::app);
      for (const auto& e : problem->backend->take_events()) // the faults after the end event
        events << e.dump() << "\n";
      events << nlohmann::json{{"event", "devices"},
                               {"devices", mj["devices"]},
                               {"pool", mj["pool"]},
                               {"poison", mj["poison"]},
                               {"events_dropped", mj["events_dropped"]}}
                    .dump()
             << "\n";
    }
  }
  const std::string text = summary_text(*problem, r, baselines) + extra;
  if (!o.out.empty()) {
    atomic_write(o.out + "/summary.json", summary.dump(2) + "\n");
    atomic_write(o.out + "/summary.txt", text);
    for (const auto& v : vllm) {
      // exports/vllm/ is a config folder: point VLLM_TUNED_CONFIG_FOLDER at it.
      const VllmExport e = export_vllm(r.best_simplified, v);
      ExportInfo info =
          export_info(*problem, r.best_train, r.best_test,
                      fmt::format("tilevolve {} (tilevolve evolve --export-vllm)", version()),
                      fmt::format("run directory {}: its best program (simplified)", o.out));
      info.training = problem_training_range(*problem, r.best_simplified);
      info.notes.push_back(training_m_text(*info.training, r.best_simplified, v.N, v.K));
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
    fmt::print("{}{}{}", o.explain ? text : brief_summary_text(*problem, r, baselines),
               llm_mutator && llm_mutator->answered_from_recording() > 0
                   ? fmt::format("LLM requests answered from the recording: {}\n",
                                 llm_mutator->answered_from_recording())
                   : "",
               o.out.empty()
                   ? (o.explain ? std::string()
                                : std::string("The full account (each pass, the edit, where it "
                                              "parts from the tree, the cost): --explain.\n"))
                   : fmt::format("{}Run directory: {} (summary.txt holds the full account).\n",
                                 o.explain ? "\n" : "", o.out));
  // A run whose LLM server gave out did not get what it asked for: say so in the status.
  if (mutator->gave_out() && r.stop_reason == mutator->exhausted()) {
    fmt::print(stderr, "tilevolve: error: the run stopped early: {} (exit status {}){}\n",
               r.stop_reason, kExitGaveOut,
               o.out.empty() ? "" : fmt::format("; --resume {} continues it", o.out));
    throw ExitCode{kExitGaveOut};
  }
  // A run in which no proposal of the LLM was ever answered evolved nothing, whatever its
  // budget: it failed (its report is the expert's and the seeds').
  if (llm && r.counters.proposed > 0 && r.counters.mutator_failed == r.counters.proposed) {
    fmt::print(stderr,
               "tilevolve: error: the LLM answered none of the {} proposals the run asked for "
               "(exit status {}); nothing was evolved{}\n",
               r.counters.proposed, kExitGaveOut,
               o.out.empty() ? "" : fmt::format("; --resume {} continues the run", o.out));
    throw ExitCode{kExitGaveOut};
  }
}

} // namespace

void add_evolve_command(CLI::App& app) {
  auto o = std::make_shared<EvolveOptions>();
  CLI::App* cmd = app.add_subcommand(
      "evolve", "Evolve a tiling heuristic from the expert with the mock LLM (or an LLM server) "
                "and the cascaded evaluator; report it beside the baselines on train and test");
  add_problem_options(*cmd, o->spec, ProblemOptionSet::all, false);
  cmd->add_option("--model", o->model_alias,
                  "with --llm openai:URL, the LLM model (as --llm-model); otherwise a model "
                  "preset (as --preset)");
  cmd->add_option("--seed", o->evo.seed, "seed of the evolution (same seed, same run)")
      ->check(integer_in(0, UINT64_MAX))
      ->capture_default_str();
  cmd->add_option("--budget", o->evo.budget, "programs to propose")
      ->check(integer_in(0, kMaxCount))
      ->capture_default_str();
  add_stagnation_option(*cmd, o->evo.stagnation);
  add_kernel_run_budget_option(*cmd, o->evo.kernel_runs);
  cmd->add_option("--target", o->evo.target_score,
                  "stop when the best train speedup over the expert reaches this (0 = never)")
      ->check(number_in(0, 1e6));
  cmd->add_option("--max-seconds", o->evo.max_seconds,
                  "stop after this wall time (0 = never; a time limit makes runs irreproducible)")
      ->check(number_in(0, 1e9));
  cmd->add_option("--batch", o->evo.batch, "programs proposed between database updates")
      ->check(integer_in(1, 1 << 20))
      ->capture_default_str();
  cmd->add_option("--candidates", o->evo.candidates,
                  "proposals per parent in one step (K): evaluated together, and when two or more "
                  "beat the parent their edits are merged into one more program; a batch then "
                  "holds max(1, batch / (K + 1)) parents")
      ->check(integer_in(1, 64))
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
  add_race_batch_option(*cmd, o->evo.cascade.race_batch);
  add_rule_penalty_option(*cmd, o->evo.rule_penalty);
  add_result_options(*cmd, o->evo);
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
  // Checkpoints by time by default: a long run's checkpoint grows to megabytes, and one
  // every N programs would write it many times a second.
  o->evo.checkpoint_every = 0;
  o->evo.checkpoint_seconds = 10;
  cmd->add_option("--checkpoint-every", o->evo.checkpoint_every,
                  "also write a checkpoint in the run directory after this many programs (0 = "
                  "by time alone)")
      ->check(integer_in(0, kMaxCount))
      ->capture_default_str();
  cmd->add_option("--checkpoint-seconds", o->evo.checkpoint_seconds,
                  "write a checkpoint in the run directory once this many seconds passed since "
                  "the last one (0 = by --checkpoint-every alone); where checkpoints fall changes "
                  "no result")
      ->check(number_in(0, 1e9))
      ->capture_default_str();
  cmd->add_option("--out", o->out,
                  "run directory: config, events.ndjson, checkpoint, best program, its exports "
                  "(exports/: C++, Python, Triton, JSON), lineage, per-shape view, summary "
                  "(`tilevolve serve` shows it live)");
  cmd->add_option("--resume", o->resume,
                  "continue the run in this directory from its checkpoint (all settings come "
                  "from its config.json)");
  add_llm_options(*cmd, o->llm);
  cmd->add_option("--export-vllm", o->export_vllm,
                  "also write the best program as a vLLM per-M config for the GEMM N,K (or the "
                  "MoE layer N,K,E) into DIR/exports/vllm/ (needs --out; the device name comes "
                  "from the GPU profile); repeat for more. exports/ always holds best.hpp, "
                  "best_heuristic.py, best_triton.py and best.json")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  cmd->add_flag("--json", o->json, "print one JSON summary object to stdout");
  cmd->add_flag("--explain", o->explain,
                "print the full account: the edit that made the program, where it parts from the "
                "tree, what each pass did, the noise and measurement report, the cost (as "
                "summary.txt has it)");
  cmd->add_flag("--quiet", o->quiet, "no progress line");
  add_threads_option(*cmd, o->threads, "building the time table and the baselines");
  // Measured runs.
  add_cache_option(*cmd, o->spec.cache);
  add_worker_options(*cmd, o->spec.workers);
  cmd->add_option("--probe-backend", o->probe_backend,
                  "where cascade stage 1 (the probe shapes) is timed: measured (the --backend "
                  "itself) or analytic (the model of the --gpu profile, no kernel runs)")
      ->capture_default_str();
  cmd->add_flag("--full-baselines", o->full_baselines,
                "--backend measured: measure every (shape, config) pair of the profile first "
                "(it prints the count), so the best single config, per-M table and oracle are "
                "searched over the whole space instead of over the configs measured");
  cmd->add_option("--noise-reps", o->noise_reps,
                  "time one typical kernel this many times at the start to measure the noise "
                  "(default 5 on a measured backend or a replay of one, else 0)");
  cmd->add_option("--noise-threshold", o->noise_threshold,
                  "a child counts as better than its parent, and as a new best, only when it is "
                  "faster by more than this fraction (default: the measured spread, 0 without "
                  "--noise-reps)");
  cmd->add_option("--confirm", o->confirm,
                  "re-measure a would-be new best this many more times before accepting it "
                  "(default 1 on a measured backend or a replay of one, else 0)");
  arrange_help(
      *cmd,
      {{"Problem",
        {"--gpu", "--shapes", "--workload-log", "--preset", "--tp", "--tokens", "--inline",
         "--test-shapes", "--split", "--split-seed", "--backend", "--vendor-dispatch", "--expert"}},
       {"Search",
        {"--seed", "--budget", "--stagnation", "--max-kernel-runs", "--max-seconds",
         "--candidates"}},
       {"Passes after the search", {"--skip-pass"}},
       {"Backend and workers", {"--cache", "--worker-cmd", "--devices", "--reps", "--warmup"}},
       {"LLM", {"--llm", "--llm-model", "--api-key-env", "--max-tokens", "--max-requests"}},
       {"Output", {"--out", "--resume", "--json", "--quiet", "--export-vllm", "--threads"}}},
      "Output");
  cmd->callback([o, cmd] {
    const bool replay = o->llm.llm.rfind("replay:", 0) == 0;
    if (!o->model_alias.empty()) {
      const bool server = o->llm.llm.rfind("openai:", 0) == 0;
      std::string& target = server ? o->llm.model : o->spec.model;
      if (!target.empty())
        throw InputError(fmt::format("--model means {} here and {} is given too; give one",
                                     server ? "--llm-model" : "--preset",
                                     server ? "--llm-model" : "--preset"));
      target = o->model_alias;
    }
    for (const CLI::Option* opt : cmd->get_options()) {
      const std::string n = opt->get_name();
      // Where and how a measured run measures (not what) may change on resume.
      bool where = false;
      for (const char* f : kResumableWorkerFlags)
        where = where || n == f;
      if (opt->count() == 0 || n == "--json" || n == "--quiet" || n == "--explain" ||
          n == "--help" || n == "--threads" || is_runtime_llm_flag(n) ||
          (where && !o->resume.empty()))
        continue;
      if (!o->resume.empty() && n != "--resume")
        throw InputError(fmt::format("--resume takes every setting from the run's config.json; "
                                     "do not combine it with {}",
                                     n));
      if (replay && n != "--llm" && n != "--out")
        throw InputError(fmt::format("--llm replay: takes every setting from the recorded run's "
                                     "config.json; do not combine it with {}",
                                     n));
      if (o->llm.llm == "mock")
        for (const char* f : kLlmFlags)
          if (n == f)
            throw InputError(fmt::format("{} applies to an LLM server (--llm openai:URL)", n));
    }
    if (!o->resume.empty() && std::filesystem::exists(o->resume + "/" + kMeasuredSettings)) {
      const auto given = [&](const char* name) { return cmd->get_option(name)->count() > 0; };
      load_measured_settings(o->resume, *o, given);
    }
    run_evolve(*o);
  });
}

} // namespace tv
