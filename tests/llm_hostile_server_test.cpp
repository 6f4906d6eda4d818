// End to end: the real tilevolve binary against LLM servers that misbehave on purpose (issue
// 19): one that trickles its answer a byte at a time, one that reports absurd token counts,
// one that reflects the API key back in its error. Each runs in a thread of this process on
// 127.0.0.1.
#include "evolve/mutators/exchange_log.hpp"
#include "support/fake_openai_server.hpp"
#include "support/fixtures.hpp"
#include "support/shell.hpp"
#include "support/temp_dir.hpp"
#include "support/trickle_server.hpp"

#include <chrono>
#include <cstdlib>
#include <doctest/doctest.h>
#include <filesystem>
#include <fmt/format.h>

// In a namespace of its own: the test files are compiled several to a unit (unity build).
namespace llm_hostile_server_test {

using namespace tv;
using test::FakeAction;
using test::FakeOpenAiServer;
namespace fs = std::filesystem;

namespace {

const char* kKey = "sk-hostile-secret-5c2e88";

/// Runs tilevolve with `args`, stderr into `err_file`.
test::ShellResult run(const std::string& args, const std::string& err_file) {
  return test::run_shell(std::string(TILEVOLVE_BINARY) + " " + args + " 2>" + err_file);
}

/// Every byte of the files under `dir`.
std::string all_files(const std::string& dir) {
  std::string out;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.is_regular_file()) out += test::read_text(e.path().string());
  return out;
}

} // namespace

TEST_CASE("llm hostile server: an answer trickled a byte at a time times out and is recorded") {
  ::unsetenv("OPENAI_API_KEY");
  // A valid answer at 40 ms a byte takes about 12 s; --llm-timeout 1 must cut it off.
  test::TrickleServer server(FakeOpenAiServer::completion(std::string(200, 'x'), 10, 2, true),
                             std::chrono::milliseconds(40));
  test::ScratchDir d("tilevolve_trickle");
  const std::string dir = d.at("run"), err = d.at("stderr");
  const auto t0 = std::chrono::steady_clock::now();
  const test::ShellResult r =
      run("evolve --llm openai:" + server.url() +
              " --llm-model m --gpu h100 --quiet --json --budget 2 --llm-concurrency 2 "
              "--llm-timeout 1 --llm-retries 0 --out " +
              dir,
          err);
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  INFO(test::read_text(err));
  // Neither proposal was answered: the run failed (its files are written all the same).
  REQUIRE(r.status == 4);
  CHECK(test::read_text(err).find("the LLM answered none of the 2 proposals") != std::string::npos);
  CHECK(took < 20);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j["llm"]["total"]["requests"] == 2);
  CHECK(j["llm"]["total"]["failures"].value("timeout", 0) == 2);
  const auto rec = ExchangeRecording::load(dir + "/llm_exchanges.ndjson", false);
  REQUIRE(rec.size() == 2);
  for (std::uint64_t n = 0; n < 2; ++n) {
    REQUIRE(rec.of(n).size() == 1);
    CHECK(rec.of(n).front().attempt.failure == FailureKind::timeout);
    CHECK(rec.of(n).front().attempt.latency_s < 5);
  }
}

TEST_CASE("llm hostile server: token counts of 2^63 - 1 saturate and the token budget stops the "
          "run after the first batch") {
  ::unsetenv("OPENAI_API_KEY");
  const long long huge = 9223372036854775807LL;
  FakeOpenAiServer server([&](const nlohmann::json& body, int) {
    FakeAction a{FakeAction::raw};
    a.body =
        nlohmann::json{
            {"choices",
             {{{"message",
                {{"role", "assistant"},
                 {"content", test::mock_answer(test::gpu("h100"), body).reply.text}}},
               {"finish_reason", "stop"}}}},
            {"usage",
             {{"prompt_tokens", huge}, {"completion_tokens", huge}, {"total_tokens", huge}}}}
            .dump();
    return a;
  });
  test::ScratchDir d("tilevolve_huge_tokens");
  const std::string err = d.at("stderr");
  const std::string args = "evolve --llm openai:" + server.url() +
                           " --llm-model m --gpu h100 --quiet --budget 20 --max-tokens 1000";
  const test::ShellResult r = run(args + " --json", err);
  INFO(test::read_text(err));
  REQUIRE(r.status == 0);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j["stop_reason"] == "token budget spent: 9,223,372,036,854,775,807 of 1,000 tokens");
  CHECK(j["programs"] == 8); // one batch, not the whole budget
  CHECK(j["llm"]["total"]["requests"] == 8);
  CHECK(j["llm"]["total"]["tokens"] == huge);
  CHECK(j["llm"]["total"]["prompt_tokens"] == huge);
  const test::ShellResult text = run(args + " --explain", err);
  REQUIRE(text.status == 0);
  CHECK(text.out.find("Tokens: 9,223,372,036,854,775,807 (9,223,372,036,854,775,807 prompt + "
                      "9,223,372,036,854,775,807 completion)") != std::string::npos);
  CHECK(text.out.find("Tokens: -") == std::string::npos);
}

TEST_CASE("llm hostile server: a key the server reflects back is masked in every file and "
          "message, and so is a user:password@ of the URL") {
  ::setenv("OPENAI_API_KEY", kKey, 1);
  FakeOpenAiServer server([](const nlohmann::json&, int) {
    FakeAction a{FakeAction::status};
    a.code = 401;
    a.body = fmt::format(R"({{"error":{{"message":"Incorrect API key provided: Bearer {}. )"
                         R"(Check your key.","type":"invalid_request_error"}}}})",
                         kKey);
    return a;
  });
  test::ScratchDir d("tilevolve_reflected_key");
  const std::string dir = d.at("run"), err = d.at("stderr");
  const test::ShellResult r = run("evolve --llm openai:" + server.url() +
                                      " --llm-model m --gpu h100 --budget 8 --llm-concurrency 2 "
                                      "--out " +
                                      dir,
                                  err);
  const std::string stderr_text = test::read_text(err);
  INFO(stderr_text);
  REQUIRE(fs::exists(dir + "/llm_exchanges.ndjson"));
  for (const auto& q : server.requests())
    CHECK(q.authorization == std::string("Bearer ") + kKey);
  const std::string files = all_files(dir);
  CHECK(files.find(kKey) == std::string::npos);
  CHECK(files.find("sk-hostile") == std::string::npos);
  CHECK(r.out.find(kKey) == std::string::npos);
  CHECK(stderr_text.find(kKey) == std::string::npos);
  // What the server said is kept, with the key masked.
  CHECK(test::read_text(dir + "/llm_exchanges.ndjson")
            .find("Incorrect API key provided: Bearer ***. Check your key.") != std::string::npos);
  CHECK(test::read_text(dir + "/events.ndjson").find("Bearer ***") != std::string::npos);

  const test::ShellResult url = run(
      "evolve --llm openai:http://alice:hunter2-pass@127.0.0.1:1/v1 --llm-model m --budget 2", err);
  CHECK(url.status == 2);
  const std::string url_err = test::read_text(err);
  CHECK(url_err.find("hunter2") == std::string::npos);
  CHECK(url_err.find("http://***@127.0.0.1:1/v1") != std::string::npos);
}

} // namespace llm_hostile_server_test
