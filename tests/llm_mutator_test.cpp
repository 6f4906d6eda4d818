// The LLM mutator against the fake server: order under concurrency, recording, replay,
// resume, budgets, and where the key goes.
#include "evolve/mutators/llm_mutator.hpp"
#include "ir/error.hpp"
#include "ir/text.hpp"
#include "support/fake_openai_server.hpp"
#include "support/fixtures.hpp"
#include "support/shell.hpp"
#include "support/temp_dir.hpp"

#include <chrono>
#include <doctest/doctest.h>

// In a namespace of its own: the test files are compiled several to a unit (unity build).
namespace llm_mutator_test {

using namespace tv;
using test::FakeAction;
using test::FakeOpenAiServer;

namespace {

const char* kKey = "sk-mutator-test-4c1d";

LlmSettings settings_for(const std::string& url, const std::string& models = "m") {
  LlmSettings s;
  s.url = url;
  s.models = ModelEnsemble::parse(models);
  s.retry.retries = 2;
  s.retry.backoff_s = 0.001;
  s.http.read_timeout_s = 2;
  s.http.connect_timeout_s = 1;
  return s;
}

std::vector<MutationRequest> requests(int n, std::uint64_t first_seed = 0) {
  std::vector<MutationRequest> out;
  for (int i = 0; i < n; ++i) {
    MutationRequest r;
    r.parent_text = print_program(test::lecture_problem("h100").expert);
    r.seed = first_seed + std::uint64_t(i);
    out.push_back(r);
  }
  return out;
}

/// Answers "reply <seed>", later seeds faster (so answers arrive out of order).
FakeAction by_seed(const nlohmann::json& body, int) {
  FakeAction a;
  const auto seed = body.value("seed", 0);
  a.content = "reply " + std::to_string(seed);
  a.delay_ms = int(10 - seed % 10) * 12;
  a.prompt_tokens = 100 + seed;
  return a;
}

} // namespace

TEST_CASE("llm_mutator: replies come back in request order with several requests in flight") {
  FakeOpenAiServer server(by_seed);
  const PromptTarget target = prompt_target_for(test::lecture_problem("h100"));
  LlmRuntime rt;
  rt.concurrency = 4;
  rt.api_key = kKey;
  LlmMutator m(settings_for(server.url()), target, rt);
  const auto t0 = std::chrono::steady_clock::now();
  const auto replies = m.propose_all(requests(8));
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  REQUIRE(replies.size() == 8);
  for (int i = 0; i < 8; ++i) {
    CHECK(replies[std::size_t(i)].ok);
    CHECK(replies[std::size_t(i)].text == "reply " + std::to_string(i));
    CHECK(replies[std::size_t(i)].prompt_tokens == 100 + i);
    CHECK(replies[std::size_t(i)].model == "m");
    CHECK(replies[std::size_t(i)].op == "llm-diff");
  }
  // The delays add up to 0.64 s; four at a time take about a third of that. The time is only
  // reported (a loaded machine stretches it); what is checked is that requests overlapped on
  // the server, and never more than the concurrency allows.
  MESSAGE("8 requests, 4 in flight: " << took << " s, at most " << server.max_in_flight()
                                      << " at once on the server");
  CHECK(server.max_in_flight() >= 2);
  CHECK(server.max_in_flight() <= 4);
  for (const auto& r : server.requests())
    CHECK(r.authorization == std::string("Bearer ") + kKey);
  const auto stats = m.stats();
  CHECK(stats["total"]["requests"] == 8);
  CHECK(stats["total"]["prompt_tokens"] == 8 * 100 + 28);
}

TEST_CASE("llm_mutator: a recording replays without a server, and a different request is refused") {
  const test::ScratchDir scratch("tilevolve_llm_mutator_replay");
  const std::string dir = scratch.path;
  const std::string log = dir + "/llm_exchanges.ndjson";
  LlmSettings s;
  nlohmann::json recorded_stats;
  std::vector<MutationReply> recorded;
  {
    FakeOpenAiServer server([](const nlohmann::json& body, int nth) {
      if (body.value("seed", 0) == 2 && nth == 0) {
        FakeAction a{FakeAction::status};
        a.code = 500;
        return a;
      }
      return by_seed(body, nth);
    });
    s = settings_for(server.url(), "a:0.5,b:0.5");
    LlmRuntime rt;
    rt.concurrency = 3;
    rt.api_key = kKey;
    rt.record_path = log;
    LlmMutator m(s, prompt_target_for(test::lecture_problem("h100")), rt);
    recorded = m.propose_all(requests(6));
    recorded_stats = m.stats();
  }                                                // the server is gone now
  CHECK(recorded_stats["total"]["attempts"] == 7); // one 500, retried
  CHECK(test::read_text(log).find(kKey) == std::string::npos);

  LlmRuntime rt;
  rt.replay_path = log;
  LlmMutator replay(s, prompt_target_for(test::lecture_problem("h100")), rt);
  const auto again = replay.propose_all(requests(6));
  REQUIRE(again.size() == recorded.size());
  for (std::size_t i = 0; i < again.size(); ++i) {
    CHECK(again[i].text == recorded[i].text);
    CHECK(again[i].model == recorded[i].model);
    CHECK(again[i].latency_s == recorded[i].latency_s);
  }
  CHECK(replay.stats() == recorded_stats);
  CHECK(replay.answered_from_recording() == 6);
  CHECK_THROWS_WITH_AS(replay.propose_all(requests(1)),
                       doctest::Contains("the recording has no answer for request 6"), InputError);

  LlmMutator other(s, prompt_target_for(test::lecture_problem("h100")), rt);
  CHECK_THROWS_WITH_AS(other.propose_all(requests(1, 50)),
                       doctest::Contains("request 0 differs from the recorded one"), InputError);
}

TEST_CASE("llm_mutator: resume reuses answered requests and continues unfinished retries") {
  const test::ScratchDir scratch("tilevolve_llm_mutator_resume");
  const std::string dir = scratch.path;
  const std::string log = dir + "/llm_exchanges.ndjson";
  FakeOpenAiServer server([](const nlohmann::json& body, int nth) {
    if (body.value("seed", 0) == 1 && nth == 0) {
      FakeAction a{FakeAction::status};
      a.code = 503;
      return a;
    }
    return by_seed(body, nth);
  });
  const LlmSettings s = settings_for(server.url());
  const PromptTarget target = prompt_target_for(test::lecture_problem("h100"));
  std::vector<MutationReply> reference;
  {
    LlmRuntime rt;
    rt.record_path = log;
    LlmMutator m(s, target, rt);
    reference = m.propose_all(requests(3));
  }
  // Cut the log as a kill would: request 0 answered, request 1 only its failed attempt, and
  // half a line of request 2.
  const auto rec = ExchangeRecording::load(log, false);
  std::string cut = record_line(rec.of(0)[0]) + record_line(rec.of(1)[0]);
  cut += record_line(rec.of(2)[0]).substr(0, 40);
  std::ofstream(log, std::ios::trunc) << cut;
  server.clear();

  LlmRuntime rt;
  rt.record_path = log;
  rt.resume = true;
  LlmMutator m(s, target, rt);
  const auto replies = m.propose_all(requests(3));
  for (std::size_t i = 0; i < 3; ++i)
    CHECK(replies[i].text == reference[i].text);
  CHECK(replies[1].attempts == 2); // the recorded 503, then the answer
  CHECK(m.answered_from_recording() == 1);
  const auto sent = server.requests();
  REQUIRE(sent.size() == 2); // requests 1 and 2, never 0
  for (const auto& r : sent)
    CHECK(r.body["seed"] != 0);
  const auto after = ExchangeRecording::load(log, false);
  CHECK(after.answered(0));
  CHECK(after.answered(1));
  CHECK(after.of(1).size() == 2);
  CHECK(after.answered(2));
}

TEST_CASE("llm_mutator: a request budget stops it and its state survives a checkpoint") {
  FakeOpenAiServer server(by_seed);
  LlmSettings s = settings_for(server.url());
  s.limits.max_requests = 4;
  const PromptTarget target = prompt_target_for(test::lecture_problem("h100"));
  LlmMutator m(s, target, {});
  CHECK(m.remaining_requests() == 4);
  m.propose_all(requests(4));
  CHECK(m.remaining_requests() == 0);
  CHECK(m.exhausted() == "request budget spent: 4 of 4 requests");
  LlmMutator copy(s, target, {});
  copy.restore(m.state());
  CHECK(copy.exhausted() == m.exhausted());
  CHECK(copy.stats() == m.stats());
  CHECK(copy.state() == m.state());
  CHECK(m.settings()["kind"] == "llm");
  CHECK(m.settings()["prompts_digest"].get<std::string>().size() == 16);
  CHECK(m.name() == "llm (m)");
}

TEST_CASE("llm_mutator: two failed diffs of a parent switch the prompt to a whole program") {
  MutationRequest r;
  CHECK(LlmMutator::prompt_kind(r, "auto") == PromptKind::diff);
  r.previous_attempts = {{"llm-diff", "diff_failed", "x"}, {"llm-diff", "diff_failed", "y"}};
  CHECK(LlmMutator::prompt_kind(r, "auto") == PromptKind::full);
  CHECK(LlmMutator::prompt_kind(r, "diff") == PromptKind::diff);
  r.previous_attempts.push_back({"llm-rewrite", "full", "better"});
  CHECK(LlmMutator::prompt_kind(r, "auto") == PromptKind::diff);
  MutationRequest plain;
  CHECK(LlmMutator::prompt_kind(plain, "full") == PromptKind::full);
}

} // namespace llm_mutator_test
