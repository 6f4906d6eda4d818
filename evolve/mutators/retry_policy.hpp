#pragma once
/// When to try a chat request again: exponential backoff with seeded jitter, and the
/// server's Retry-After as a lower bound.
#include <cstdint>
#include <string_view>

namespace tv {

/// Retries and waits.
struct RetryPolicy {
  int retries = 4;          ///< attempts after the first
  double backoff_s = 1.0;   ///< base wait before the first retry; doubles with each retry
  double max_wait_s = 60.0; ///< no single wait is longer, Retry-After included

  /// Seconds to wait before retry number `retry` (1 for the first): backoff_s * 2^(retry-1)
  /// times a jitter factor in [0.5, 1) drawn from `jitter_seed`, at least `retry_after_s`
  /// (when >= 0), at most max_wait_s.
  double wait(int retry, double retry_after_s, std::uint64_t jitter_seed) const;
};

/// A Retry-After header in seconds (a non-negative number; decimals are accepted), or -1
/// for anything else (an HTTP date is not read: the backoff applies then).
double parse_retry_after(std::string_view header);

} // namespace tv
