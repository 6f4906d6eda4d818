#pragma once
/// The device pool's events: one JSON object per thing that happened to a device or a pair
/// (a worker fault and its restart, a pair retried alone, a poison pair, a retired device),
/// for a run's events.ndjson. Each carries no wall-clock data and only bounded text (a fault's
/// description and stderr lines are cut), and the log keeps at most kMaxPoolEvents over the
/// pool's life, counting the rest as dropped.
#include "eval/controller/worker_protocol.hpp"

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace tv {

/// Most events a pool keeps over its life; later ones are counted, not kept.
inline constexpr std::size_t kMaxPoolEvents = 10000;
/// Most bytes of one text field of an event (a fault's description, a retirement's reason).
inline constexpr std::size_t kMaxEventText = 1000;

/// A pair as events name it: {"shape", "config" (its brief form, or "vendor")}, with "sample"
/// when it is a re-measurement.
nlohmann::json event_pair(const MeasureJob& job);

/// What a worker fault did, for a worker_fault event.
struct FaultEvent {
  std::string device;                  ///< the device id
  std::string kind;                    ///< timeout, crash, garbage_line, unknown_id or bad_reply
  bool starting = false;               ///< it faulted before a good hello
  std::string error;                   ///< the fault, with the worker's exit and stderr lines
  std::vector<std::uint64_t> requests; ///< the ids it had not answered
  nlohmann::json pairs = nlohmann::json::array(); ///< their pairs (event_pair), in send order
  int faults_in_row = 0;  ///< faults since its last good reply, this one included
  std::string action;     ///< "restart" (at once), "back-off" (restart after backoff_s) or "retire"
  double backoff_s = 0;   ///< the delay before its restart
  long long restarts = 0; ///< restarts of this device so far, this one included
};

/// The first 80 bytes of a line from a worker, every byte outside printable ASCII as '?'
/// ("..." marks a cut), for messages and events.
std::string line_excerpt(const std::string& s);
/// The last `n` non-empty lines of a worker's stderr, each a line_excerpt(), joined with " | ".
std::string last_lines(const std::string& text, int n);
/// Text cut to kMaxEventText bytes ("..." marks a cut).
std::string event_text(const std::string& s);
/// {"event": "worker_fault", ...} from `f`.
nlohmann::json worker_fault_event(const FaultEvent& f);
/// {"event": "pair_retry", "device", pair, "faults", "strikes"}: a pair caught in `faults`
/// faults is sent alone to `device` (`strikes`: faults it caused alone).
nlohmann::json pair_retry_event(const std::string& device, const MeasureJob& job, int faults,
                                int strikes);
/// {"event": "poison_pair", "device", "devices", pair, "strikes", "error", "stderr"}.
nlohmann::json poison_pair_event(const std::string& device, const std::vector<std::string>& devices,
                                 const MeasureJob& job, int strikes, const std::string& error,
                                 const std::string& stderr_tail);
/// {"event": "device_retired", "device", "reason", "faults", "restarts", "failed_starts"}.
nlohmann::json device_retired_event(const std::string& device, const std::string& reason,
                                    long long faults, long long restarts, long long failed_starts);

/// The events of a pool, bounded: at most kMaxPoolEvents kept over its life.
class PoolEventLog {
public:
  /// Keeps `e`, or counts it as dropped once kMaxPoolEvents were kept.
  void add(nlohmann::json e);
  /// The events kept since the last call, in order.
  std::vector<nlohmann::json> take();
  /// Events not kept (over the limit).
  long long dropped() const { return dropped_; }

private:
  std::vector<nlohmann::json> pending_;
  std::size_t kept_ = 0;
  long long dropped_ = 0;
};

} // namespace tv
