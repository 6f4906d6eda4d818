#include "evolve/mutators/llm_client.hpp"

#include "evolve/mutators/chat_response.hpp"
#include "evolve/mutators/excerpt.hpp"
#include "evolve/mutators/secret_mask.hpp"
#include "ir/error.hpp"

#include <chrono>
#include <cmath>
#include <condition_variable>
#include <fmt/format.h>
#include <httplib.h>
#include <mutex>
#include <thread>

namespace tv {

namespace {

void split_seconds(double s, time_t& sec, time_t& usec) {
  if (!(s > 0)) s = 0.001;
  sec = time_t(std::floor(s));
  usec = time_t(std::llround((s - std::floor(s)) * 1e6));
  if (usec >= 1000000) {
    ++sec;
    usec -= 1000000;
  }
}

std::string error_text(httplib::Error e) {
  switch (e) {
  case httplib::Error::Connection:
    return "could not connect";
  case httplib::Error::ConnectionTimeout:
    return "connect timed out";
  case httplib::Error::Read:
    return "the connection closed before the answer was complete";
  case httplib::Error::Write:
    return "the connection broke while sending the request";
  case httplib::Error::SSLConnection:
    return "TLS handshake failed";
  case httplib::Error::SSLLoadingCerts:
    return "could not load the CA certificates";
  case httplib::Error::SSLServerVerification:
    return "TLS: the server certificate did not verify";
  case httplib::Error::Compression:
    return "could not decompress the answer";
  default:
    return "transport error (" + httplib::to_string(e) + ")";
  }
}

/// Stops a client's request in flight once `seconds` have passed, unless finish() comes
/// first: httplib's own timeouts bound each read, so a server that trickles a byte a second
/// would hold a request forever.
class Deadline {
public:
  Deadline(httplib::Client& client, double seconds)
      : thread_([this, &client, seconds] {
          std::unique_lock<std::mutex> lock(mutex_);
          if (!cv_.wait_for(lock, std::chrono::duration<double>(seconds),
                            [this] { return done_; })) {
            expired_ = true;
            client.stop(); // thread-safe: shuts the socket down, the request fails
          }
        }) {}
  ~Deadline() { finish(); }
  Deadline(const Deadline&) = delete;
  Deadline& operator=(const Deadline&) = delete;
  /// Ends the watch; true when the deadline had passed (and the request was stopped).
  bool finish() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      done_ = true;
    }
    cv_.notify_all();
    if (thread_.joinable()) thread_.join();
    return expired_;
  }

private:
  std::mutex mutex_;
  std::condition_variable cv_;
  bool done_ = false, expired_ = false;
  std::thread thread_; // last: it starts once the members above exist
};

} // namespace

Endpoint Endpoint::parse(std::string_view url) {
  Endpoint e;
  // A user:password@ in the URL is refused below; it is not echoed either.
  const std::string shown = excerpt(url_without_userinfo(url), 200);
  std::string_view rest;
  if (url.substr(0, 7) == "http://") {
    rest = url.substr(7);
  } else if (url.substr(0, 8) == "https://") {
    rest = url.substr(8);
    e.https = true;
  } else {
    throw InputError(
        fmt::format("LLM URL '{}': expected http://HOST[:PORT]/PATH or https://...", shown));
  }
  if (rest.find_first_of("?#") != std::string_view::npos)
    throw InputError(fmt::format("LLM URL '{}': a query or fragment is not supported", shown));
  const std::size_t slash = rest.find('/');
  const std::string_view hostport = rest.substr(0, slash);
  std::string path = slash == std::string_view::npos ? "" : std::string(rest.substr(slash));
  if (hostport.empty() || hostport.front() == ':')
    throw InputError(fmt::format("LLM URL '{}': no host", shown));
  if (hostport.find_first_of(" \t@") != std::string_view::npos)
    throw InputError(fmt::format("LLM URL '{}': a host may not contain spaces or '@' (pass the "
                                 "key in an environment variable, not in the URL)",
                                 shown));
  if (const auto colon = hostport.rfind(':');
      colon != std::string_view::npos && hostport.find(']') == std::string_view::npos) {
    const std::string_view port = hostport.substr(colon + 1);
    int p = 0;
    bool good = !port.empty() && port.size() <= 5;
    for (char c : port)
      good = good && c >= '0' && c <= '9';
    if (good) p = std::stoi(std::string(port));
    if (!good || p < 1 || p > 65535)
      throw InputError(fmt::format("LLM URL '{}': bad port '{}'", shown, excerpt(port, 20)));
  }
  while (!path.empty() && path.back() == '/')
    path.pop_back();
  const std::string suffix = "/chat/completions";
  if (path.size() < suffix.size() ||
      path.compare(path.size() - suffix.size(), suffix.size(), suffix) != 0)
    path += suffix;
  e.origin = std::string(e.https ? "https://" : "http://") + std::string(hostport);
  e.path = path;
  return e;
}

