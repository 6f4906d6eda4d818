#pragma once
/// Limits that stop an LLM run cleanly: requests, tokens, and failed requests in a row (a
/// server that is down). Checked between batches, on counts taken in request order, so the
/// run stops at the same point whatever the concurrency; a batch in flight may overshoot the
/// token limit by its own tokens.
#include <nlohmann/json.hpp>
#include <string>

namespace tv {

/// The limits (0 = none).
struct LlmLimits {
  long long max_requests = 0;
  long long max_tokens = 0;            ///< prompt plus completion, from the usage fields
  long long max_failures_in_a_row = 8; ///< requests that failed for good, consecutively
};

/// What has been spent against the limits.
class LlmBudget {
public:
  explicit LlmBudget(LlmLimits limits = {}) : limits_(limits) {}
  /// Counts one finished request.
  void charge(bool ok, long long tokens, const std::string& error);
  /// Why no more requests may be made ("token budget spent: 10,240 of 10,000 tokens"), or
  /// "" while they may.
  std::string exhausted() const;
  /// True when the failures in a row reached their limit: the server gave out, unlike a
  /// request or token budget that was spent as planned.
  bool gave_out() const;
  /// Requests still allowed (-1 = no request limit).
  long long remaining_requests() const;
  const LlmLimits& limits() const { return limits_; }
  long long requests() const { return requests_; }
  long long tokens() const { return tokens_; }
  /// Spent counts (for checkpoints).
  nlohmann::json to_json() const;
  /// Restores to_json's counts; throws InputError on a bad field.
  void restore(const nlohmann::json& j);

private:
  LlmLimits limits_;
  long long requests_ = 0, tokens_ = 0, failures_in_a_row_ = 0;
  std::string last_error_;
};

} // namespace tv
