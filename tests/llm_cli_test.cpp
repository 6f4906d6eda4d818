// End to end: the real tilevolve binary against the fake OpenAI-compatible server, which runs in
// a thread of this test process on 127.0.0.1.
#include "evolve/mutators/exchange_log.hpp"
#include "evolve/mutators/llm_prompts.hpp"
#include "support/fake_openai_server.hpp"
#include "support/fixtures.hpp"
#include "support/shell.hpp"
#include "support/temp_dir.hpp"

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <doctest/doctest.h>
#include <fcntl.h>
#include <filesystem>
#include <fmt/format.h>
#include <map>
#include <set>
#include <sstream>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

// In a namespace of its own: the test files are compiled several to a unit (unity build).
namespace llm_cli_test {

using namespace tv;
using test::FakeAction;
using test::FakeOpenAiServer;
namespace fs = std::filesystem;

namespace {

const char* kKey = "sk-e2e-secret-7f3a91";

/// `name` in `scratch`, not created yet (a run directory the binary makes).
std::string temp_dir(const test::ScratchDir& scratch, const std::string& name) {
  return scratch.at(name);
}

/// Runs tilevolve with `args`; stderr goes to `err_file` when given, else to /dev/null.
test::ShellResult run(const std::string& args, const std::string& err_file = "") {
  return test::run_shell(std::string(TILEVOLVE_BINARY) + " " + args + " 2>" +
                         (err_file.empty() ? std::string("/dev/null") : err_file));
}

/// One scripted behaviour per request, chosen by the request's seed; transport failures happen
/// the first time a body arrives, its retry is answered.
FakeAction scripted(const nlohmann::json& body, int nth) {
  const Gpu& gpu = test::gpu("h100");
  const std::uint64_t seed = body.value("seed", std::uint64_t(0));
  const MockProposal good = test::mock_answer(gpu, body);
  FakeAction a;
  a.content = good.reply.text;
  a.completion_tokens = 40 + long(seed % 7);
  switch (seed % 13) {
  case 3: // a diff that does not apply
    a.content = "Tighten decode:\n<<<<<<< SEARCH\n    if M <= 99999:\n=======\n    if M <= 1:\n"
                ">>>>>>> REPLACE\n";
    break;
  case 4: // prose only
    a.content = "I would use bigger tiles for prefill and keep decode as it is.";
    break;
  case 5: // the whole program
    if (good.child)
      a.content = "Here is the program:\n```python\n" + print_program(*good.child) + "```\n";
    break;
  case 6: // a draft diff inside thinking, then the answer
    a.content = "<think>\nMaybe\n<<<<<<< SEARCH\n    if M <= 99999:\n=======\n    if M <= 1:\n"
                ">>>>>>> REPLACE\nno.\n</think>\n" +
                good.reply.text;
    break;
  case 7: // invalid JSON (not retried)
    a.kind = FakeAction::raw;
    a.body = "{\"choices\": [{\"message\": ";
    break;
  case 8:
    if (nth == 0) {
      a.kind = FakeAction::status;
      a.code = 429;
      a.retry_after = "0.05";
      a.body = R"({"error":{"message":"rate limited"}})";
    }
    break;
  case 9:
    if (nth == 0) {
      a.kind = FakeAction::status;
      a.code = 500;
    }
    break;
  case 10:
    if (nth == 0) a.kind = FakeAction::drop;
    break;
  case 11:
    if (nth == 0) a.delay_ms = 2500; // beyond --llm-timeout 1
    break;
  case 12: { // an edit that breaks the program
    const std::string parent = test::parent_of(body);
    const auto last = parent.rfind("    return Config(");
    if (last != std::string::npos) {
      const std::string line = parent.substr(last, parent.find('\n', last) - last);
      a.content = "<<<<<<< SEARCH\n" + line +
                  "\n=======\n    return Config(BM=128, BN=\n"
                  ">>>>>>> REPLACE\n";
    }
    break;
  }
  default:
    break;
  }
  return a;
}

/// Every byte of the files under `dir`.
std::string all_files(const std::string& dir) {
  std::string out;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.is_regular_file()) out += test::read_text(e.path().string());
  return out;
}

/// The events with latencies (which a resumed run measures anew) removed.
std::string events_without_latency(const std::string& text) {
  std::istringstream in(text);
  std::string line, out;
  while (std::getline(in, line)) {
    auto e = nlohmann::json::parse(line);
    e.erase("latency_s");
    if (e.contains("llm")) e.erase("llm");
    out += e.dump() + "\n";
  }
  return out;
}

std::string llm_args(const FakeOpenAiServer& server) {
  return "--llm openai:" + server.url() + " --llm-model fake-coder --gpu h100 --quiet";
}

} // namespace

