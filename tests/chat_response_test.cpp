#include "evolve/mutators/chat_response.hpp"

#include <doctest/doctest.h>

// In a namespace of its own: the test files are compiled several to a unit (unity build).
namespace chat_response_test {

using namespace tv;

TEST_CASE("chat_response: content, finish reason and usage of a completion") {
  const auto r = parse_chat_response(
      R"({"choices":[{"message":{"role":"assistant","content":"hi"},"finish_reason":"stop"}],)"
      R"("usage":{"prompt_tokens":12,"completion_tokens":3,"total_tokens":15}})");
  REQUIRE(r.ok);
  CHECK(r.content == "hi");
  CHECK(r.finish_reason == "stop");
  CHECK(r.has_usage);
  CHECK(r.prompt_tokens == 12);
  CHECK(r.completion_tokens == 3);
  const auto no_usage = parse_chat_response(R"({"choices":[{"message":{"content":"x"}}]})");
  REQUIRE(no_usage.ok);
  CHECK_FALSE(no_usage.has_usage);
}

TEST_CASE("chat_response: malformed bodies are failures with a reason, never throws") {
  CHECK(parse_chat_response("{not json").error.rfind("invalid JSON", 0) == 0);
  CHECK(parse_chat_response("[1]").error == "the response is not a JSON object");
  CHECK(parse_chat_response(R"({"choices":[]})").error == "the response has no choices");
  CHECK(parse_chat_response(R"({"choices":[{"message":{"content":null}}]})").error ==
        "the message has no text content");
  CHECK(parse_chat_response(R"({"choices":[{"text":"x"}]})").error ==
        "the first choice has no message");
  CHECK(parse_chat_response(R"({"error":{"message":"model not found"}})").error ==
        "error response: model not found");
  const auto neg = parse_chat_response(
      R"({"choices":[{"message":{"content":"x"}}],"usage":{"prompt_tokens":-5}})");
  CHECK(neg.prompt_tokens == 0);
}

TEST_CASE("chat_response: error messages are one printable line") {
  CHECK(error_message_of(R"({"error":{"message":"rate\nlimited"}})") == "rate limited");
  CHECK(error_message_of(R"({"error":"busy"})") == "busy");
  CHECK(error_message_of("Bad Gateway\xff") == "Bad Gateway\\xff");
  CHECK(error_message_of(std::string(500, 'x')).size() == 203);
}

TEST_CASE("chat_response: usage counts beyond the largest count saturate, negative ones are 0") {
  const auto r = parse_chat_response(
      R"({"choices":[{"message":{"content":"x"}}],)"
      R"("usage":{"prompt_tokens":18446744073709551615,"completion_tokens":9223372036854775807}})");
  REQUIRE(r.ok);
  CHECK(r.prompt_tokens == 9223372036854775807LL);
  CHECK(r.completion_tokens == 9223372036854775807LL);
  const auto negative = parse_chat_response(
      R"({"choices":[{"message":{"content":"x"}}],"usage":{"prompt_tokens":-7}})");
  CHECK(negative.prompt_tokens == 0);
}

} // namespace chat_response_test
