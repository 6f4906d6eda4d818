// Exit statuses: a run that stops because what it depends on gave out (its LLM server, its
// workers) exits 4, not 0, and says so as it happens; --help lists the statuses.
#include "support/fake_worker.hpp"
#include "support/shell.hpp"
#include "support/temp_dir.hpp"
#include "support/text_match.hpp"
#include "support/webdriver.hpp"

#include <doctest/doctest.h>
#include <string>

// In a namespace of its own: the test files are compiled several to a unit (unity build).
namespace exit_status_test {

namespace {

using tv::test::contains;
using tv::test::squeezed;

tv::test::ShellResult tilevolve(const std::string& args) {
  return tv::test::run_shell(std::string(TILEVOLVE_BINARY) + " " + args + " 2>&1");
}

} // namespace

TEST_CASE("exit_status: a run whose LLM server is down exits 4, the first failure shown first") {
  tv::test::ScratchDir dir("tv_exit_status");
  const int port = tv::test::free_port(); // nothing listens there
  const std::string run = dir.at("run");
  const auto r =
      tilevolve("evolve --gpu h100 --llm openai:http://127.0.0.1:" + std::to_string(port) +
                "/v1 --llm-model m --llm-retries 1 --llm-backoff 0.01 "
                "--llm-max-failures 2 --budget 40 --quiet --out " +
                run);
  CHECK(r.status == 4);
  const auto first = r.out.find("tilevolve: warning: an LLM request failed (connection");
  REQUIRE(first != std::string::npos);
  CHECK(contains(r.out, "; retrying in ")); // printed before the retry, not after it
  CHECK(r.out.find("an LLM request failed", first + 30) == std::string::npos); // once
  // Checked between batches: the whole first batch (8 requests) has failed by then.
  const auto report = r.out.find("stopped: the LLM server failed 8 requests in a row");
  REQUIRE(report != std::string::npos);
  CHECK(first < report);
  CHECK(contains(r.out, "tilevolve: error: the run stopped early: the LLM server failed 8 "
                        "requests in a row"));
  CHECK(contains(r.out, "(exit status 4); --resume " + run + " continues it"));
  CHECK(contains(tv::test::read_text(run + "/summary.txt"), "failed 8 requests in a row"));
}

TEST_CASE("exit_status: a run that spends its budget as planned exits 0") {
  const auto r = tilevolve("evolve --gpu h100 --budget 16 --quiet");
  CHECK(r.status == 0);
  CHECK_FALSE(contains(r.out, "tilevolve: error"));
}

TEST_CASE("exit_status: a measured run left without workers exits 4") {
  tv::test::ScratchDir dir("tv_exit_status_workers");
  const auto r =
      tilevolve("evolve --gpu h100 --backend measured --budget 40 --quiet --worker-timeout 5 "
                "--worker-max-backoff 0.2 --cache " +
                dir.at("m.csv") + " --devices 0 --worker-cmd \"" +
                tv::test::fake_worker_cmd("--crash-after 0") + "\"");
  CHECK(r.status == 4);
  CHECK(contains(r.out, "no worker is left to measure with"));
}

TEST_CASE("exit_status: --help lists the exit statuses, wrapped at the terminal's width") {
  const auto r =
      tv::test::run_shell("COLUMNS=80 " + std::string(TILEVOLVE_BINARY) + " evolve --help");
  CHECK(r.status == 0);
  CHECK(contains(squeezed(r.out), "Exit status: 0 success;"));
  CHECK(contains(squeezed(r.out), "4 a run stopped because its LLM server failed"));
  std::size_t longest = 0, start = 0;
  while (start < r.out.size()) {
    std::size_t end = r.out.find('\n', start);
    if (end == std::string::npos) end = r.out.size();
    longest = std::max(longest, end - start);
    start = end + 1;
  }
  // Long words (a path in a default) may stand alone past the width; nothing like the
  // hundreds of characters of an unwrapped description.
  CHECK(longest <= 120);
  const auto top = tv::test::run_shell("COLUMNS=80 " + std::string(TILEVOLVE_BINARY) + " --help");
  CHECK(contains(squeezed(top.out), "Exit status: 0 success;"));
}

} // namespace exit_status_test