TEST_CASE("llm cli: an evolution against a misbehaving server finishes, counts every case, "
          "improves and never leaks the key, and its replay is byte for byte the same") {
  const test::ScratchDir scratch("tilevolve_llm_cli_test");
  ::setenv("OPENAI_API_KEY", kKey, 1);
  FakeOpenAiServer server(scripted);
  const std::string dir = temp_dir(scratch, "run");
  const std::string err = dir + ".stderr";
  const test::ShellResult r =
      run("evolve " + llm_args(server) +
              " --json --budget 78 --seed 2 --llm-concurrency 4 --llm-timeout 1 "
              "--llm-backoff 0.001 --llm-retries 3 --out " +
              dir,
          err);
  INFO(test::read_text(err));
  REQUIRE(r.status == 0);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j["stop_reason"] == "budget");
  CHECK(j["programs"] == 78);
  const auto& llm = j["llm"]["total"];
  MESSAGE("LLM cost: " << llm.dump());
  MESSAGE("counters: " << j["counters"].dump());
  CHECK(llm["requests"] == 78);
  for (const char* kind : {"rate_limited", "server_error", "connection", "timeout", "bad_response"})
    CHECK_MESSAGE(llm["failures"].value(kind, 0) >= 1, kind);
  CHECK(llm["final_failures"].value("bad_response", 0) >= 1); // invalid JSON is not retried
  CHECK(llm["final_failures"].size() == 1);                   // everything else was retried
  CHECK(llm["attempts"].get<int>() > 78);
  CHECK(llm["prompt_tokens"].get<long long>() > 0);
  CHECK(j["llm"]["models"].contains("fake-coder"));
  const auto& c = j["counters"];
  CHECK(c["mutator_failed"] == llm["failed"]);
  CHECK(c["diff_failed"].get<int>() >= 2); // a diff that does not apply, prose only
  CHECK(c["parse_failed"].get<int>() >= 1);
  CHECK(c["full"].get<int>() >= 10);
  CHECK(j["train"]["speedup_vs_expert"].get<double>() > 1.0);

  // The key went in the Authorization header of every request, and nowhere else.
  const auto requests = server.requests();
  CHECK(requests.size() == std::size_t(llm["attempts"].get<int>()));
  for (const auto& q : requests)
    CHECK(q.authorization == std::string("Bearer ") + kKey);
  CHECK(all_files(dir).find(kKey) == std::string::npos);
  CHECK(r.out.find(kKey) == std::string::npos);
  CHECK(test::read_text(err).find(kKey) == std::string::npos);
  // Every attempt was recorded; with one candidate per parent, request i made program i + 1,
  // so each scripted case can be followed to the stage its program reached.
  const auto rec = ExchangeRecording::load(dir + "/llm_exchanges.ndjson", false);
  CHECK(rec.size() == 78);
  std::map<long long, std::string> stage_of;
  {
    std::istringstream lines(test::read_text(dir + "/events.ndjson"));
    std::string line;
    while (std::getline(lines, line)) {
      const auto e = nlohmann::json::parse(line);
      if (e["event"] == "program" && e["n"] != 0) stage_of[e["n"]] = e["stage"];
    }
  }
  std::map<int, std::set<std::string>> stages_by_case;
  for (std::uint64_t n = 0; n < 78; ++n) {
    const int kind =
        int(nlohmann::json::parse(rec.of(n).front().body)["seed"].get<std::uint64_t>() % 13);
    stages_by_case[kind].insert(stage_of[(long long)n + 1]);
  }
  for (int kind = 0; kind < 13; ++kind) {
    INFO("case " << kind);
    REQUIRE(stages_by_case.count(kind)); // every case came up
    const auto& st = stages_by_case[kind];
    if (kind == 3 || kind == 4) {
      CHECK(st == std::set<std::string>{"diff_failed"});
    } else if (kind == 7) {
      CHECK(st == std::set<std::string>{"mutator_failed"});
    } else if (kind == 12) {
      CHECK(st == std::set<std::string>{"parse_failed"});
    } else { // good edits (whole programs, after thinking, after a retry): none lost on the way
      CHECK(st.count("diff_failed") == 0);
      CHECK(st.count("mutator_failed") == 0);
      CHECK(st.count("parse_failed") == 0);
    }
  }

  // Replays need no server (no request reaches it) and give the same run, byte for byte.
  const std::string events = test::read_text(dir + "/events.ndjson");
  const std::string best = test::read_text(dir + "/best.py");
  REQUIRE(events.size() > 1000);
  for (int inflight : {1, 4}) {
    const std::string again = temp_dir(scratch, fmt::format("replay{}", inflight));
    const test::ShellResult p =
        run(fmt::format("evolve --llm replay:{} --out {} --llm-concurrency {} --quiet --json", dir,
                        again, inflight),
            err);
    INFO(test::read_text(err));
    REQUIRE(p.status == 0);
    CHECK(test::read_text(again + "/events.ndjson") == events);
    CHECK(test::read_text(again + "/best.py") == best);
    const auto pj = nlohmann::json::parse(p.out);
    CHECK(pj["llm"] == j["llm"]);
    CHECK(pj["llm_answered_from_recording"] == 78);
  }
  CHECK(server.requests().size() == requests.size());
}

