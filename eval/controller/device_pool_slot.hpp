#pragma once
/// The device pool's private parts, shared by device_pool.cpp (dispatch, replies, the loop) and
/// device_pool_faults.cpp (faults, poison pairs, retirement): one worker's slot, the canary's
/// job index and the duration type. Not for other includes.
#include "eval/controller/device_pool.hpp"
#include "eval/controller/worker_process.hpp"

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

namespace tv {

namespace device_pool_detail {

using Seconds = std::chrono::duration<double>;

/// The job index of the canary: a pair that measured well before, sent alone to a worker
/// after a pair faulted alone on it, so that a device that works again proves it (and one
/// that faults on everything is retired, not taken for poison pairs).
inline constexpr std::size_t kCanary = std::size_t(-1);

} // namespace device_pool_detail

struct DevicePool::Slot {
  /// waiting: killed after a fault, to be started again at `restart_at` (the back-off).
  enum class State { starting, ready, waiting, retired };
  std::unique_ptr<WorkerProcess> proc;
  State state = State::starting;
  Clock::time_point deadline, restart_at;
  /// (request id, job index), in the order they were sent.
  std::vector<std::pair<std::uint64_t, std::size_t>> outstanding;
  bool isolated = false;               ///< its one outstanding request is a suspect, sent alone
  bool owes_proof = false;             ///< a pair faulted alone here: it measures the canary first
  std::vector<std::uint64_t> answered; ///< the last ids this process answered
  int consecutive_faults = 0;          ///< faults since its last good reply
  int failed_starts = 0;               ///< starts in a row that did not end in a good hello
  int generation = 0; ///< incremented at every start, to drop events of a dead process
  Clock::time_point busy_since;
};

} // namespace tv
