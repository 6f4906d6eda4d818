#pragma once
/// Background processes for end-to-end tests (header-only): start a command, read what it
/// printed, stop it by its process id. A child never outlives the test process: it gets SIGKILL
/// when the test process ends, even by a signal (ctest's timeout), so nothing is left running.
#include <chrono>
#include <csignal>
#include <doctest/doctest.h>
#include <fcntl.h>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/prctl.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace tv::test {

/// A child process running `argv`, its stdout and stderr going to `log`. Killed (SIGKILL) and
/// reaped on destruction unless stop() was called; killed too when the thread that started it
/// ends first (PR_SET_PDEATHSIG: start it on the test's own thread, as every test does), so
/// `argv` must not detach itself (a daemon runs in the foreground).
class Process {
public:
  Process(const std::vector<std::string>& argv, std::string log) : log_(std::move(log)) {
    // Everything the child needs is prepared before fork: between fork and exec only
    // async-signal-safe calls are allowed (other threads may hold the allocator's lock).
    std::vector<char*> args;
    for (const auto& a : argv)
      args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    const int fd = ::open(log_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    REQUIRE(fd >= 0);
    const pid_t parent = ::getpid();
    pid_ = ::fork();
    REQUIRE(pid_ >= 0);
    if (pid_ == 0) {
      // Dies with the test process; if that has already ended, ends now.
      if (::prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || ::getppid() != parent) ::_exit(127);
      // SIGINT and SIGTERM as a fresh process has them, whatever started the tests (a
      // background job of a non-interactive shell ignores SIGINT, and its children inherit it).
      struct sigaction dfl {};
      dfl.sa_handler = SIG_DFL;
      ::sigaction(SIGINT, &dfl, nullptr);
      ::sigaction(SIGTERM, &dfl, nullptr);
      ::dup2(fd, 1);
      ::dup2(fd, 2);
      ::execvp(args[0], args.data());
      ::_exit(127);
    }
    ::close(fd);
  }
  ~Process() {
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
  }
  Process(const Process&) = delete;
  Process& operator=(const Process&) = delete;

  pid_t pid() const { return pid_; }
  /// What the process wrote so far.
  std::string output() const {
    std::ifstream in(log_);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }
  /// Waits up to `seconds` for `text` to appear in the output; true when it did.
  bool wait_for_output(const std::string& text, double seconds = 20) const {
    const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    while (std::chrono::steady_clock::now() < end) {
      if (output().find(text) != std::string::npos) return true;
      if (exited()) return output().find(text) != std::string::npos;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return false;
  }
  /// True when the process has ended (it is then reaped: stop() returns its status).
  bool exited() const {
    if (pid_ <= 0) return true;
    int st = 0;
    const pid_t r = ::waitpid(pid_, &st, WNOHANG);
    if (r == pid_) {
      status_ = st;
      pid_ = -1;
      return true;
    }
    return false;
  }
  /// Waits up to `seconds` for the process to end by itself; returns its exit status (-1 for a
  /// signal, or when it did not end in time, after which it is killed).
  int wait(double seconds = 10) {
    const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    while (!exited() && std::chrono::steady_clock::now() < end)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    if (!exited()) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
      pid_ = -1;
      return -1;
    }
    return WIFEXITED(status_) ? WEXITSTATUS(status_) : -1;
  }
  /// Sends `sig`, then wait(seconds).
  int stop(int sig = SIGTERM, double seconds = 10) {
    if (pid_ > 0) ::kill(pid_, sig);
    return wait(seconds);
  }

private:
  mutable pid_t pid_ = -1;
  mutable int status_ = 0;
  std::string log_;
};

/// The "http://HOST:PORT" printed by `tilevolve serve` ("" if none yet), without the slash.
inline std::string served_url(const std::string& output) {
  const auto at = output.find("http://");
  if (at == std::string::npos) return "";
  const auto end = output.find('/', at + 7);
  return end == std::string::npos ? "" : output.substr(at, end - at);
}

} // namespace tv::test
