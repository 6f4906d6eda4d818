#pragma once
/// The lecture: four demos on the analytic model, every figure computed in this run.
///   1. the problem: shapes, per-shape oracle configs, the expert, baselines and their cost;
///   2. one evolution run: improvements, per-operator success, the simplified best program and
///      the SEARCH/REPLACE edit that produced it;
///   3. generalization: random split vs train on one model / test on the other, over seeds;
///   4. cost: where the programs stopped in the cascade, kernel runs vs exhaustive tuning.
/// The result is structured (for checks) and carries the report (text, Markdown, plots).
#include "eval/baselines.hpp"
#include "evolve/evolution.hpp"
#include "experiments/report.hpp"
#include "experiments/seed_study.hpp"
#include "ir/config.hpp"
#include "ir/shape.hpp"

#include <string>
#include <vector>

namespace tv {

/// What the lecture runs.
struct LectureOptions {
  std::string gpu = "h100";
  long long budget = 1000; ///< programs per run
  int seeds = 5;           ///< runs per split in demo 3 (seed 0 is also demo 2's run)
  std::string model_split = "model:llama3-8b"; ///< the second split of demo 3
  int threads = 0;                             ///< OpenMP threads for the runs (0 = default)
  std::string lang = "en"; ///< the report's language: a catalogue data/lang/LANG.json
};

/// One row of demo 1's oracle table.
struct OracleRow {
  Shape shape;
  Config oracle, expert;
  double oracle_seconds = 0, expert_seconds = 0;
  int near_ties = 0; ///< configs within 1% of the oracle time
};

/// One split of demo 3.
struct SplitOutcome {
  std::string spec;             ///< "random" or "model:NAME"
  std::string label;            ///< human name, in the report's language
  std::uint64_t split_seed = 0; ///< the seed of a random split
  std::string description;      ///< the problem's split description
  std::size_t train_shapes = 0, test_shapes = 0;
  SeedStudy evolved;
  std::vector<MethodResult> baselines; ///< expert, best single, per-M table, oracle
};

/// Demo 4's figures for demo 2's run.
struct CostFigures {
  Counters counters;              ///< of demo 2's run
  long long exhaustive_train = 0; ///< configs x training shapes
  long long exhaustive_all = 0;   ///< configs x all shapes
  long long configs = 0;          ///< kernel runs to tune one new shape exhaustively
};

/// Everything the lecture computed, and its report.
struct LectureResult {
  LectureOptions options;
  std::string gpu_name;
  std::size_t shapes = 0, configs = 0;
  std::vector<OracleRow> oracle_rows;         ///< demo 1
  std::vector<MethodResult> baselines;        ///< demo 1, random split
  EvolutionResult run;                        ///< demo 2 (random split, seed 0)
  bool simplified_equivalent = false;         ///< simplify(best) decides like best on every shape
  SetScore simplified_train, simplified_test; ///< figures of the simplified best program
  std::vector<SplitOutcome> splits;           ///< demo 3: random first, then the model split
  CostFigures cost;                           ///< demo 4
  Report report;
};

/// Runs the four demos; throws InputError for bad options (unknown GPU or language, seeds < 1,
/// budget < 0) or inputs.
LectureResult run_lecture(const LectureOptions& options);

} // namespace tv
