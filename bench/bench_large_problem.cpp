// Benchmark: a problem of many shapes (issue 13: 100k shapes took 3.3 GB, the time table alone
// being shapes x configs doubles). Loads the problem (analytic h100 model, random split),
// computes the baselines, runs a short evolution, and prints each phase's time and the peak
// resident memory. Target: 100k shapes in under 1 GB.
// Input: N shapes from a fixed seed, Llama-like N and K, token counts 1 ... 8256, random weights,
// written as a shape CSV first (so the reader is part of it); `--write FILE` only writes it, for
//   /usr/bin/time -v ./build/tilevolve baselines --gpu h100 --shapes FILE
// Usage: bench_large_problem [shapes=100000] [budget=200] | bench_large_problem N --write FILE
#include "bench/bench_target.hpp"
#include "eval/baselines.hpp"
#include "eval/problem.hpp"
#include "evolve/evolution.hpp"
#include "evolve/mock_llm.hpp"
#include "ir/rng.hpp"

#include <cstdio>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <string>
#include <sys/resource.h>
#include <unistd.h>

namespace {

std::string shape_csv(int n) {
  tv::Rng rng(100000);
  const std::int64_t ms[] = {1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192};
  const std::int64_t ns[] = {1024, 2048, 4096, 5120, 8192, 14336, 28672};
  const std::int64_t ks[] = {1024, 2048, 4096, 8192, 14336};
  std::string out = "name,M,N,K,dtype,weight\n";
  for (int i = 0; i < n; ++i) {
    // Distinct (M, N, K) for every row: the offset of M grows with i.
    const std::int64_t M = ms[rng.index(14)] + i / 35;
    out += fmt::format("s{},{},{},{},bf16,{}\n", i, M, ns[i % 7], ks[(i / 7) % 5],
                       1 + rng.uniform_int(0, 98));
  }
  return out;
}

double peak_rss_mb() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return double(u.ru_maxrss) / 1024.0; // kilobytes on Linux
}

} // namespace

static int bench_main(int argc, char** argv) {
  const int n = argc > 1 ? int(tv::bench::integer(argv[1])) : 100000;
  if (argc > 2 && std::string(argv[2]) == "--write") {
    if (argc < 4) {
      fmt::print(stderr, "usage: bench_large_problem N --write FILE\n");
      return 2;
    }
    std::ofstream(argv[3]) << shape_csv(n);
    return 0;
  }
  const long long budget = argc > 2 ? tv::bench::integer(argv[2]) : 200;
  const std::string path = (std::filesystem::temp_directory_path() /
                            fmt::format("tilevolve_bench_{}_shapes_{}.csv", n, ::getpid()))
                               .string();
  std::ofstream(path) << shape_csv(n);
  tv::bench::Laps laps;
  tv::ProblemSpec spec;
  spec.gpu = "h100";
  spec.shapes = path;
  auto p = tv::load_problem(spec);
  std::filesystem::remove(path);
  fmt::print("bench_large_problem: {} shapes x {} configs ({} table): problem loaded in {:.1f} s, "
             "peak RSS {:.0f} MB\n",
             n, p->table->configs().size(), p->table->dense() ? "stored" : "computed", laps.lap(),
             peak_rss_mb());
  const auto baselines = tv::compute_baselines(*p->train, *p->test, p->expert, p->backend.get());
  fmt::print("bench_large_problem: baselines in {:.1f} s (oracle {:.1f}% on test), peak RSS "
             "{:.0f} MB\n",
             laps.lap(), 100 * baselines.back().test.fraction_of_oracle, peak_rss_mb());
  tv::MockLlm mutator(p->gpu, tv::mock_options_for(*p, {}));
  tv::EvolutionOptions o;
  o.budget = budget;
  const tv::EvolutionResult r = tv::Evolution(*p, mutator, o).run();
  fmt::print(
      "bench_large_problem: evolution of {} programs in {:.1f} s (best train {:.3f}x; "
      "{} kernel runs, {} of them polishing leaves), peak RSS {:.0f} MB (target < 1024 MB)\n",
      r.programs, laps.lap(), r.best.score, r.counters.kernel_runs,
      r.pass("leaf-polish")->kernel_runs, peak_rss_mb());
  return tv::bench::report("bench_large_problem", {{"peak RSS", peak_rss_mb(), 1024, true, "MB"}});
}

int main(int argc, char** argv) {
  return tv::bench::run(argc, argv,
                        "Usage: bench_large_problem [shapes=100000] [budget=200] | "
                        "bench_large_problem N --write FILE",
                        bench_main);
}
