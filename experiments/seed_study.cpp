#include "experiments/seed_study.hpp"

#include "ir/error.hpp"
#include "models/progress.hpp"

#include <cmath>
#include <exception>
#include <fmt/format.h>
#include <mutex>
#include <omp.h>
#include <stdexcept>

namespace tv {

std::vector<EvolutionResult> run_all(const std::vector<RunSpec>& specs, int threads) {
  const long long n = (long long)specs.size();
  std::vector<EvolutionResult> results(specs.size());
  std::vector<std::exception_ptr> errors(specs.size());
  // Runs share their Problem: its table and scorers are read-only, and the analytic backend
  // keeps no state. Other backends (replay files, live workers) are not assumed thread-safe.
  bool parallel = true;
  for (const auto& s : specs)
    if (!s.problem || s.problem->spec.backend != "analytic") parallel = false;
  const int nthreads = threads > 0 ? threads : omp_get_max_threads();
  // Progress in finished runs (a study of 60 splits x 5 seeds takes minutes); counted and
  // reported under one lock, so the reports arrive in order and the last is n of n.
  std::mutex progress;
  long long done = 0;
#pragma omp parallel for schedule(dynamic, 1) num_threads(nthreads) if (parallel && n > 1)
  for (long long i = 0; i < n; ++i) {
    try {
      const RunSpec& s = specs[std::size_t(i)];
      if (!s.problem) throw std::invalid_argument("run_all: a run has no problem");
      MockLlm mutator(s.problem->gpu, s.mutator);
      Evolution evo(*s.problem, mutator, s.options);
      results[std::size_t(i)] = evo.run();
    } catch (...) {
      errors[std::size_t(i)] = std::current_exception();
    }
    std::lock_guard<std::mutex> lock(progress);
    report_progress("evolution runs", std::size_t(++done), std::size_t(n));
  }
  for (const auto& e : errors)
    if (e) std::rethrow_exception(e);
  return results;
}

void check_seeds_and_budget(int seeds, long long budget) {
  if (seeds < 1) throw InputError(fmt::format("--seeds must be at least 1, got {}", seeds));
  if (budget < 0) throw InputError(fmt::format("--budget must not be negative, got {}", budget));
}

SeedStudy summarize_runs(std::string label, std::vector<EvolutionResult> runs) {
  SeedStudy s;
  s.label = std::move(label);
  std::vector<double> trf, tef, trs, tes, kr, full;
  for (const auto& r : runs) {
    trf.push_back(r.best_train.valid ? r.best_train.fraction_of_oracle : NAN);
    tef.push_back(r.best_test.valid ? r.best_test.fraction_of_oracle : NAN);
    trs.push_back(r.best_train.valid ? r.best_train.speedup_vs_expert : NAN);
    tes.push_back(r.best_test.valid ? r.best_test.speedup_vs_expert : NAN);
    kr.push_back(double(r.counters.kernel_runs));
    full.push_back(double(r.counters.full));
  }
  s.train_fraction = spread(trf);
  s.test_fraction = spread(tef);
  s.train_speedup = spread(trs);
  s.test_speedup = spread(tes);
  s.kernel_runs = spread(kr);
  s.full = spread(full);
  s.runs = std::move(runs);
  return s;
}

} // namespace tv
