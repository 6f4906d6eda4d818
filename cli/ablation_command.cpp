#include "cli/ablation_command.hpp"

#include "cli/experiment_options.hpp"
#include "cli/number_checks.hpp"
#include "cli/problem_options.hpp"
#include "experiments/ablation.hpp"
#include "ir/error.hpp"

#include <fmt/format.h>
#include <memory>

namespace tv {

namespace {

struct AblationCommandOptions {
  std::string which;
  AblationOptions ablation;
  std::string out;
};

void run_ablation_command(const AblationCommandOptions& o) {
  const auto kind = parse_ablation(o.which);
  if (!kind)
    throw InputError(fmt::format(
        "unknown ablation '{}' (expected operators, cascade, database or features)", o.which));
  check_report_dir(o.out);
  const AblationResult r = run_ablation(*kind, o.ablation);
  fmt::print("{}", r.report.text());
  if (!o.out.empty()) {
    r.report.write(o.out);
    fmt::print("\nReport written to {}/report.md with {} plots.\n", o.out, r.report.files.size());
  }
}

} // namespace

void add_ablation_command(CLI::App& app) {
  auto o = std::make_shared<AblationCommandOptions>();
  CLI::App* cmd = app.add_subcommand(
      "ablate", "Ablations over seeds: mutation operators (full mock LLM vs one-field edits), "
                "cascade (probe stage on vs off), database (islands vs one population), "
                "features (splits bound M vs M, N, K)");
  cmd->add_option("which", o->which, "what to ablate: operators, cascade, database or features")
      ->required();
  o->ablation.gpu = kDefaultGpu;
  add_gpu_option(*cmd, o->ablation.gpu);
  cmd->add_option("--budget", o->ablation.budget, "programs proposed per evolution run")
      ->check(integer_in(0, kMaxCount))
      ->capture_default_str();
  cmd->add_option("--seeds", o->ablation.seeds, "runs per variant (seeds 0 .. N-1)")
      ->check(integer_in(1, 10000))
      ->capture_default_str();
  cmd->add_option("--split", o->ablation.split,
                  "train/test split: random (half/half) or model:NAME (train on NAME:*)")
      ->capture_default_str();
  add_threads_option(*cmd, o->ablation.threads);
  cmd->add_option("--out", o->out, "write report.md and the SVG plots into this directory");
  cmd->callback([o] { run_ablation_command(*o); });
}

} // namespace tv
