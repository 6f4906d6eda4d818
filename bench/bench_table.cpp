// Benchmark: build the full lecture time table (88 shapes x all launchable configs) on a GPU
// profile with the analytic model. Target (issue 2): under 100 ms on 2 cores for h100.
// Usage: bench_table [gpu=h100] [repeats=10]
#include "bench/bench_target.hpp"
#include "models/data_dir.hpp"
#include "models/gpu.hpp"
#include "models/shape_file.hpp"
#include "models/time_table.hpp"

#include <algorithm>
#include <chrono>
#include <fmt/format.h>
#include <omp.h>
#include <string>
#include <vector>

static int bench_main(int argc, char** argv) {
  const std::string gpu_name = argc > 1 ? argv[1] : "h100";
  const int repeats = argc > 2 ? int(tv::bench::integer(argv[2])) : 10;
  const tv::Gpu gpu = tv::find_gpu(gpu_name);
  const auto shapes = tv::load_shape_file(tv::data_path("shapes/lecture.csv"));
  std::vector<double> ms;
  std::size_t configs = 0;
  for (int i = 0; i < repeats; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    const tv::TimeTable t = tv::build_model_table(shapes, gpu);
    const auto t1 = std::chrono::steady_clock::now();
    configs = t.configs().size();
    ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
  }
  std::sort(ms.begin(), ms.end());
  fmt::print("bench_table: {} shapes x {} configs on {} with {} threads: median {:.1f} ms, "
             "min {:.1f} ms over {} runs (target < 100 ms on 2 cores)\n",
             shapes.size(), configs, gpu.name, omp_get_max_threads(), ms[ms.size() / 2], ms[0],
             repeats);
  return tv::bench::report("bench_table", {{"median time", ms[ms.size() / 2], 100, true, "ms"}});
}

int main(int argc, char** argv) {
  return tv::bench::run(argc, argv, "Usage: bench_table [gpu=h100] [repeats=10]", bench_main);
}
