#include "cli/worker_options.hpp"

#include "ir/error.hpp"

namespace tv {

void add_worker_options(CLI::App& cmd, PoolOptions& pool, bool timing) {
  cmd.add_option("--worker-cmd", pool.command,
                 "worker command, run with /bin/sh -c once per device, {device} replaced by the "
                 "device id (e.g. \"ssh node7 python3 triton_worker.py --device {device}\", or "
                 "\"srun -N1 -n1 --gres=gpu:1 python3 triton_worker.py --device 0\": Slurm gives "
                 "each step a GPU of its own); default: the Triton worker, " +
                     default_worker_command());
  cmd.add_option("--devices", pool.devices,
                 "device ids, one worker each (e.g. 0,1,2,3); default: as many as the first "
                 "worker (device 0) reports")
      ->delimiter(',');
  cmd.add_option("--worker-timeout", pool.timeout_s,
                 "seconds a worker may stay silent while it has requests (or before answering "
                 "hello) before it counts as hung, is killed and restarted")
      ->capture_default_str();
  if (timing) {
    cmd.add_option("--reps", pool.reps, "timed repetitions per measurement (the median counts)")
        ->capture_default_str();
    cmd.add_option("--warmup", pool.warmup, "untimed runs before each measurement")
        ->capture_default_str();
  }
}

void add_cache_option(CLI::App& cmd, std::string& cache) {
  cache = kDefaultCache;
  cmd.add_option("--cache", cache,
                 "measurement file (version 2), read at start so nothing measured before is "
                 "measured again, and appended one line per result; --backend replay:FILE "
                 "replays it")
      ->capture_default_str();
}

void check_worker_options(const PoolOptions& pool) {
  if (!(pool.timeout_s > 0)) throw InputError("--worker-timeout must be positive");
  if (pool.reps < 1) throw InputError("--reps must be at least 1");
  if (pool.warmup < 0) throw InputError("--warmup must not be negative");
  for (const auto& d : pool.devices)
    if (d.empty()) throw InputError("--devices has an empty device id");
}

} // namespace tv