TEST_CASE("llm cli: an LLM run killed with SIGKILL resumes asking the server only for what was "
          "not recorded, and ends like the uninterrupted run") {
  const test::ScratchDir scratch("tilevolve_llm_cli_test");
  ::setenv("OPENAI_API_KEY", kKey, 1);
  // Good edits only, a little slow, the same answer for the same request however often it comes.
  FakeOpenAiServer server([](const nlohmann::json& body, int) {
    FakeAction a;
    a.content = test::mock_answer(test::gpu("h100"), body).reply.text;
    a.delay_ms = 15;
    return a;
  });
  const std::string common = llm_args(server) + " --json --budget 72 --seed 4 --checkpoint-every 8 "
                                                "--llm-concurrency 2";
  const std::string ref = temp_dir(scratch, "ref");
  REQUIRE(run("evolve " + common + " --out " + ref).status == 0);
  const auto ref_summary = nlohmann::json::parse(test::read_text(ref + "/summary.json"));
  server.clear();

  const std::string dir = temp_dir(scratch, "killed");
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    const std::string line =
        std::string(TILEVOLVE_BINARY) + " evolve " + common + " --out " + dir + " >/dev/null 2>&1";
    execl("/bin/sh", "sh", "-c", ("exec " + line).c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  // Kill it mid-run: after the server has seen 30 of the 72 requests.
  for (int i = 0; i < 2000 && server.requests().size() < 30; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  CHECK(::kill(pid, SIGKILL) == 0);
  int st = 0;
  waitpid(pid, &st, 0);
  REQUIRE(WIFSIGNALED(st)); // it did not finish first
  // What the resumed run must ask for: the requests after its checkpoint that the killed run
  // had not recorded an answer to (the reference run's log says what each request is).
  const auto recorded = ExchangeRecording::load(dir + "/llm_exchanges.ndjson", false);
  const auto reference = ExchangeRecording::load(ref + "/llm_exchanges.ndjson", false);
  const auto checkpoint = nlohmann::json::parse(test::read_text(dir + "/checkpoint.json"));
  const std::uint64_t next = checkpoint["state"]["mutator"]["next_request"];
  std::set<std::string> must_ask;
  std::size_t reusable = 0;
  for (std::uint64_t n = next; n < 72; ++n) {
    REQUIRE(reference.answered(n));
    if (recorded.answered(n)) {
      CHECK(recorded.of(n).front().digest == reference.of(n).front().digest);
      ++reusable;
    } else {
      must_ask.insert(reference.of(n).front().digest);
    }
  }
  MESSAGE("killed after request " << next << " was checkpointed; " << reusable
                                  << " later answers recorded");
  server.clear();

  const test::ShellResult resumed = run("evolve --resume " + dir + " --json --llm-concurrency 3");
  REQUIRE(resumed.status == 0);
  std::set<std::string> asked;
  for (const auto& q : server.requests())
    asked.insert(body_digest(q.body.dump()));
  CHECK(asked == must_ask);
  CHECK(server.requests().size() == must_ask.size()); // each once
  CHECK(nlohmann::json::parse(resumed.out)["llm_answered_from_recording"] == reusable);
  const auto s = nlohmann::json::parse(test::read_text(dir + "/summary.json"));
  CHECK(s["best"]["program"] == ref_summary["best"]["program"]);
  CHECK(s["counters"] == ref_summary["counters"]);
  CHECK(s["llm"]["total"]["requests"] == ref_summary["llm"]["total"]["requests"]);
  CHECK(s["llm"]["total"]["prompt_tokens"] == ref_summary["llm"]["total"]["prompt_tokens"]);
  CHECK(events_without_latency(test::read_text(dir + "/events.ndjson")) ==
        events_without_latency(test::read_text(ref + "/events.ndjson")));
}

TEST_CASE("llm cli: budgets stop a run cleanly, and bad LLM flags exit 2 with a message") {
  const test::ScratchDir scratch("tilevolve_llm_cli_test");
  ::setenv("OPENAI_API_KEY", kKey, 1);
  FakeOpenAiServer server([](const nlohmann::json& body, int) {
    FakeAction a;
    a.content = test::mock_answer(test::gpu("h100"), body).reply.text;
    a.prompt_tokens = 900;
    a.completion_tokens = 100;
    return a;
  });
  const test::ShellResult tokens = run("evolve " + llm_args(server) +
                                       " --json --budget 200 --max-tokens 20000 "
                                       "--llm-concurrency 2");
  REQUIRE(tokens.status == 0);
  const auto tj = nlohmann::json::parse(tokens.out);
  CHECK(tj["stop_reason"] == "token budget spent: 24,000 of 20,000 tokens"); // 3 batches of 8
  CHECK(tj["programs"] == 24);
  const test::ShellResult requests =
      run("evolve " + llm_args(server) + " --json --budget 200 --max-requests 13");
  REQUIRE(requests.status == 0);
  CHECK(nlohmann::json::parse(requests.out)["stop_reason"] ==
        "request budget spent: 13 of 13 requests");
  CHECK(nlohmann::json::parse(requests.out)["programs"] == 13);
  // The brief report says what the LLM cost in a line; --explain has the table per model.
  const test::ShellResult brief = run("evolve " + llm_args(server) + " --budget 8");
  REQUIRE(brief.status == 0);
  CHECK(brief.out.find("LLM: 8 requests, 8,000 tokens (7,200 prompt + 800 completion).") !=
        std::string::npos);
  const test::ShellResult text = run("evolve " + llm_args(server) + " --budget 8 --explain");
  REQUIRE(text.status == 0);
  CHECK(text.out.find("LLM model") != std::string::npos);
  CHECK(text.out.find("fake-coder") != std::string::npos);
  CHECK(text.out.find("Tokens: 8,000 (7,200 prompt + 800 completion)") != std::string::npos);

  const std::string err = temp_dir(scratch, "flags") + ".stderr";
  auto fails_with = [&](const std::string& args, const std::string& message) {
    const test::ShellResult r = run(args, err);
    CHECK(r.status == 2);
    const std::string e = test::read_text(err);
    CHECK_MESSAGE(e.find(message) != std::string::npos, e);
  };
  fails_with("evolve --budget 5 --llm-model x", "--llm-model applies to an LLM server");
  // --model meant a preset without --llm and the LLM's model with it: refused, naming both.
  for (const std::string model : {"--model llama3-8b", "--model=m", "--budget 5 --model x"}) {
    fails_with("evolve " + model, "--model is no longer an option");
    fails_with("evolve --llm openai:" + server.url() + " " + model,
               "give --preset NAME for a model's GEMMs");
    fails_with("baselines " + model, "or --llm-model NAME for the model of the LLM server");
  }
  fails_with("evolve --budget 5 --preset nosuchmodel", "nosuchmodel");
  fails_with("evolve --llm openai:" + server.url() + " --budget 5", "needs --llm-model NAME");
  fails_with("evolve --llm gpt:thing", "expected mock, openai:URL or replay:RUN_DIR");
  fails_with("evolve --llm openai:ftp://x --llm-model m", "expected http://HOST[:PORT]/PATH");
  fails_with("evolve --llm openai:" + server.url() + " --llm-model m --api-key-env TV_NO_SUCH_KEY",
             "the environment variable TV_NO_SUCH_KEY is not set");
  fails_with("evolve --llm openai:" + server.url() + " --llm-model a:1,a:2", "'a' is given twice");
  const std::string mock_run = temp_dir(scratch, "mock");
  REQUIRE(run("evolve --gpu h100 --budget 16 --quiet --out " + mock_run).status == 0);
  fails_with("evolve --llm replay:" + mock_run, "there is nothing to replay");
  fails_with("evolve --llm replay:" + mock_run + " --budget 3", "do not combine it with --budget");

  // A run made with a user's prompts cannot be resumed or replayed once they change.
  const std::string prompts = temp_dir(scratch, "prompts");
  fs::copy(LlmPrompts::default_dir(), prompts);
  const std::string own = temp_dir(scratch, "own_prompts");
  REQUIRE(run("evolve " + llm_args(server) + " --budget 8 --prompts " + prompts + " --out " + own)
              .status == 0);
  CHECK(test::read_text(own + "/llm_exchanges.ndjson").find("Parent program") != std::string::npos);
  std::ofstream(prompts + "/diff_request.txt", std::ios::app) << "\nBe brief.\n";
  fails_with("evolve --resume " + own,
             "the run was made with other prompt templates than those in");
  fails_with("evolve --llm replay:" + own, "the run was made with other prompt templates");
}

TEST_CASE("llm cli: a run whose LLM never answered is a failure, whatever its budget") {
  // Nothing listens on port 9 (discard): every request fails at once, and with no retries the
  // run ends by its budget, having evolved nothing.
  const test::ScratchDir d("tilevolve_llm_never");
  const test::ShellResult r =
      run("evolve --llm openai:http://127.0.0.1:9/v1 --llm-model m --gpu h100 --quiet --budget 8 "
          "--llm-retries 0 --json",
          d.at("err"));
  CHECK(r.status == 4);
  CHECK(test::read_text(d.at("err"))
            .find("the LLM answered none of the 8 proposals the run asked "
                  "for") != std::string::npos);
}

} // namespace llm_cli_test
