#pragma once
/// One HTTP attempt of a chat request and how it ended: what the client reports, the
/// exchange log records and the statistics count.
#include <string>
#include <string_view>
#include <vector>

namespace tv {

/// Why an attempt failed.
enum class FailureKind {
  none,         ///< it succeeded
  timeout,      ///< no answer within the read or connect timeout (or HTTP 408)
  connection,   ///< refused, reset or closed before the answer was complete
  rate_limited, ///< HTTP 429
  server_error, ///< HTTP 5xx
  client_error, ///< another HTTP 4xx (bad key, unknown model, ...), or TLS verification
  bad_response  ///< a 200 whose body is not a usable chat completion (invalid JSON, ...)
};

/// Every kind but `none`, in declaration order.
inline constexpr FailureKind kFailureKinds[] = {
    FailureKind::timeout,      FailureKind::connection,   FailureKind::rate_limited,
    FailureKind::server_error, FailureKind::client_error, FailureKind::bad_response};

/// Lowercase name ("rate_limited"; "ok" for none).
std::string_view failure_kind_name(FailureKind k);
/// Parses a name written by failure_kind_name; false when unknown.
bool parse_failure_kind(std::string_view text, FailureKind& out);
/// True for kinds worth another attempt: timeouts, broken connections, 429 and 5xx.
bool is_retryable(FailureKind k);

/// One attempt.
struct ChatAttempt {
  int attempt = 0; ///< 0 for the first
  int status = 0;  ///< HTTP status; 0 when no answer arrived
  FailureKind failure = FailureKind::none;
  std::string error;   ///< printable reason of a failure
  std::string content; ///< the reply text (success only)
  long long prompt_tokens = 0, completion_tokens = 0;
  bool has_usage = false;    ///< the answer carried a usage field (tokens are known)
  double latency_s = 0;      ///< from sending to the end of the answer or the failure
  double retry_after_s = -1; ///< the server's Retry-After in seconds (-1 when none)
  double wait_s = 0;         ///< waited after this attempt before the next one
  bool final = false;        ///< no attempt follows (success, or the last failure)
  bool ok() const { return failure == FailureKind::none; }
};

/// All attempts of one request; the last one decides.
struct ChatOutcome {
  std::vector<ChatAttempt> attempts;
  bool ok() const { return !attempts.empty() && attempts.back().ok(); }
  const ChatAttempt& last() const { return attempts.back(); }
};

} // namespace tv
