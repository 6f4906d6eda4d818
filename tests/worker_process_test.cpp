// Worker processes: real /bin/sh children with pipes, their own process group, bounded
// stderr, and a kill that takes everything they started with them.
#include "eval/controller/progress_bar.hpp"
#include "eval/controller/worker_process.hpp"

#include <doctest/doctest.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <fcntl.h>
#include <fstream>
#include <poll.h>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

// In a namespace of its own: the test files are compiled several to a unit (unity build).
namespace worker_process_test {

using namespace tv;

namespace {

/// Whether `pid` no longer runs: no such process, or a zombie (dead, not yet reaped: an orphan
/// waits for init, and an init that reaps lazily can keep it for seconds).
bool has_ended(pid_t pid) {
  if (::kill(pid, 0) != 0) return true;
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(stat, line)) return true;
  // "pid (comm) S ...": the state follows the last ')', as comm may hold any character.
  const std::size_t close = line.rfind(')');
  return close != std::string::npos && close + 2 < line.size() &&
         (line[close + 2] == 'Z' || line[close + 2] == 'X');
}

/// Reads stdout lines until `n` arrived or the process closed stdout (at most 5 s).
WorkerProcess::ReadResult read_lines(WorkerProcess& p, std::vector<std::string>& lines,
                                     std::size_t n) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  WorkerProcess::ReadResult r = WorkerProcess::ReadResult::ok;
  while (lines.size() < n && std::chrono::steady_clock::now() < until) {
    pollfd f{p.stdout_fd(), POLLIN, 0};
    if (::poll(&f, 1, 50) <= 0) continue;
    r = p.read_stdout(lines);
    if (r != WorkerProcess::ReadResult::ok) break;
  }
  return r;
}

} // namespace

TEST_CASE("worker_process: lines go in and come back through the pipes") {
  WorkerProcess p("cat", 1 << 20);
  REQUIRE(p.pid() > 0);
  CHECK(p.send("{\"id\": 1}"));
  CHECK(p.send("second line"));
  std::vector<std::string> lines;
  read_lines(p, lines, 2);
  REQUIRE(lines.size() == 2);
  CHECK(lines[0] == "{\"id\": 1}");
  CHECK(lines[1] == "second line");
  p.close_stdin();
  CHECK(read_lines(p, lines, 3) == WorkerProcess::ReadResult::eof);
  CHECK(p.wait_exit(5));
  CHECK(p.exit_description() == "exited with status 0");
}

TEST_CASE("worker_process: exit status, stderr tail and device substitution") {
  WorkerProcess p("echo started >&2; echo 'why it failed' >&2; exit 3", 1 << 20);
  std::vector<std::string> lines;
  CHECK(read_lines(p, lines, 1) == WorkerProcess::ReadResult::eof);
  CHECK(p.wait_exit(5));
  p.read_stderr();
  CHECK(p.stderr_tail() == "started\nwhy it failed\n");
  CHECK(p.exit_description() == "exited with status 3");
  CHECK(substitute_device("w --device {device} --log /tmp/{device}.log", "7") ==
        "w --device 7 --log /tmp/7.log");
  CHECK(substitute_device("no placeholder", "7") == "no placeholder");
}

TEST_CASE("worker_process: a line past the limit is reported, not buffered forever") {
  WorkerProcess p("head -c 5000 /dev/zero | tr '\\0' x; sleep 5", 1000);
  std::vector<std::string> lines;
  CHECK(read_lines(p, lines, 1) == WorkerProcess::ReadResult::overlong);
  CHECK(lines.empty());
  p.kill(0.1);
}

TEST_CASE("worker_process: kill stops the whole process group, even what ignores SIGTERM") {
  // The shell starts a child that ignores SIGTERM and would outlive a plain kill of the shell.
  WorkerProcess p("trap '' TERM; sleep 60 & echo $!; wait", 1 << 20);
  std::vector<std::string> lines;
  read_lines(p, lines, 1);
  REQUIRE(lines.size() == 1);
  const pid_t child = pid_t(std::stol(lines[0]));
  REQUIRE(::kill(child, 0) == 0);
  const auto t0 = std::chrono::steady_clock::now();
  p.kill(0.2);
  CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(3));
  CHECK(p.exit_description() == "killed by signal 9");
  // The child is gone too (a zombie of init counts: it no longer runs).
  bool gone = false;
  for (int i = 0; i < 100 && !gone; ++i) {
    gone = has_ended(child);
    if (!gone) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  CHECK(gone);
}

TEST_CASE("worker_process: writes to a worker that exited fail, they do not kill the caller") {
  std::signal(SIGPIPE, SIG_IGN); // as DevicePool does
  WorkerProcess p("exit 0", 1 << 20);
  REQUIRE(p.wait_exit(5));
  bool failed = false;
  for (int i = 0; i < 100 && !failed; ++i)
    failed = !p.send(std::string(1000, 'x'));
  CHECK(failed);
}

TEST_CASE("progress_bar: pairs done of queued, per device, elapsed and ETA") {
  ProgressBar bar({"0", "1"}, false);
  PoolProgress p;
  p.done = 50;
  p.total = 200;
  p.done_per_device = {30, 20};
  p.elapsed_s = 5;
  CHECK(bar.line(p) == "measuring [#####...............] 50/200 pairs  dev 0: 30  1: 20  5.0 s, "
                       "ETA 15.0 s");
  p.done = 0;
  p.done_per_device = {0, 0};
  CHECK(bar.line(p).find("ETA ?") != std::string::npos);
}

TEST_CASE(
    "progress_bar: in a log (stderr no terminal), one whole line each 30 s, none at the end") {
  const std::string path = "/tmp/tv_progress_log_" + std::to_string(::getpid()) + ".txt";
  std::fflush(stderr);
  const int saved = ::dup(::fileno(stderr));
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  REQUIRE(fd >= 0);
  ::dup2(fd, ::fileno(stderr));
  ::close(fd);
  {
    ProgressBar bar({"0"}, true);
    PoolProgress p;
    p.total = 100;
    p.done_per_device = {0};
    for (const double t : {0.6, 10.0, 29.0, 31.0, 40.0, 62.0, 70.0}) {
      p.elapsed_s = t;
      p.done = p.done_per_device[0] = int(t);
      bar.update(p);
    }
    p.done = p.done_per_device[0] = 100; // the last update: the run's own summary follows
    p.elapsed_s = 95;
    bar.update(p);
  }
  std::fflush(stderr);
  ::dup2(saved, ::fileno(stderr));
  ::close(saved);
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string l; std::getline(in, l);)
    lines.push_back(l);
  std::remove(path.c_str());
  REQUIRE(lines.size() == 2);
  CHECK(lines[0].find("31/100 pairs") != std::string::npos);
  CHECK(lines[1].find("62/100 pairs") != std::string::npos);
  CHECK(lines[0].find('\r') == std::string::npos);
}

} // namespace worker_process_test
