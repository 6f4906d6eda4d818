#pragma once
/// The device pool's counters: what happened to its requests and workers, summed over its life.
#include <nlohmann/json.hpp>
#include <string>

namespace tv {

/// What happened in a pool, summed over its life.
struct PoolCounters {
  long long sent = 0;          ///< measure requests written to workers
  long long measured = 0;      ///< replies accepted as results
  long long restarts = 0;      ///< workers killed and started again
  long long requeued = 0;      ///< requests handed to another worker after a fault
  long long errors = 0;        ///< requests left unanswered when every device retired
  long long isolated = 0;      ///< retries sent alone to a worker after a fault
  long long poison = 0;        ///< poison pairs (status crash): faulted alone three times
  long long canaries = 0;      ///< pairs that measured well, re-sent after a pair faulted alone
  long long duplicates = 0;    ///< second replies to an id already answered (ignored)
  long long timeouts = 0;      ///< workers silent past the timeout
  long long crashes = 0;       ///< workers that exited or closed stdout
  long long garbage_lines = 0; ///< lines that were not a reply (not JSON, no id, too long)
  long long unknown_ids = 0;   ///< replies for an id the worker was not sent
  long long bad_replies = 0;   ///< malformed replies or lies (a time with a failed status)
  long long failed_starts = 0; ///< starts that did not end in a good hello
  long long retired = 0;       ///< devices retired for good
  /// All fields as a JSON object.
  nlohmann::json to_json() const;
  /// "restarts 1, re-queued 2, timeouts 1, ..." (the non-zero fault counters), or "no faults".
  std::string faults() const;
};

} // namespace tv