struct LlmClient::Impl {
  Endpoint endpoint;
  std::string key;
  HttpOptions options;
  httplib::Client client;
  Impl(Endpoint e, std::string k, HttpOptions o)
      : endpoint(std::move(e)), key(std::move(k)), options(std::move(o)), client(endpoint.origin) {
    time_t s = 0, u = 0;
    split_seconds(options.connect_timeout_s, s, u);
    client.set_connection_timeout(s, u);
    split_seconds(options.read_timeout_s, s, u);
    client.set_read_timeout(s, u);
    client.set_write_timeout(s, u);
    client.set_keep_alive(true);
    client.set_follow_location(false);
    if (!options.ca_cert_file.empty()) client.set_ca_cert_path(options.ca_cert_file);
  }
  ChatAttempt send(const std::string& body);
};

LlmClient::LlmClient(Endpoint endpoint, std::string api_key, HttpOptions options)
    : impl_(std::make_unique<Impl>(std::move(endpoint), std::move(api_key), std::move(options))) {}

LlmClient::~LlmClient() = default;

ChatAttempt LlmClient::post(const std::string& body) {
  ChatAttempt a = impl_->send(body);
  // A server may reflect the key back (a 401 quoting "Bearer <key>"): what is recorded and
  // printed never holds it.
  a.error = mask_secret(std::move(a.error), impl_->key);
  a.content = mask_secret(std::move(a.content), impl_->key);
  return a;
}

ChatAttempt LlmClient::Impl::send(const std::string& body) {
  ChatAttempt a;
  httplib::Request req;
  req.method = "POST";
  req.path = endpoint.path;
  req.headers.emplace("Content-Type", "application/json");
  req.headers.emplace("Accept", "application/json");
  if (!key.empty()) req.headers.emplace("Authorization", "Bearer " + key);
  req.body = body;
  std::string received;
  bool too_big = false;
  const std::size_t cap = options.max_response_bytes;
  req.content_receiver = [&](const char* data, std::size_t len, std::uint64_t, std::uint64_t) {
    if (received.size() + len > cap) {
      too_big = true;
      return false;
    }
    received.append(data, len);
    return true;
  };
  const auto t0 = std::chrono::steady_clock::now();
  // The timeout bounds the whole request, not only each silence.
  Deadline deadline(client, options.read_timeout_s);
  httplib::Result res = client.send(req);
  const bool expired = deadline.finish();
  a.latency_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  received = mask_secret(std::move(received), key);
  if (!res && expired) {
    a.failure = FailureKind::timeout;
    a.error = fmt::format("no complete answer within the timeout ({} s)", options.read_timeout_s);
    return a;
  }
  if (too_big) {
    a.status = res ? res->status : 0;
    a.failure = FailureKind::bad_response;
    a.error = fmt::format("the answer is larger than {} bytes", cap);
    return a;
  }
  if (!res) {
    const httplib::Error e = res.error();
    a.error = error_text(e);
    switch (e) {
    case httplib::Error::ConnectionTimeout:
      a.failure = FailureKind::timeout;
      break;
    case httplib::Error::Read:
      // httplib reports a read timeout and a peer that hung up alike; the clock tells them
      // apart.
      if (a.latency_s >= 0.9 * options.read_timeout_s) {
        a.failure = FailureKind::timeout;
        a.error = fmt::format("no answer within the read timeout ({} s)", options.read_timeout_s);
      } else {
        a.failure = FailureKind::connection;
      }
      break;
    case httplib::Error::SSLServerVerification:
    case httplib::Error::SSLLoadingCerts:
      a.failure = FailureKind::client_error;
      break;
    case httplib::Error::Compression:
      a.failure = FailureKind::bad_response;
      break;
    default:
      a.failure = FailureKind::connection;
      break;
    }
    return a;
  }
  a.status = res->status;
  if (res->has_header("Retry-After"))
    a.retry_after_s = parse_retry_after(res->get_header_value("Retry-After"));
  if (a.status == 200) {
    ChatResponse r = parse_chat_response(received);
    a.prompt_tokens = r.prompt_tokens;
    a.completion_tokens = r.completion_tokens;
    a.has_usage = r.has_usage;
    if (r.ok) {
      a.content = std::move(r.content);
    } else {
      a.failure = FailureKind::bad_response;
      a.error = r.error;
    }
    return a;
  }
  const std::string message = error_message_of(received);
  a.error = fmt::format("HTTP {}{}{}", a.status, message.empty() ? "" : ": ", message);
  if (a.status == 429)
    a.failure = FailureKind::rate_limited;
  else if (a.status == 408)
    a.failure = FailureKind::timeout;
  else if (a.status >= 500)
    a.failure = FailureKind::server_error;
  else
    a.failure = FailureKind::client_error;
  return a;
}

ChatOutcome send_with_retries(LlmClient& client, const std::string& body, const RetryPolicy& policy,
                              std::uint64_t jitter_seed, int first_attempt,
                              const std::function<void(const ChatAttempt&)>& on_attempt) {
  ChatOutcome out;
  for (int attempt = first_attempt;; ++attempt) {
    ChatAttempt a = client.post(body);
    a.attempt = attempt;
    const bool again = !a.ok() && is_retryable(a.failure) && attempt < policy.retries;
    a.final = !again;
    if (again) a.wait_s = policy.wait(attempt + 1, a.retry_after_s, jitter_seed);
    if (on_attempt) on_attempt(a);
    const double wait = a.wait_s;
    out.attempts.push_back(std::move(a));
    if (!again) break;
    std::this_thread::sleep_for(std::chrono::duration<double>(wait));
  }
  return out;
}

} // namespace tv
