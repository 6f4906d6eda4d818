// Hostile files against the real binary (issue 65): deeply nested JSON, long lines, control
// characters, huge key counts and a full disk; each test case says what it guards.
#include "support/http.hpp"
#include "support/process.hpp"
#include "support/property_cases.hpp"
#include "support/serve_process.hpp"
#include "support/shell.hpp"
#include "support/temp_dir.hpp"

#include <doctest/doctest.h>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

// In a namespace of its own: the test files are compiled several to a unit (unity build).
namespace hostile_files_test {

namespace fs = std::filesystem;
using json = nlohmann::json;
using tv::test::get_json;
using tv::test::http_request;
using tv::test::ScratchDir;

namespace {

/// What a finished child process gave: its exit status (-1 for a signal), its output, its peak
/// resident memory and the CPU time it used (user + system).
struct Finished {
  int status = -1;
  std::string out;
  long max_rss_kb = 0;
  double cpu_seconds = 0;
};

/// Runs `argv` to its end with stdout and stderr in `log`; the peak resident memory and CPU
/// time are the child's own (wait4), not those of every child this test process had.
Finished run_measured(const std::vector<std::string>& argv, const std::string& log) {
  std::vector<char*> args;
  for (const auto& a : argv)
    args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  REQUIRE(fd >= 0);
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    // A ceiling, should the reader regress: killed at 4 GiB instead of taking the machine
    // (not under AddressSanitizer, which reserves terabytes of address space).
    if (!tv::test::kSanitizedBuild) {
      const rlimit cap{rlim_t(4) << 30, rlim_t(4) << 30};
      ::setrlimit(RLIMIT_AS, &cap);
    }
    ::dup2(fd, 1);
    ::dup2(fd, 2);
    ::execv(args[0], args.data());
    ::_exit(127);
  }
  ::close(fd);
  int st = 0;
  rusage ru{};
  REQUIRE(::wait4(pid, &st, 0, &ru) == pid);
  Finished f;
  f.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  f.out = tv::test::read_text(log);
  f.max_rss_kb = ru.ru_maxrss;
  f.cpu_seconds = double(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
                  1e-6 * double(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
  return f;
}

} // namespace

TEST_CASE("hostile files: a GPU profile nested 50,000 deep is refused with exit 2 and its "
          "position, in under 300 MB") {
  ScratchDir scratch("tv_hostile_profile");
  for (const std::size_t depth : {std::size_t(50000), std::size_t(100000)}) {
    // {"name": "x", "a": {"a": {"a": ...}}}: a path string per level was 3.8 GB at 50,000.
    std::string text = "{\"name\": \"x\",\n";
    for (std::size_t i = 0; i < depth; ++i)
      text += "\"a\":{";
    text += std::string(depth, '}') + "}\n";
    const std::string profile = scratch.write(fmt::format("deep{}.json", depth), text);
    const Finished f = run_measured({TILEVOLVE_BINARY, "baselines", "--gpu", profile},
                                    scratch.at("baselines.log"));
    INFO(f.out.substr(0, 2000));
    CHECK(f.status == 2);
    CHECK(f.out.rfind("tilevolve: error: " + profile + ":2:", 0) == 0);
    CHECK(f.out.find("JSON nested deeper than 512 levels") != std::string::npos);
    CHECK(f.max_rss_kb < 300 * 1024);
  }
}

} // namespace hostile_files_test
