#pragma once
/// The device pool: one worker process per device, fed over the worker protocol from one
/// poll() loop (no thread ever blocks on a worker). It keeps `inflight` requests out at each
/// worker so the worker always has the next pair ready, and it survives faults: a worker that
/// crashes, hangs past the timeout, prints a line that is not a reply, answers an id it was
/// not sent, or lies (a time with a failed status) is killed and restarted, its unanswered
/// requests re-queued once on any healthy worker; a request that is caught in a fault twice
/// becomes `error` for that pair only. Results already received are never lost; counters say
/// what happened.
#include "eval/controller/pool_options.hpp"
#include "eval/controller/worker_protocol.hpp"

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace tv {

/// What happened in a pool, summed over its life.
struct PoolCounters {
  long long sent = 0;          ///< measure requests written to workers
  long long measured = 0;      ///< replies accepted as results
  long long restarts = 0;      ///< workers killed and started again
  long long requeued = 0;      ///< requests handed to another worker after a fault
  long long errors = 0;        ///< requests given up after their second fault (status error)
  long long timeouts = 0;      ///< workers silent past the timeout
  long long crashes = 0;       ///< workers that exited or closed stdout
  long long garbage_lines = 0; ///< lines that were not a reply (not JSON, no id, too long)
  long long unknown_ids = 0;   ///< replies for an id the worker was not sent
  long long bad_replies = 0;   ///< malformed replies or lies (a time with a failed status)
  long long failed_starts = 0; ///< starts that did not end in a good hello
  /// All fields as a JSON object.
  nlohmann::json to_json() const;
  /// "restarts 1, re-queued 2, timeouts 1, ..." (the non-zero fault counters), or "no faults".
  std::string faults() const;
};

/// One device of the pool, as its worker reported it.
struct DeviceInfo {
  std::string id;      ///< what replaced {device}
  std::string command; ///< the command that was run
  HelloReply hello;    ///< the last good hello (device name, backend, worker version)
  bool healthy = false;
  std::string error;  ///< why it retired, when not healthy
  long long done = 0; ///< results it delivered
  double busy_s = 0;  ///< time it had requests outstanding
};

/// One finished job.
struct PoolResult {
  MeasureReply reply;
  bool controller_error = false; ///< status error made by the pool (faults), not by the worker
  int device = -1;               ///< index into devices() of the worker that answered
};

/// Progress of one run(), for a progress bar.
struct PoolProgress {
  std::size_t done = 0, total = 0;
  std::vector<long long> done_per_device; ///< this run's results per device
  std::vector<int> inflight_per_device;
  double elapsed_s = 0;
};

/// Worker processes for a set of devices.
class DevicePool {
public:
  /// Starts one worker per device and waits for their hellos (or their failures, reported in
  /// devices()). With no devices given, starts device "0" and then as many more as it
  /// reports. Ignores SIGPIPE for the whole process (writes to dead workers must fail, not
  /// kill). Throws InputError only for an empty command.
  explicit DevicePool(PoolOptions options);
  /// Shuts the workers down (shutdown request, then kill after a grace period).
  ~DevicePool();
  DevicePool(const DevicePool&) = delete;
  DevicePool& operator=(const DevicePool&) = delete;

  /// The devices, in start order.
  const std::vector<DeviceInfo>& devices() const { return info_; }
  /// True while at least one worker can take requests.
  bool any_healthy() const;
  /// Measures every job; results in job order. Calls `progress` about ten times a second.
  /// Jobs still unanswered when no worker is left become controller errors.
  std::vector<PoolResult> run(const std::vector<MeasureJob>& jobs,
                              const std::function<void(const PoolProgress&)>& progress = {});
  /// Counters over the pool's life.
  const PoolCounters& counters() const { return counters_; }
  /// Asks every worker to exit and waits up to `grace_s`, then kills what is left.
  void shutdown(double grace_s = 2.0);

private:
  struct Slot;
  using Clock = std::chrono::steady_clock;
  void start(std::size_t slot);
  void fault(std::size_t slot, long long PoolCounters::*counter, const std::string& why);
  void handle_line(std::size_t slot, const std::string& line);
  void pump(Clock::duration max_wait);
  bool starting() const;
  void dispatch();

  PoolOptions options_;
  std::vector<std::unique_ptr<Slot>> slots_;
  std::vector<DeviceInfo> info_;
  PoolCounters counters_;
  std::uint64_t next_id_ = 1;
  // State of the current run().
  const std::vector<MeasureJob>* jobs_ = nullptr;
  std::vector<PoolResult>* results_ = nullptr;
  std::vector<int> attempts_;
  std::vector<std::size_t> pending_; ///< job indices waiting, next at the back
  std::size_t done_ = 0;
  std::vector<long long> run_done_;
};

} // namespace tv
