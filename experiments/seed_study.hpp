#pragma once
/// Independent evolution runs done together (in parallel), and the summary of one method's
/// runs over seeds: median and range of its train and test figures and of its cost.
#include "eval/problem.hpp"
#include "evolve/evolution.hpp"
#include "evolve/mock_llm.hpp"
#include "experiments/spread.hpp"

#include <string>
#include <vector>

namespace tv {

/// One run to do: the problem (shared, read-only), the options (seed included) and the mock
/// LLM's knobs. Each run gets its own mutator, evaluator and database.
struct RunSpec {
  const Problem* problem = nullptr;
  EvolutionOptions options;
  MockLlmOptions mutator;
};

/// Runs every spec, in parallel with OpenMP (`threads` 0 = the OpenMP default) when every
/// problem uses the stateless analytic backend, otherwise one after another. Results come
/// back in spec order and do not depend on the thread count. Rethrows the first failure (in
/// spec order). Reports progress (models/progress.hpp) as "evolution runs", one report per
/// finished run, in order, the last n of n.
std::vector<EvolutionResult> run_all(const std::vector<RunSpec>& specs, int threads = 0);

/// Throws InputError unless `seeds` >= 1 and `budget` >= 0 (the options of every study).
void check_seeds_and_budget(int seeds, long long budget);

/// One method's runs over seeds.
struct SeedStudy {
  std::string label;
  std::vector<EvolutionResult> runs;    ///< in seed order
  Spread train_fraction, test_fraction; ///< fraction of the per-shape oracle
  Spread train_speedup, test_speedup;   ///< geomean speedup over the expert
  Spread kernel_runs, full;             ///< kernel runs and programs fully evaluated
};

/// Summarises `runs` under `label`.
SeedStudy summarize_runs(std::string label, std::vector<EvolutionResult> runs);

} // namespace tv
