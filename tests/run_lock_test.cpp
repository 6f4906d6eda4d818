// The run directory lock (evolve/run_dir.hpp): one process at a time in a run directory, and
// the lock dies with its process. Issue 13: two `evolve --resume` of one directory at once
// interleaved events.ndjson and both reported success.
#include "evolve/run_dir.hpp"
#include "ir/error.hpp"

#include "support/shell.hpp"
#include "support/temp_dir.hpp"

#include <chrono>
#include <csignal>
#include <doctest/doctest.h>
#include <fcntl.h>
#include <filesystem>
#include <fmt/format.h>
#include <string>
#include <sys/file.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

// In a namespace of its own: the test files are compiled several to a unit (unity build).
namespace run_lock_test {

using namespace tv;

namespace {

std::string error_of(const std::string& dir) {
  try {
    RunLock lock(dir);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

/// Starts `argv` as a child process with its output discarded; returns its pid.
pid_t spawn(const std::vector<std::string>& args) {
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    std::vector<char*> argv;
    for (const auto& a : args)
      argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    const int devnull = ::open("/dev/null", O_WRONLY);
    dup2(devnull, 1);
    dup2(devnull, 2);
    execvp(argv[0], argv.data());
    _exit(127);
  }
  return pid;
}

/// Waits (up to 60 s) until `ready` holds.
template <class F> bool wait_for(F ready) {
  for (int i = 0; i < 6000; ++i) {
    if (ready()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

tv::test::ShellResult tilevolve(const std::string& args) {
  return tv::test::run_shell(std::string(TILEVOLVE_BINARY) + " " + args + " 2>&1");
}

} // namespace

TEST_CASE("run_lock: a second lock on one directory is refused until the first is released") {
  tv::test::ScratchDir dir("tilevolve_lock");
  const std::string d = dir.path;
  {
    RunLock first(d);
    const std::string e = error_of(d);
    CHECK(e.find(fmt::format("'{}' is in use by another tilevolve process (pid {})", d,
                             ::getpid())) != std::string::npos);
    CHECK(e.find("wait for it to finish") != std::string::npos);
  }
  CHECK(error_of(d) == ""); // released with the object
  CHECK(std::filesystem::exists(dir.at("run.lock")));
  CHECK(error_of(dir.at("no/such/dir")).find("cannot create the lock file") != std::string::npos);
}

TEST_CASE("run_lock: a lock held by another process dies with it") {
  tv::test::ScratchDir dir("tilevolve_lock");
  const std::string lock_file = dir.at("run.lock");
  // A child that takes the lock and waits; killing it must release the lock.
  const pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    const int fd = ::open(lock_file.c_str(), O_RDWR | O_CREAT, 0644);
    if (fd < 0 || ::flock(fd, LOCK_EX) != 0) _exit(1);
    ::pause();
    _exit(0);
  }
  REQUIRE(wait_for([&] { return error_of(dir.path) != ""; }));
  CHECK(error_of(dir.path).find("is in use by another tilevolve process") != std::string::npos);
  ::kill(child, SIGKILL);
  int st = 0;
  waitpid(child, &st, 0);
  CHECK(error_of(dir.path) == "");
}

TEST_CASE("run_lock: evolve refuses a run directory another evolve is using, then resumes it") {
  tv::test::ScratchDir dir("tilevolve_lock");
  const std::string run = dir.at("run");
  // A finished short run to resume later, and a long run that holds its directory.
  REQUIRE(tilevolve("evolve --gpu h100 --budget 40 --quiet --json --out " + run).status == 0);
  const std::string busy = dir.at("busy");
  const pid_t holder = spawn({TILEVOLVE_BINARY, "evolve", "--gpu", "h100", "--budget", "100000000",
                              "--quiet", "--out", busy});
  REQUIRE(wait_for([&] { return std::filesystem::exists(busy + "/checkpoint.json"); }));

  const auto resumed = tilevolve("evolve --resume " + busy);
  CHECK(resumed.status == 2);
  CHECK(resumed.out.find(fmt::format("tilevolve: error: '{}' is in use by another tilevolve "
                                     "process (pid {})",
                                     busy, holder)) != std::string::npos);
  const auto fresh = tilevolve("evolve --gpu h100 --budget 10 --out " + busy);
  CHECK(fresh.status == 2);
  CHECK(fresh.out.find("is in use by another tilevolve process") != std::string::npos);
  ::kill(holder, SIGKILL);
  int st = 0;
  waitpid(holder, &st, 0);
  // The lock died with the holder: a new run into its directory gets past the lock (and is
  // told the directory holds a run), and the finished run resumes to its result.
  const auto after = tilevolve("evolve --gpu h100 --budget 10 --out " + busy);
  CHECK(after.status == 2);
  CHECK(after.out.find("already holds a run") != std::string::npos);
  const auto again = tilevolve("evolve --resume " + run + " --json");
  CHECK(again.status == 0);
}

} // namespace run_lock_test
