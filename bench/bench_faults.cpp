// Benchmark: the cost of worker faults. Four fake workers that each take 5 ms per pair measure
// a 2,000-pair job twice: once healthy, once in the fake worker's random fault mode at 5% (each
// faulty request a garbage line, a reply to an id not sent, a time with a failed status, a
// crash, a hang or a duplicate reply, drawn per request). Target (issue 19): the faulty run's
// wall time at most 1.5x the healthy run's, with every result the same.
// Usage: bench_faults [workers=4] [pairs=2000] [ms_per_pair=5] [fault_rate=0.05]
//                     [worker_timeout_s=0.1] [fault_seed=1]
//
// A hang costs the worker timeout (the controller cannot tell a hang from a slow pair sooner),
// so the figure depends on it: 0.1 s here, 20 pairs' time.
#include "bench/bench_target.hpp"
#include "eval/controller/device_pool.hpp"
#include "models/data_dir.hpp"
#include "models/shape_file.hpp"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fmt/format.h>
#include <string>
#include <vector>

namespace {

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

struct Run {
  double wall = 0;
  std::vector<tv::PoolResult> results;
  tv::PoolCounters counters;
};

Run measure(const tv::PoolOptions& o, const std::vector<tv::MeasureJob>& jobs) {
  tv::DevicePool pool(o);
  Run r;
  const double t0 = now_s();
  r.results = pool.run(jobs);
  r.wall = now_s() - t0;
  r.counters = pool.counters();
  return r;
}

} // namespace

static int bench_main(int argc, char** argv) {
  const int workers = argc > 1 ? int(tv::bench::integer(argv[1])) : 4;
  const std::size_t pairs = argc > 2 ? std::size_t(tv::bench::integer(argv[2])) : 2000;
  const int ms = argc > 3 ? int(tv::bench::integer(argv[3])) : 5;
  const double rate = argc > 4 ? tv::bench::number(argv[4]) : 0.05;
  const double timeout = argc > 5 ? tv::bench::number(argv[5]) : 0.1;
  const int seed = argc > 6 ? int(tv::bench::integer(argv[6])) : 1;

  tv::PoolOptions o;
  o.command = fmt::format("'{}' --device {{device}} --slow-ms {}", TILEVOLVE_FAKE_WORKER, ms);
  for (int d = 0; d < workers; ++d)
    o.devices.push_back(std::to_string(d));
  o.reps = 3;
  o.timeout_s = timeout;

  const std::vector<tv::Shape> shapes = tv::load_shape_file(tv::data_path("shapes/lecture.csv"));
  std::vector<tv::MeasureJob> jobs(pairs);
  for (std::size_t i = 0; i < pairs; ++i) {
    jobs[i].shape = shapes[i % shapes.size()];
    jobs[i].config.BM = 16 << (i / shapes.size() % 4); // 16, 32, 64, 128: all launchable
    jobs[i].reps = 3;
  }
  const Run healthy = measure(o, jobs);
  tv::PoolOptions faulty = o;
  faulty.command += fmt::format(" --fault-rate {} --fault-seed {}", rate, seed);
  const Run faults = measure(faulty, jobs);

  std::size_t same = 0, ok = 0;
  for (std::size_t i = 0; i < pairs; ++i) {
    ok += faults.results[i].reply.status == tv::MeasureStatus::ok;
    same += faults.results[i].reply.status == healthy.results[i].reply.status &&
            faults.results[i].reply.seconds == healthy.results[i].reply.seconds;
  }
  const double ratio = faults.wall / healthy.wall;
  const bool met = ratio <= 1.5 && same == pairs;
  fmt::print("bench_faults: {} workers x {} ms per pair, {} pairs, worker timeout {} s\n", workers,
             ms, pairs, timeout);
  fmt::print("  healthy: {:.3f} s ({})\n", healthy.wall, healthy.counters.faults());
  fmt::print("  {:.0f}% faults (seed {}): {:.3f} s, {} of {} results ok and {} the same as "
             "healthy ({})\n",
             100 * rate, seed, faults.wall, ok, pairs, same, faults.counters.faults());
  fmt::print("  faulty / healthy wall time: {:.2f}x (target <= 1.5x){}\n", ratio,
             met ? "" : "  MISSED");
  return met ? 0 : 1;
}

int main(int argc, char** argv) {
  return tv::bench::run(argc, argv,
                        "Usage: bench_faults [workers=4] [pairs=2000] [ms_per_pair=5] "
                        "[fault_rate=0.05] [worker_timeout_s=0.1] [fault_seed=1]",
                        bench_main);
}
