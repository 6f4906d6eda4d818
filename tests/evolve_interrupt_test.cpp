// End to end: `evolve` stopped by SIGTERM or SIGINT stops between two batches of the search,
// writes its checkpoint there, exits with 128 + the signal's number and says how to continue;
// --resume then gives the result of the run that was never stopped. (The measured path, with
// workers, is in measured_faults_test.cpp.)
#include "support/process.hpp"
#include "support/shell.hpp"
#include "support/temp_dir.hpp"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <unistd.h>

// In a namespace of its own: the test files are compiled several to a unit (unity build).
namespace evolve_interrupt_test {

namespace {

using tv::test::ScratchDir;

/// Waits up to `seconds` for `file` to hold `text`.
bool wait_for_text(const std::string& file, const std::string& text, double seconds = 60) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < end) {
    if (tv::test::read_text(file).find(text) != std::string::npos) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return false;
}

/// The CPU seconds (user + system) process `pid` has used so far; -1 when it is gone.
double cpu_seconds(pid_t pid) {
  const std::string stat = tv::test::read_text("/proc/" + std::to_string(pid) + "/stat");
  const std::size_t close = stat.rfind(')'); // the command name may hold spaces
  if (close == std::string::npos) return -1;
  std::istringstream in(stat.substr(close + 2));
  std::string field;
  double ticks = 0;
  for (int i = 3; i <= 15 && in >> field; ++i) // fields 14 and 15: utime, stime
    if (i >= 14) ticks += std::stod(field);
  return ticks / double(::sysconf(_SC_CLK_TCK));
}

nlohmann::json run_json(const std::string& args) {
  const auto r = tv::test::run_shell(std::string(TILEVOLVE_BINARY) + " " + args +
                                     " --json --quiet 2>/dev/null");
  REQUIRE(r.status == 0);
  return nlohmann::json::parse(r.out);
}

} // namespace

TEST_CASE("evolve interrupt: SIGTERM checkpoints the search where it stood and --resume gives "
          "the result of the run never stopped") {
  ScratchDir dir("tv_interrupt");
  const std::string out = dir.at("run");
  const std::string log = dir.at("log.txt");
  // Checkpoints by time only (--checkpoint-every 0: every 10 s), so the run's last checkpoint
  // is the one the signal writes.
  const std::vector<std::string> args = {"--gpu", "h100", "--budget", "3000", "--checkpoint-every",
                                         "0"};
  std::vector<std::string> argv = {TILEVOLVE_BINARY, "evolve"};
  argv.insert(argv.end(), args.begin(), args.end());
  for (const char* a : {"--quiet", "--out"})
    argv.push_back(a);
  argv.push_back(out);
  tv::test::Process p(argv, log);
  // The search is under way once a hundred programs are in the event stream.
  REQUIRE(wait_for_text(out + "/events.ndjson", "\"n\":100,"));
  const int status = p.stop(SIGTERM, 120);
  const std::string said = p.output();
  INFO(said);
  CHECK(status == 128 + SIGTERM);
  std::smatch m;
  REQUIRE(std::regex_search(said, m, std::regex(R"(stopped by SIGTERM after (\d+) programs)")));
  const long long stopped_at = std::stoll(m[1].str());
  CHECK(stopped_at >= 100);
  CHECK(stopped_at < 3000);
  CHECK(said.find("tilevolve evolve --resume " + out + " continues it") != std::string::npos);
  // The checkpoint is the run as it stood at the stop; no summary was written.
  const auto cp = nlohmann::json::parse(tv::test::read_text(out + "/checkpoint.json"));
  CHECK(cp["state"]["done"] == stopped_at);
  CHECK_FALSE(std::filesystem::exists(out + "/summary.json"));
  // The event stream ends on the interruption, after the checkpoint's offset (which a resume
  // truncates to).
  const std::string events = tv::test::read_text(out + "/events.ndjson");
  const std::size_t cut = events.rfind('\n', events.size() - 2) + 1;
  const auto last = nlohmann::json::parse(events.substr(cut));
  CHECK(last["event"] == "interrupted");
  CHECK(last["programs"] == stopped_at);
  CHECK(cp["state"]["events_offset"].get<std::size_t>() == cut);
  // Resumed, it ends where the run never stopped ends.
  const auto resumed = run_json("evolve --resume " + out);
  std::string plain_args;
  for (const auto& a : args)
    plain_args += " " + a;
  const auto plain = run_json("evolve" + plain_args);
  CHECK(resumed["resumed"] == true);
  CHECK(resumed["programs"] == 3000);
  CHECK(resumed["best"]["program"] == plain["best"]["program"]);
  CHECK(resumed["train"] == plain["train"]);
  CHECK(resumed["test"] == plain["test"]);
  CHECK(resumed["counters"] == plain["counters"]);
  CHECK(tv::test::read_text(out + "/events.ndjson").find("\"interrupted\"") == std::string::npos);
}

TEST_CASE("evolve interrupt: without --out, SIGINT stops the run and says that nothing was "
          "kept") {
  ScratchDir dir("tv_interrupt");
  const std::string log = dir.at("log.txt");
  // Without a terminal or a run directory the run shows nothing until it ends: the signal goes
  // once it has used 2 CPU-s, well past loading the problem (0.1 CPU-s, 0.5 sanitized; the budget
  // lasts hours).
  tv::test::Process p({TILEVOLVE_BINARY, "evolve", "--gpu", "h100", "--budget", "100000000"}, log);
  const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (cpu_seconds(p.pid()) < 2 && std::chrono::steady_clock::now() < end)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  REQUIRE(cpu_seconds(p.pid()) >= 2);
  const int status = p.stop(SIGINT, 120);
  const std::string said = p.output();
  INFO(said);
  CHECK(status == 128 + SIGINT);
  CHECK(said.find("stopped by SIGINT after ") != std::string::npos);
  CHECK(said.find("without --out nothing was kept") != std::string::npos);
}

} // namespace evolve_interrupt_test
