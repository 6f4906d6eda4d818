#pragma once
/// The device pool: one worker process per device, fed over the worker protocol from one
/// poll() loop (no thread ever blocks on a worker). It keeps `inflight` requests out at each
/// worker so the worker always has the next pair ready, and it survives faults: a worker that
/// crashes, hangs past the timeout, prints a line that is not a reply, answers an id it was
/// not sent (a second reply to an id it answered is counted and ignored), or lies (a time with a
/// failed status) is killed and restarted (at once after its first fault, then after a back-off
/// that doubles with each fault in a row). Its unanswered requests are retried, each alone on a
/// worker (on another device where there is one), until they get a real answer, so a transient
/// fault never changes a result. Only a pair that faults alone on its worker three times, on two
/// different devices where more than one is alive (counting only devices that have delivered
/// results: a device that never did is broken, not the pair, and its faults are no strikes, then
/// or later; after each such fault the worker first
/// re-measures a pair that measured well, the canary, to show it still works), is a poison pair
/// (once its config is a poison pair on `poison_config_after` other shapes of its dtype, this
/// pool's or remembered from a measurement file, one such fault is enough):
/// its result is status crash (with the last fault and stderr lines), which the measured backend
/// records so that it is never sent again (`poison_strikes` in PoolOptions sets the three). A
/// device that fails to start `max_failed_starts` times in a row, or faults `max_faults_in_row`
/// times in a row without a result, is retired with its reason; a run ends for want of workers only
/// when every device is retired. Results already received are never lost; counters say what
/// happened, per pool and per device, and events (pool_events.hpp) say it one fault at a time.
#include "eval/controller/pool_counters.hpp"
#include "eval/controller/pool_events.hpp"
#include "eval/controller/pool_options.hpp"
#include "eval/controller/worker_protocol.hpp"

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

namespace tv {

/// One device of the pool, as its worker reported it.
struct DeviceInfo {
  std::string id;      ///< what replaced {device}
  std::string command; ///< the command that was run
  HelloReply hello;    ///< the last good hello (device name, backend, worker version)
  bool healthy = false;
  bool retired = false; ///< retired for good (it will not be started again)
  std::string error;    ///< why it retired, or its last fault while it restarts
  long long done = 0;   ///< results it delivered
  double busy_s = 0;    ///< time it had requests outstanding
  long long faults = 0; ///< faults of its worker (each one killed it)
  /// Its faults by kind: timeout, crash, garbage_line, unknown_id, bad_reply.
  std::map<std::string, long long> fault_kinds;
  long long restarts = 0;      ///< times its worker was started again
  long long failed_starts = 0; ///< starts that did not end in a good hello
  long long poison = 0;        ///< poison pairs whose last fault was here
  std::string last_fault;      ///< the last fault, with the worker's exit and stderr lines
};

/// One finished job.
struct PoolResult {
  MeasureReply reply;
  bool controller_error = false; ///< status error made by the pool (no worker left)
  bool poison = false;           ///< status crash made by the pool: a poison pair (record it)
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
  /// True while at least one device is not retired for good (ready, starting or waiting to
  /// restart): a run goes on.
  bool any_alive() const;
  /// Measures every job; results in job order. Calls `progress` about ten times a second, and
  /// `finished` once per job as soon as its result is final (so a caller can keep each result
  /// before the run ends: an interrupted run loses only the pairs in flight). Jobs still
  /// unanswered when every device is retired become controller errors.
  std::vector<PoolResult>
  run(const std::vector<MeasureJob>& jobs,
      const std::function<void(const PoolProgress&)>& progress = {},
      const std::function<void(std::size_t job, const PoolResult&)>& finished = {});
  /// Counters over the pool's life.
  const PoolCounters& counters() const { return counters_; }
  /// What happened since the last call, one event per worker fault, pair retried alone,
  /// poison pair and retired device (pool_events.hpp), in order.
  std::vector<nlohmann::json> take_events() { return events_.take(); }
  /// Events over kMaxPoolEvents, counted and not kept.
  long long events_dropped() const { return events_.dropped(); }
  /// Tells the pool that (`shape`, `config`) was found to be a poison pair before it started
  /// (a measurement file's status crash), so that it counts towards `poison_config_after`
  /// like a poison pair of this pool's own.
  void remember_poison(const Shape& shape, const Config& config, bool vendor);
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
  void retire(std::size_t slot, const std::string& why);
  void strike(std::size_t slot, std::size_t job, const std::string& what,
              const std::string& stderr_tail);
  bool send_job(std::size_t slot, std::size_t job);
  /// The key of poison_shapes_ for a pair's config (the vendor library: one key per dtype).
  static std::tuple<Config, DType, bool> poison_key(const Config& config, DType dtype, bool vendor);

  PoolOptions options_;
  std::vector<std::unique_ptr<Slot>> slots_;
  std::vector<DeviceInfo> info_;
  PoolCounters counters_;
  PoolEventLog events_;
  std::uint64_t next_id_ = 1;
  /// The shapes on which each (config, dtype, vendor) has been a poison pair, over the pool's
  /// life and as remembered from a measurement file (PoolOptions::poison_config_after).
  std::map<std::tuple<Config, DType, bool>, std::set<ShapeKey>> poison_shapes_;
  // State of the current run().
  const std::vector<MeasureJob>* jobs_ = nullptr;
  std::vector<PoolResult>* results_ = nullptr;
  std::vector<int> attempts_;             ///< faults each job was caught in
  std::vector<std::vector<int>> strikes_; ///< devices where each job faulted alone (a suspect
                                          ///< avoids them)
  /// Of those, the faults on devices that had delivered a result: the strikes that count.
  std::vector<std::vector<int>> counted_strikes_;
  std::vector<char> suspect_;         ///< caught in a fault: retried alone
  std::vector<std::size_t> pending_;  ///< job indices waiting, next at the back
  std::vector<std::size_t> suspects_; ///< suspect jobs waiting, next at the front
  std::optional<MeasureJob> canary_;  ///< the last pair that measured ok
  std::size_t done_ = 0;
  std::vector<long long> run_done_;
  const std::function<void(std::size_t, const PoolResult&)>* finished_ = nullptr;
  /// Counts job `j` done and hands its result to the run's `finished` callback.
  void finish(std::size_t j);
};

} // namespace tv
