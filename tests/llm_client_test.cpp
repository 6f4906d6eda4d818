// The HTTP client against a real cpp-httplib server on 127.0.0.1 (tests/support/
// fake_openai_server.hpp): answers, every kind of failure, retries and Retry-After.
#include "evolve/mutators/llm_client.hpp"
#include "ir/error.hpp"
#include "tests/support/fake_openai_server.hpp"
#include "tests/support/trickle_server.hpp"

#include <chrono>
#include <doctest/doctest.h>

// In a namespace of its own: the test files are compiled several to a unit (unity build).
namespace llm_client_test {

using namespace tv;
using test::FakeAction;
using test::FakeOpenAiServer;

namespace {

HttpOptions fast() {
  HttpOptions o;
  o.connect_timeout_s = 1;
  o.read_timeout_s = 0.3;
  return o;
}

RetryPolicy quick(int retries = 3) {
  RetryPolicy p;
  p.retries = retries;
  p.backoff_s = 0.001;
  p.max_wait_s = 2;
  return p;
}

const std::string kBody = R"({"model":"m","messages":[{"role":"user","content":"hi"}]})";

} // namespace

TEST_CASE("llm_client: URLs") {
  const Endpoint e = Endpoint::parse("http://127.0.0.1:8000/v1");
  CHECK(e.origin == "http://127.0.0.1:8000");
  CHECK(e.path == "/v1/chat/completions");
  CHECK_FALSE(e.https);
  CHECK(Endpoint::parse("https://api.example.com/v1/").path == "/v1/chat/completions");
  CHECK(Endpoint::parse("https://api.example.com/v1/").https);
  CHECK(Endpoint::parse("http://h/v1/chat/completions").path == "/v1/chat/completions");
  CHECK(Endpoint::parse("http://localhost:11434").path == "/chat/completions");
  CHECK_THROWS_AS(Endpoint::parse("ftp://h/v1"), InputError);
  CHECK_THROWS_AS(Endpoint::parse("http:///v1"), InputError);
  CHECK_THROWS_AS(Endpoint::parse("http://h:99999/v1"), InputError);
  CHECK_THROWS_AS(Endpoint::parse("http://h:x/v1"), InputError);
  CHECK_THROWS_AS(Endpoint::parse("http://user:key@h/v1"), InputError);
  CHECK_THROWS_AS(Endpoint::parse("http://h/v1?key=1"), InputError);
}

TEST_CASE("llm_client: a reply carries its content and tokens, and the key goes in the header") {
  FakeOpenAiServer server([](const nlohmann::json&, int) {
    FakeAction a;
    a.content = "<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n";
    return a;
  });
  LlmClient client(Endpoint::parse(server.url()), "sk-test-123", fast());
  const ChatAttempt a = client.post(kBody);
  CHECK(a.ok());
  CHECK(a.status == 200);
  CHECK(a.content.find("REPLACE") != std::string::npos);
  CHECK(a.prompt_tokens == 120);
  CHECK(a.completion_tokens == 30);
  CHECK(a.has_usage);
  const auto reqs = server.requests();
  REQUIRE(reqs.size() == 1);
  CHECK(reqs[0].authorization == "Bearer sk-test-123");
  CHECK(reqs[0].body["model"] == "m");

  LlmClient anonymous(Endpoint::parse(server.url()), "", fast());
  CHECK(anonymous.post(kBody).ok());
  CHECK(server.requests().at(1).authorization.empty());
}

TEST_CASE("llm_client: each failure has its kind") {
  struct Case {
    FakeAction action;
    FailureKind kind;
    int status;
  };
  FakeAction bad_json{FakeAction::raw};
  bad_json.body = "{\"choices\": [";
  FakeAction limited{FakeAction::status};
  limited.code = 429;
  limited.body = R"({"error":{"message":"slow down"}})";
  FakeAction down{FakeAction::status};
  down.code = 503;
  FakeAction auth{FakeAction::status};
  auth.code = 401;
  auth.body = R"({"error":{"message":"bad key"}})";
  FakeAction dropped{FakeAction::drop};
  FakeAction slow;
  slow.delay_ms = 700;
  slow.content = "late";
  const std::vector<Case> cases{
      {bad_json, FailureKind::bad_response, 200}, {limited, FailureKind::rate_limited, 429},
      {down, FailureKind::server_error, 503},     {auth, FailureKind::client_error, 401},
      {dropped, FailureKind::connection, 200},    {slow, FailureKind::timeout, 0}};
  for (const Case& c : cases) {
    FakeOpenAiServer server([&](const nlohmann::json&, int) { return c.action; });
    LlmClient client(Endpoint::parse(server.url()), "", fast());
    const ChatAttempt a = client.post(kBody);
    INFO(failure_kind_name(c.kind) << ": " << a.error);
    CHECK(a.failure == c.kind);
    if (c.kind != FailureKind::connection) CHECK(a.status == c.status);
    CHECK_FALSE(a.error.empty());
  }
  // Nothing listens on a port that was just freed.
  int port = 0;
  {
    FakeOpenAiServer gone([](const nlohmann::json&, int) { return FakeAction{}; });
    port = gone.port();
  }
  LlmClient client(Endpoint::parse("http://127.0.0.1:" + std::to_string(port) + "/v1"), "", fast());
  CHECK(client.post(kBody).failure == FailureKind::connection);
}

TEST_CASE("llm_client: retries after 429, 5xx, drops and timeouts, then succeeds") {
  // The n-th time a body arrives decides: 429, 500, drop, too slow, then an answer.
  FakeOpenAiServer server([](const nlohmann::json&, int nth) {
    FakeAction a;
    if (nth == 0) {
      a.kind = FakeAction::status;
      a.code = 429;
    } else if (nth == 1) {
      a.kind = FakeAction::status;
      a.code = 500;
    } else if (nth == 2) {
      a.kind = FakeAction::drop;
    } else if (nth == 3) {
      a.delay_ms = 700;
    }
    a.content = "ok";
    return a;
  });
  LlmClient client(Endpoint::parse(server.url()), "", fast());
  std::vector<ChatAttempt> seen;
  const ChatOutcome o = send_with_retries(client, kBody, quick(5), 7, 0,
                                          [&](const ChatAttempt& a) { seen.push_back(a); });
  REQUIRE(o.ok());
  REQUIRE(o.attempts.size() == 5);
  CHECK(o.attempts[0].failure == FailureKind::rate_limited);
  CHECK(o.attempts[1].failure == FailureKind::server_error);
  CHECK(o.attempts[2].failure == FailureKind::connection);
  CHECK(o.attempts[3].failure == FailureKind::timeout);
  CHECK(o.last().content == "ok");
  CHECK(o.last().final);
  CHECK_FALSE(o.attempts[0].final);
  CHECK(seen.size() == 5);
  for (int i = 0; i < 5; ++i)
    CHECK(o.attempts[std::size_t(i)].attempt == i);
}

TEST_CASE("llm_client: Retry-After is honoured, client errors are not retried") {
  FakeOpenAiServer server([](const nlohmann::json& body, int nth) {
    FakeAction a;
    if (body.value("model", "") == "limited" && nth == 0) {
      a.kind = FakeAction::status;
      a.code = 429;
      a.retry_after = "0.3";
    } else if (body.value("model", "") == "unknown") {
      a.kind = FakeAction::status;
      a.code = 404;
      a.body = R"({"error":{"message":"no such model"}})";
    }
    a.content = "ok";
    return a;
  });
  LlmClient client(Endpoint::parse(server.url()), "", fast());
  const auto t0 = std::chrono::steady_clock::now();
  const ChatOutcome o = send_with_retries(client, R"({"model":"limited"})", quick(), 1, 0, nullptr);
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  REQUIRE(o.ok());
  CHECK(o.attempts.size() == 2);
  CHECK(o.attempts[0].retry_after_s == doctest::Approx(0.3));
  CHECK(o.attempts[0].wait_s >= 0.3);
  CHECK(took >= 0.3);

  const ChatOutcome nf =
      send_with_retries(client, R"({"model":"unknown"})", quick(), 1, 0, nullptr);
  CHECK_FALSE(nf.ok());
  CHECK(nf.attempts.size() == 1);
  CHECK(nf.last().error == "HTTP 404: no such model");
  CHECK(nf.last().final);
}

TEST_CASE("llm_client: an answer larger than the limit is refused") {
  FakeOpenAiServer server([](const nlohmann::json&, int) {
    FakeAction a;
    a.content = std::string(100000, 'x');
    return a;
  });
  HttpOptions o = fast();
  o.max_response_bytes = 10000;
  LlmClient client(Endpoint::parse(server.url()), "", o);
  const ChatAttempt a = client.post(kBody);
  CHECK(a.failure == FailureKind::bad_response);
  CHECK(a.error == "the answer is larger than 10000 bytes");
}

TEST_CASE("llm_client: a server that trickles its answer a byte at a time is cut off at the "
          "timeout") {
  // A complete, valid answer, 30 ms a byte: about 10 s in all, where the timeout is 1 s.
  const std::string body = FakeOpenAiServer::completion(std::string(200, 'x'), 10, 2, true);
  for (const bool headers_at_once : {false, true}) {
    INFO("headers at once: " << headers_at_once);
    test::TrickleServer server(body, std::chrono::milliseconds(30), headers_at_once);
    HttpOptions o = fast();
    o.read_timeout_s = 1;
    LlmClient client(Endpoint::parse(server.url()), "", o);
    const auto t0 = std::chrono::steady_clock::now();
    const ChatAttempt a = client.post(kBody);
    const double took =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    INFO(a.error);
    CHECK(a.failure == FailureKind::timeout);
    CHECK(a.error == "no complete answer within the timeout (1 s)");
    CHECK(took >= 0.9);
    CHECK(took < 5); // not the 10 s of the trickle
    CHECK(server.requests() == 1);
    if (headers_at_once) continue;
    // The client is usable afterwards; a timeout is retried like any other.
    const ChatOutcome again = send_with_retries(client, kBody, quick(1), 3, 0, nullptr);
    CHECK(again.attempts.size() == 2);
    CHECK(again.last().failure == FailureKind::timeout);
    CHECK(server.requests() == 3);
  }
}

TEST_CASE("llm_client: a key the server reflects back is masked in the error and the reply") {
  const std::string key = "sk-reflected-secret-0042";
  FakeOpenAiServer server([&](const nlohmann::json& body, int) {
    FakeAction a;
    if (body.value("model", "") == "echo-401") {
      a.kind = FakeAction::status;
      a.code = 401;
      a.body = R"({"error":{"message":"Incorrect API key provided: Bearer )" + key +
               R"(. You can find your API key at https://example.com/keys."}})";
    } else if (body.value("model", "") == "echo-long") {
      // The key straddles the 200 characters of the error excerpt.
      a.kind = FakeAction::status;
      a.code = 403;
      a.body = R"({"error":")" + std::string(180, '.') + " Bearer " + key + R"("})";
    } else {
      a.content = "your key is " + key + ", right?";
    }
    return a;
  });
  LlmClient client(Endpoint::parse(server.url()), key, fast());
  const ChatAttempt denied = client.post(R"({"model":"echo-401"})");
  CHECK(denied.failure == FailureKind::client_error);
  CHECK(denied.error == "HTTP 401: Incorrect API key provided: Bearer ***. You can find your "
                        "API key at https://example.com/keys.");
  const ChatAttempt cut = client.post(R"({"model":"echo-long"})");
  CHECK(cut.error.find("sk-refl") == std::string::npos);
  CHECK(cut.error.find("Bearer ***") != std::string::npos);
  const ChatAttempt echoed = client.post(R"({"model":"echo-reply"})");
  REQUIRE(echoed.ok());
  CHECK(echoed.content == "your key is ***, right?");
  // The key still went in the header, whole.
  CHECK(server.requests().at(0).authorization == "Bearer " + key);
}

TEST_CASE("llm_client: a user:password@ in the URL is refused without being echoed") {
  try {
    Endpoint::parse("http://alice:hunter2-secret@llm.example.com:8000/v1");
    FAIL("accepted");
  } catch (const InputError& e) {
    const std::string what = e.what();
    CHECK(what.find("hunter2") == std::string::npos);
    CHECK(what.find("alice") == std::string::npos);
    CHECK(what.find("'http://***@llm.example.com:8000/v1'") != std::string::npos);
  }
}

} // namespace llm_client_test
