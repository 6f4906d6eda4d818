#pragma once
/// Ablations: the same evolution with one part changed, over seeds, reported as median and
/// range of quality (fraction of the oracle on train and test) and cost (kernel runs,
/// programs fully evaluated), with the computed differences.
///   operators - the full mock LLM vs one-field edits only (the "small LLM");
///   cascade   - probe stage on vs off (every launchable child fully timed);
///   database  - the default islands vs a single island;
///   features  - splits bounding M only (the default) vs M, N and K.
#include "eval/baselines.hpp"
#include "evolve/evolution.hpp"
#include "evolve/mock_llm.hpp"
#include "experiments/report.hpp"
#include "experiments/seed_study.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tv {

/// Which part of the system is ablated.
enum class AblationKind { operators, cascade, database, features };

/// "operators", "cascade", "database" or "features".
std::string_view ablation_name(AblationKind k);
/// Parses an ablation name; nullopt when unknown.
std::optional<AblationKind> parse_ablation(std::string_view name);

/// What an ablation runs.
struct AblationOptions {
  std::string gpu = "h100";
  long long budget = 1000; ///< programs per run
  int seeds = 5;           ///< runs per arm (seeds 0 .. seeds-1)
  std::string split = "random";
  int threads = 0; ///< OpenMP threads for the runs (0 = default)
};

/// One variant of the setup and its runs.
struct AblationArm {
  std::string label;
  EvolutionOptions options; ///< seed and budget are set per run
  MockLlmOptions mutator;
  SeedStudy study;
};

/// Both arms (the full system first), the baselines of the problem, and the report.
struct AblationResult {
  AblationKind kind = AblationKind::operators;
  AblationOptions options;
  std::string split_description;
  std::vector<AblationArm> arms;
  std::vector<MethodResult> baselines;
  long long exhaustive_train = 0, exhaustive_all = 0;
  Report report;
};

/// Runs both arms over the seeds (in parallel; results do not depend on the thread count);
/// throws InputError for bad options (seeds < 1, budget < 0, unknown GPU or split).
AblationResult run_ablation(AblationKind kind, const AblationOptions& options);

} // namespace tv
