#pragma once
/// The HTTP side of the LLM mutator: POST {base}/chat/completions to an OpenAI-compatible
/// server (vLLM, Ollama, llama.cpp server, hosted APIs) with cpp-httplib, and the retry loop
/// around it. https works: Debian's cpp-httplib is built with OpenSSL.
///
/// The API key goes into the Authorization header and nowhere else: it is not part of any
/// value this file returns (a server that echoes it back gets it masked, secret_mask.hpp).
#include "evolve/mutators/chat_attempt.hpp"
#include "evolve/mutators/retry_policy.hpp"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

namespace tv {

/// Where requests go.
struct Endpoint {
  std::string origin; ///< "http://host:port" (or https)
  std::string path;   ///< e.g. "/v1/chat/completions"
  bool https = false;

  /// From a base URL such as "http://127.0.0.1:8000/v1" (the path gains
  /// "/chat/completions" unless it already ends so). Throws InputError for a scheme other
  /// than http/https, a missing host, a bad port, or a query/fragment.
  static Endpoint parse(std::string_view url);
  /// origin + path.
  std::string url() const { return origin + path; }
};

/// Transport limits.
struct HttpOptions {
  double connect_timeout_s = 10; ///< to establish the connection
  /// The longest a request may take, from sending it to the end of the answer (a server that
  /// trickles bytes is cut off there too); also the longest silence.
  double read_timeout_s = 300;
  std::size_t max_response_bytes = std::size_t(8) << 20; ///< larger answers are refused
  std::string ca_cert_file; ///< extra CA certificate (PEM) for https; empty = system store
};

/// One connection to the server (keep-alive); not thread-safe: one client per thread.
class LlmClient {
public:
  /// `api_key` may be empty (local servers need none): then no Authorization header is sent.
  LlmClient(Endpoint endpoint, std::string api_key, HttpOptions options);
  ~LlmClient();
  LlmClient(const LlmClient&) = delete;
  LlmClient& operator=(const LlmClient&) = delete;
  /// One POST of the JSON `body`; fills every field of the attempt except attempt, wait_s
  /// and final. Never throws.
  ChatAttempt post(const std::string& body);

private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// Sends `body` until it succeeds, fails for good, or runs out of retries: attempt numbers
/// start at `first_attempt` (a resumed request continues its recorded attempts), waits come
/// from `policy` with jitter from `jitter_seed`, and `on_attempt` sees each attempt as it
/// ends (with wait_s and final set) before any wait. Returns the new attempts.
ChatOutcome send_with_retries(LlmClient& client, const std::string& body, const RetryPolicy& policy,
                              std::uint64_t jitter_seed, int first_attempt,
                              const std::function<void(const ChatAttempt&)>& on_attempt);

} // namespace tv
