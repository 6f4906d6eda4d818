#pragma once
/// The LLM mutator: proposals from a language model behind an OpenAI-compatible chat
/// completions endpoint, with prompts from a prompts folder, several requests in flight,
/// budgets, and every exchange recorded in the run directory.
///
/// Determinism: each request's content (prompt, model, seed) is fixed before it is sent and
/// replies are consumed in request order, so a run depends on what the server answered, not
/// on when. Replaying a recording (or resuming a run) answers requests from the recorded
/// exchanges, checked against each request's digest.
#include "evolve/mutator.hpp"
#include "evolve/mutators/exchange_log.hpp"
#include "evolve/mutators/llm_budget.hpp"
#include "evolve/mutators/llm_client.hpp"
#include "evolve/mutators/llm_prompts.hpp"
#include "evolve/mutators/llm_stats.hpp"
#include "evolve/mutators/model_ensemble.hpp"

#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace tv {

/// Everything that decides the requests and how they are sent (recorded in config.json).
struct LlmSettings {
  std::string url; ///< base URL, e.g. http://127.0.0.1:8000/v1
  ModelEnsemble models;
  std::string api_key_env = "OPENAI_API_KEY"; ///< the variable's name; the key is never stored
  double temperature = 0.8;
  long long max_reply_tokens = 4096; ///< "max_tokens" of each request (0 = not sent)
  std::string prompts_dir;           ///< "" = the prompts/ folder of tilevolve
  std::string prompt_mode = "auto"; ///< auto (diff; whole program after 2 failed diffs), diff, full
  LlmLimits limits;
  RetryPolicy retry;
  HttpOptions http;

  /// All settings as JSON.
  nlohmann::json to_json() const;
  /// Reads to_json's form; throws InputError on a bad field.
  static LlmSettings from_json(const nlohmann::json& j);
};

/// How this process runs the mutator (not part of the run's identity).
struct LlmRuntime {
  int concurrency = 1;     ///< requests in flight
  std::string api_key;     ///< sent in the Authorization header only; may be empty
  std::string record_path; ///< append exchanges here ("" = nowhere)
  bool resume = false;     ///< record_path holds this run's earlier exchanges: reuse them
  std::string replay_path; ///< answer only from this recording, never from a server
  /// Called as each attempt fails, before any retry waits (from the request's own thread;
  /// several may call at once); empty = nobody is told.
  std::function<void(const ChatAttempt&)> on_failure;
};

/// Mutator backed by an LLM server (or a recording of one).
class LlmMutator : public Mutator {
public:
  /// Loads the prompts (InputError for bad templates) and, when replaying or resuming, the
  /// recording (InputError for a corrupt one); checks the URL (InputError).
  LlmMutator(LlmSettings settings, PromptTarget target, LlmRuntime runtime);
  ~LlmMutator() override;
  /// "llm (MODEL)" or "llm (a:0.8, b:0.2)".
  std::string name() const override;
  /// "llm-diff" and "llm-rewrite" (which prompt asked).
  std::vector<std::string> operators() const override;
  MutationReply propose(const MutationRequest& request) override;
  /// Sends the requests (up to `concurrency` at a time) or answers them from a recording;
  /// replies come back in request order. Throws InputError when a replayed request is not in
  /// the recording or differs from it, or when the log cannot be written.
  std::vector<MutationReply> propose_all(const std::vector<MutationRequest>& requests) override;
  std::string exhausted() const override { return budget_.exhausted(); }
  bool gave_out() const override { return budget_.gave_out(); }
  long long remaining_requests() const override { return budget_.remaining_requests(); }
  /// {"kind": "llm", settings..., "prompts_digest": ...}
  nlohmann::json settings() const override;
  /// Next request number, budget and statistics.
  nlohmann::json state() const override;
  void restore(const nlohmann::json& state) override;
  /// Per-model requests, failures by kind, tokens and latency.
  nlohmann::json stats() const override { return stats_.to_json(); }
  /// Requests answered from a recording in this process (replay or resume).
  long long answered_from_recording() const { return from_recording_; }
  /// The prompt kind for `request` under `mode` ("auto", "diff", "full").
  static PromptKind prompt_kind(const MutationRequest& request, const std::string& mode);
  /// The JSON body of the chat request for `request` (exposed for tests).
  std::string request_body(const MutationRequest& request, const std::string& model,
                           PromptKind kind) const;

private:
  struct Job;
  void run_jobs(std::vector<Job>& jobs, const std::vector<std::size_t>& todo);
  void open_writer();

  LlmSettings settings_;
  PromptTarget target_;
  LlmRuntime runtime_;
  LlmPrompts prompts_;
  Endpoint endpoint_;
  LlmBudget budget_;
  LlmStats stats_;
  std::uint64_t next_request_ = 0;
  long long from_recording_ = 0;
  ExchangeRecording recorded_; ///< replay or resume source
  std::uint64_t recorded_bytes_ = 0;
  std::unique_ptr<ExchangeWriter> writer_;
};

} // namespace tv
