#pragma once
/// A scripted OpenAI-compatible chat-completions server for tests (header-only): cpp-httplib
/// on 127.0.0.1 at a free port, serving POST /v1/chat/completions from a thread. A script
/// decides each answer from the request body and how often that exact body was seen, so the
/// answers do not depend on the order in which concurrent requests arrive.
#include "evolve/mock_llm.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <doctest/doctest.h>
#include <functional>
#include <httplib.h>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

namespace tv::test {

/// What the server does with one request.
struct FakeAction {
  enum Kind {
    reply,  ///< 200 with a chat completion whose content is `content`
    status, ///< `code` with `body` (and Retry-After when `retry_after` is set)
    raw,    ///< 200 with `body` as it is (e.g. invalid JSON)
    drop    ///< promise a body, send a few bytes, hang up
  } kind = reply;
  std::string content;
  int code = 200;
  std::string body;
  std::string retry_after;
  int delay_ms = 0; ///< sleep before answering (longer than the client's timeout: a timeout)
  long long prompt_tokens = 120, completion_tokens = 30;
  bool usage = true;

  FakeAction() = default;
  explicit FakeAction(Kind k) : kind(k) {}
};

/// One request as received.
struct FakeRequest {
  nlohmann::json body;
  std::string authorization; ///< the Authorization header ("" when absent)
  int nth = 0;               ///< 0 the first time this exact body arrived, 1 the second, ...
};

/// The server; stops when destroyed.
class FakeOpenAiServer {
public:
  using Script = std::function<FakeAction(const nlohmann::json& body, int nth)>;

  explicit FakeOpenAiServer(Script script) : script_(std::move(script)) {
    server_.Post("/v1/chat/completions",
                 [this](const httplib::Request& req, httplib::Response& res) { serve(req, res); });
    port_ = server_.bind_to_any_port("127.0.0.1");
    REQUIRE(port_ > 0);
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    for (int i = 0; i < 500 && !server_.is_running(); ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    REQUIRE(server_.is_running());
  }
  ~FakeOpenAiServer() {
    server_.stop();
    thread_.join();
  }
  FakeOpenAiServer(const FakeOpenAiServer&) = delete;
  FakeOpenAiServer& operator=(const FakeOpenAiServer&) = delete;

  int port() const { return port_; }
  /// The base URL to give the client ("http://127.0.0.1:PORT/v1").
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/v1"; }
  /// Every request received so far, in arrival order.
  std::vector<FakeRequest> requests() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return requests_;
  }
  /// The most requests the server was answering at one time (within their delays).
  int max_in_flight() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return max_in_flight_;
  }
  /// Forgets the requests received (the per-body counts stay).
  void clear() {
    std::lock_guard<std::mutex> lock(mutex_);
    requests_.clear();
  }

  /// A chat completion body with `content` and a usage field.
  static std::string completion(const std::string& content, long long prompt_tokens,
                                long long completion_tokens, bool usage) {
    nlohmann::json j{{"id", "fake"},
                     {"object", "chat.completion"},
                     {"choices",
                      {{{"index", 0},
                        {"message", {{"role", "assistant"}, {"content", content}}},
                        {"finish_reason", "stop"}}}}};
    if (usage)
      j["usage"] = {{"prompt_tokens", prompt_tokens},
                    {"completion_tokens", completion_tokens},
                    {"total_tokens", prompt_tokens + completion_tokens}};
    return j.dump();
  }

private:
  void serve(const httplib::Request& req, httplib::Response& res) {
    const nlohmann::json body = nlohmann::json::parse(req.body, nullptr, false);
    int nth = 0;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      nth = seen_[req.body]++;
      requests_.push_back({body, req.get_header_value("Authorization"), nth});
      max_in_flight_ = std::max(max_in_flight_, ++in_flight_);
    }
    const FakeAction a = script_(body, nth);
    if (a.delay_ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(a.delay_ms));
    {
      std::lock_guard<std::mutex> lock(mutex_);
      --in_flight_;
    }
    switch (a.kind) {
    case FakeAction::reply:
      res.set_content(completion(a.content, a.prompt_tokens, a.completion_tokens, a.usage),
                      "application/json");
      break;
    case FakeAction::status:
      res.status = a.code;
      if (!a.retry_after.empty()) res.set_header("Retry-After", a.retry_after);
      res.set_content(a.body, "application/json");
      break;
    case FakeAction::raw:
      res.set_content(a.body, "application/json");
      break;
    case FakeAction::drop:
      res.set_content_provider(4096, "application/json",
                               [](std::size_t, std::size_t, httplib::DataSink& sink) {
                                 sink.write("{\"choi", 6);
                                 return false; // hang up with 4090 bytes missing
                               });
      break;
    }
  }

  Script script_;
  httplib::Server server_;
  int port_ = 0;
  std::thread thread_;
  mutable std::mutex mutex_;
  std::vector<FakeRequest> requests_;
  std::map<std::string, int> seen_;
  int in_flight_ = 0, max_in_flight_ = 0;
};

/// The user message of a chat request body.
inline std::string user_message(const nlohmann::json& body) {
  for (const auto& m : body.value("messages", nlohmann::json::array()))
    if (m.value("role", "") == "user") return m.value("content", "");
  return "";
}

/// The parent program a default-prompt request shows (between "# Parent program" and the
/// end of its code fence), or "".
inline std::string parent_of(const nlohmann::json& body) {
  const std::string u = user_message(body);
  const auto at = u.find("# Parent program");
  if (at == std::string::npos) return "";
  const auto def = u.find("def choose(", at);
  if (def == std::string::npos) return "";
  const auto end = u.find("\n```", def);
  return u.substr(def, end == std::string::npos ? std::string::npos : end - def + 1);
}

/// What the mock LLM proposes for a request's parent with the request's seed: a realistic
/// reply (a SEARCH/REPLACE block in chatty prose) and the child it means.
inline MockProposal mock_answer(const Gpu& gpu, const nlohmann::json& body) {
  MockLlm mock(gpu);
  MutationRequest r;
  r.parent_text = parent_of(body);
  r.seed = body.value("seed", std::uint64_t(0));
  return mock.propose_detailed(r);
}

} // namespace tv::test
