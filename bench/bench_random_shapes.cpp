// Benchmark: 10,000 random GEMM shapes x 1,000 programs on the analytic h100 model, the run of
// issue 63 (`scripts/random_shapes.py --count 10000 --seed 1`, then `tilevolve evolve --gpu h100
// --budget 1000 --shapes FILE`): loading the problem (its time table), the baselines, the search
// and each pass after it, timed apart. Target (issue 63): the whole under 5 s on 2 cores.
// Input: the shape set the script writes (standard library Python, run here into a temporary
// file; python3 must be on the PATH).
// Usage: bench_random_shapes [count=10000] [budget=1000] [repeats=1]
#include "bench/bench_target.hpp"
#include "eval/baselines.hpp"
#include "eval/problem.hpp"
#include "evolve/evolution.hpp"
#include "evolve/mock_llm.hpp"
#include "models/resource_dir.hpp"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fmt/format.h>
#include <string>
#include <unistd.h>
#include <vector>

static int bench_main(int argc, char** argv) {
  const int count = argc > 1 ? int(tv::bench::integer(argv[1])) : 10000;
  const long long budget = argc > 2 ? tv::bench::integer(argv[2]) : 1000;
  const int repeats = argc > 3 ? std::max(1, int(tv::bench::integer(argv[3]))) : 1;
  const std::string path = (std::filesystem::temp_directory_path() /
                            fmt::format("tilevolve_bench_random_{}_{}.csv", count, ::getpid()))
                               .string();
  const std::string script = tv::resource_dir() + "/scripts/random_shapes.py";
  const std::string cmd =
      fmt::format("python3 '{}' --count {} --seed 1 > '{}'", script, count, path);
  if (std::system(cmd.c_str()) != 0) {
    fmt::print(stderr, "bench_random_shapes: could not write the shapes: {}\n", cmd);
    return 2;
  }
  using Clock = std::chrono::steady_clock;
  std::vector<double> totals;
  for (int rep = 0; rep < repeats; ++rep) {
    const auto start = Clock::now();
    tv::bench::Laps laps;
    tv::ProblemSpec spec;
    spec.gpu = "h100";
    spec.shapes = path;
    auto p = tv::load_problem(spec);
    const double load = laps.lap();
    tv::MockLlm mutator(p->gpu, tv::mock_options_for(*p, {}));
    tv::EvolutionOptions o;
    o.budget = budget;
    const tv::EvolutionResult r = tv::Evolution(*p, mutator, o).run();
    const double evolution = laps.lap();
    const auto baselines = tv::compute_baselines(*p->train, *p->test, p->expert, p->backend.get(),
                                                 p->spec.tree_leaves);
    const double base = laps.lap();
    double passes = 0;
    std::string slow;
    for (const tv::PassReport& pass : r.passes) {
      passes += pass.seconds;
      if (pass.seconds >= 0.1) slow += fmt::format(", {} {:.2f} s", pass.name, pass.seconds);
    }
    totals.push_back(std::chrono::duration<double>(Clock::now() - start).count());
    fmt::print("bench_random_shapes: {} shapes x {} configs, {} programs: problem {:.2f} s, "
               "search {:.2f} s, passes {:.2f} s{}, baselines {:.2f} s; total {:.2f} s\n",
               count, p->table->configs().size(), r.programs, load, evolution - passes, passes,
               slow, base, totals.back());
  }
  std::filesystem::remove(path);
  std::sort(totals.begin(), totals.end());
  return tv::bench::report("bench_random_shapes",
                           {{"median total time", totals[totals.size() / 2], 5.0, true, "s"}});
}

int main(int argc, char** argv) {
  return tv::bench::run(
      argc, argv, "Usage: bench_random_shapes [count=10000] [budget=1000] [repeats=1]", bench_main);
}
