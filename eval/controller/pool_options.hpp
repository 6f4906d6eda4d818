#pragma once
/// How the device pool starts and talks to its workers (plain data, set from the command line).
#include <string>
#include <vector>

namespace tv {

/// Worker command, devices, limits and timing repetitions of a device pool.
struct PoolOptions {
  /// Command template run through /bin/sh -c, every "{device}" replaced by a device id; empty
  /// means the reference Triton worker (default_worker_command()).
  std::string command;
  /// Device ids to start one worker each for; empty means as many as the first worker (on
  /// device "0") reports.
  std::vector<std::string> devices;
  double timeout_s = 120; ///< silence (no reply while requests are out) that counts as a hang
  /// Seconds from a worker's start to its hello reply before the start counts as failed (a GPU
  /// worker imports torch and Triton and sets up its device first; kept apart from timeout_s
  /// so that a short hang limit for measuring does not fail slow starts).
  double start_timeout_s = 120;
  int inflight = 2;          ///< requests sent ahead to each worker (it compiles the next)
  int max_failed_starts = 3; ///< starts in a row without a good hello before a device retires
  /// First restart delay after a second fault in a row; it doubles with each further fault in a
  /// row, up to max_backoff_s (the first fault restarts at once).
  double backoff_s = 0.1;
  double max_backoff_s = 10;
  int max_faults_in_row = 10; ///< faults in a row without a result before a device retires
  /// Faults a pair must cause alone on a worker whose device has delivered a result (on two
  /// different devices while more than one such device is alive) before it is a poison pair.
  int poison_strikes = 3;
  /// Once a config is a poison pair on this many shapes of a dtype, one fault alone (on a
  /// device that has delivered results) makes it a poison pair on any other shape of that
  /// dtype: a config that crashes its worker on two shapes nearly always does on the rest, and
  /// each strike costs a worker restart (seconds on a GPU). 0: every pair needs poison_strikes.
  int poison_config_after = 2;
  int warmup = 5;        ///< untimed runs before each measurement
  int reps = 20;         ///< timed repetitions per measurement (the median is the result)
  bool progress = false; ///< draw a progress bar on stderr while measuring
};

/// `python3 <source>/eval/workers/triton_worker.py --device {device}`.
std::string default_worker_command();

} // namespace tv
