#include "cli/worker_options.hpp"

#include "cli/number_checks.hpp"
#include "ir/error.hpp"

#include <fmt/format.h>

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
                 "seconds a worker may stay silent while it has requests before it counts as "
                 "hung, is killed and restarted")
      ->capture_default_str();
  cmd.add_option("--worker-start-timeout", pool.start_timeout_s,
                 "seconds a worker may take from its start to its hello reply (importing torch "
                 "and Triton, setting up its device) before the start counts as failed")
      ->capture_default_str();
  cmd.add_option("--worker-backoff", pool.backoff_s,
                 "seconds before a worker is started again after its second fault in a row (the "
                 "first restarts it at once); doubled with each further fault in a row, up to "
                 "--worker-max-backoff")
      ->check(number_in(0, 3600))
      ->capture_default_str();
  cmd.add_option("--worker-max-backoff", pool.max_backoff_s,
                 "the longest wait before a restart, in seconds")
      ->check(number_in(0, 86400))
      ->capture_default_str();
  cmd.add_option("--worker-max-failed-starts", pool.max_failed_starts,
                 "starts in a row that end without a good hello before a device is retired")
      ->check(integer_in(1, 1000000))
      ->capture_default_str();
  if (timing) {
    cmd.add_option("--reps", pool.reps, "timed repetitions per measurement (the median counts)")
        ->capture_default_str();
    cmd.add_option("--warmup", pool.warmup, "untimed runs before each measurement")
        ->capture_default_str();
    cmd.add_option("--worker-max-faults", pool.max_faults_in_row,
                   "faults in a row without a result before a device is retired")
        ->check(integer_in(1, 1000000))
        ->capture_default_str();
    cmd.add_option("--poison-strikes", pool.poison_strikes,
                   "faults a pair must cause alone on its worker before it is a poison pair "
                   "(status crash, recorded, never sent again); while more than one device "
                   "that has delivered a result is alive they must fall on two different "
                   "devices (a device that never delivered one makes no strikes)")
        ->check(integer_in(1, 1000))
        ->capture_default_str();
    cmd.add_option("--poison-config-after", pool.poison_config_after,
                   "once a config is a poison pair on this many shapes of a dtype, one fault "
                   "alone makes it a poison pair on any other shape of that dtype (0: never); "
                   "the poison pairs in the measurement file count, those another run appends "
                   "meanwhile too")
        ->check(integer_in(0, 1000000))
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
  if (!(pool.start_timeout_s > 0)) throw InputError("--worker-start-timeout must be positive");
  if (pool.reps < 1) throw InputError("--reps must be at least 1");
  if (pool.warmup < 0) throw InputError("--warmup must not be negative");
  if (!(pool.max_backoff_s >= pool.backoff_s))
    throw InputError(fmt::format("--worker-max-backoff ({} s) must not be below --worker-backoff "
                                 "({} s)",
                                 pool.max_backoff_s, pool.backoff_s));
  for (const auto& d : pool.devices)
    if (d.empty()) throw InputError("--devices has an empty device id");
}

} // namespace tv
