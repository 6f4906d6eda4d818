// Benchmark: the device pool keeps its workers busy. Four fake workers that each take 5 ms per
// pair measure a 2,000-pair job; the ideal wall time is 2000 x 5 ms / 4 = 2.5 s. Target
// (issue 10): every worker busy at least 90% of the job's wall time.
// Usage: bench_pool [workers=4] [pairs=2000] [ms_per_pair=5] [inflight=2]
//
// Two busy figures per worker: "computing" is the time the worker itself spent on pairs
// (pairs it answered x ms per pair: the fake sleeps exactly that long per pair), the honest
// figure for the target; "held" is the time the pool had requests out at it.
#include "eval/controller/device_pool.hpp"
#include "models/data_dir.hpp"
#include "models/shape_file.hpp"

#include <chrono>
#include <fmt/format.h>
#include <string>
#include <vector>

int main(int argc, char** argv) {
  const int workers = argc > 1 ? std::stoi(argv[1]) : 4;
  const std::size_t pairs = argc > 2 ? std::stoul(argv[2]) : 2000;
  const int ms = argc > 3 ? std::stoi(argv[3]) : 5;
  const int inflight = argc > 4 ? std::stoi(argv[4]) : 2;

  tv::PoolOptions o;
  o.command = fmt::format("'{}' --device {{device}} --slow-ms {}", TILEVOLVE_FAKE_WORKER, ms);
  for (int d = 0; d < workers; ++d)
    o.devices.push_back(std::to_string(d));
  o.inflight = inflight;
  o.reps = 3;
  tv::DevicePool pool(o);

  const std::vector<tv::Shape> shapes = tv::load_shape_file(tv::data_path("shapes/lecture.csv"));
  std::vector<tv::MeasureJob> jobs(pairs);
  for (std::size_t i = 0; i < pairs; ++i) {
    jobs[i].shape = shapes[i % shapes.size()];
    jobs[i].config.BM = 16 << (i / shapes.size() % 4); // 16, 32, 64, 128: all launchable
    jobs[i].reps = 3;
  }
  const auto t0 = std::chrono::steady_clock::now();
  const auto results = pool.run(jobs);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  std::size_t ok = 0;
  for (const auto& r : results)
    ok += r.reply.status == tv::MeasureStatus::ok;
  double worst = 1;
  fmt::print("bench_pool: {} workers x {} ms per pair, {} pairs ({} ok) in {:.3f} s (ideal {:.3f} "
             "s), {} requests in flight per worker\n",
             workers, ms, pairs, ok, wall, double(pairs) * ms / 1000.0 / workers, inflight);
  for (const auto& d : pool.devices()) {
    const double computing = double(d.done) * ms / 1000.0 / wall;
    worst = std::min(worst, computing);
    fmt::print("  worker {}: {} pairs, computing {:.1f}% of the wall time, held {:.1f}%\n", d.id,
               d.done, 100 * computing, 100 * d.busy_s / wall);
  }
  fmt::print("  all workers: computing {:.1f}% of worker time (the least busy {:.1f}%; target "
             ">= 90%); {}\n",
             100 * double(pairs) * ms / 1000.0 / (wall * workers), 100 * worst,
             pool.counters().faults());
  return ok == pairs ? 0 : 1;
}
