#pragma once
/// The cost of an LLM run per model: requests, attempts, failures by kind, tokens, latency.
/// Counted in request order from recorded attempts, so a replayed run counts the same.
#include "evolve/mutators/chat_attempt.hpp"

#include <map>
#include <nlohmann/json.hpp>
#include <string>

namespace tv {

/// Counters of one model.
struct ModelStats {
  long long requests = 0; ///< requests that got a final outcome
  long long ok = 0;       ///< of those, answered with a reply
  long long failed = 0;   ///< of those, failed for good
  long long attempts = 0; ///< HTTP attempts (requests plus retries)
  long long no_usage = 0; ///< replies without a usage field (their tokens are unknown)
  std::map<std::string, long long> failures;       ///< failed attempts by kind ("rate_limited": 3)
  std::map<std::string, long long> final_failures; ///< failed requests by their last kind
  long long prompt_tokens = 0, completion_tokens = 0;
  double latency_s = 0; ///< sum over attempts of the time spent waiting for answers
  double wait_s = 0;    ///< sum of backoff waits between attempts
};

/// All models, and their totals.
class LlmStats {
public:
  /// Counts one finished request of `model` from its attempts.
  void add(const std::string& model, const ChatOutcome& outcome);
  /// Sum over models.
  ModelStats total() const;
  /// Tokens over all models (prompt plus completion).
  long long tokens() const;
  const std::map<std::string, ModelStats>& by_model() const { return models_; }
  /// {"total": {...}, "models": {"name": {...}}}
  nlohmann::json to_json() const;
  /// Reads to_json's form (checkpoints); throws InputError on a bad field.
  static LlmStats from_json(const nlohmann::json& j);

private:
  std::map<std::string, ModelStats> models_;
};

/// The cost of an LLM run for a terminal, from LlmStats::to_json's form: one row per model
/// (requests, failed, attempts, tokens, latency) and the failures by kind.
std::string llm_stats_text(const nlohmann::json& stats);

} // namespace tv
