// Benchmark: one 1000-program evolution run on the lecture shapes, end to end (load the
// problem, build the table, evolve, score the best). Target (issue 3): under 1 s on 2 cores.
// Usage: bench_evolve [gpu=h100] [budget=1000] [repeats=5]
#include "bench/bench_target.hpp"
#include "eval/problem.hpp"
#include "evolve/evolution.hpp"
#include "evolve/mock_llm.hpp"

#include <algorithm>
#include <chrono>
#include <fmt/format.h>
#include <omp.h>
#include <string>
#include <vector>

static int bench_main(int argc, char** argv) {
  const std::string gpu = argc > 1 ? argv[1] : "h100";
  const long long budget = argc > 2 ? tv::bench::integer(argv[2]) : 1000;
  const int repeats = argc > 3 ? int(tv::bench::integer(argv[3])) : 5;
  std::vector<double> total, evolve_only;
  double fraction = 0;
  for (int i = 0; i < repeats; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    tv::ProblemSpec spec;
    spec.gpu = gpu;
    auto p = tv::load_problem(spec);
    tv::MockLlm m(p->gpu);
    tv::EvolutionOptions o;
    o.budget = budget;
    const auto t1 = std::chrono::steady_clock::now();
    const tv::EvolutionResult r = tv::Evolution(*p, m, o).run();
    const auto t2 = std::chrono::steady_clock::now();
    fraction = r.best_test.fraction_of_oracle;
    total.push_back(std::chrono::duration<double>(t2 - t0).count());
    evolve_only.push_back(std::chrono::duration<double>(t2 - t1).count());
  }
  std::sort(total.begin(), total.end());
  std::sort(evolve_only.begin(), evolve_only.end());
  fmt::print(
      "bench_evolve: {} programs on the lecture shapes ({}), {} threads: median {:.3f} s end "
      "to end ({:.3f} s in the loop), min {:.3f} s over {} runs (target < 1 s on 2 cores; "
      "test fraction of oracle {:.3f})\n",
      budget, gpu, omp_get_max_threads(), total[total.size() / 2],
      evolve_only[evolve_only.size() / 2], total[0], repeats, fraction);
  return tv::bench::report("bench_evolve",
                           {{"median time end to end", total[total.size() / 2], 1, true, "s"}});
}

int main(int argc, char** argv) {
  return tv::bench::run(argc, argv, "Usage: bench_evolve [gpu=h100] [budget=1000] [repeats=5]",
                        bench_main);
}
