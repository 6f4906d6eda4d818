#include "evolve/run_dir.hpp"

#include "ir/error.hpp"
#include "models/json_text.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <sstream>
#include <sys/file.h>
#include <unistd.h>
#include <vector>

namespace tv {

void atomic_write(const std::string& path, const std::string& content) {
  const std::string tmp = path + ".tmp";
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) throw InputError(fmt::format("cannot write '{}': {}", tmp, std::strerror(errno)));
  // A write that fails (ENOSPC) removes its temporary file: a partial one would keep the disk
  // full until the next write.
  const auto fail = [&tmp](const std::string& what, int e) {
    ::unlink(tmp.c_str());
    throw InputError(fmt::format("{}: {}", what, std::strerror(e)));
  };
  std::size_t done = 0;
  while (done < content.size()) {
    const ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      const int e = errno;
      ::close(fd);
      fail(fmt::format("cannot write '{}'", tmp), e);
    }
    done += std::size_t(n);
  }
  // The data may reach the disk only now (a delayed allocation that finds it full).
  if (::fsync(fd) != 0 && errno != EINVAL) {
    const int e = errno;
    ::close(fd);
    fail(fmt::format("cannot write '{}'", tmp), e);
  }
  if (::close(fd) != 0) fail(fmt::format("cannot write '{}'", tmp), errno);
  if (std::rename(tmp.c_str(), path.c_str()) != 0)
    fail(fmt::format("cannot rename '{}' to '{}'", tmp, path), errno);
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(fmt::format("cannot read '{}': {}", path, std::strerror(errno)));
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

namespace {

/// Why `dir` (a directory without config.json, nor any trace of a run started there) cannot be
/// resumed, naming the runs below it when it is a folder of runs.
std::string not_a_run_message(const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  std::vector<std::string> runs;
  bool empty = true;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    empty = false;
    std::error_code sub;
    if (it->is_directory(sub) && fs::exists(it->path() / "config.json", sub))
      runs.push_back(it->path().string());
  }
  std::sort(runs.begin(), runs.end());
  if (empty)
    return fmt::format("--resume {}: the directory is empty, not a run: nothing to resume (start "
                       "a run there with --out {})",
                       dir, dir);
  std::string where;
  if (!runs.empty()) {
    const std::size_t shown = std::min<std::size_t>(runs.size(), 3);
    for (std::size_t i = 0; i < shown; ++i)
      where += (i ? ", " : "") + runs[i];
    if (runs.size() > shown) where += fmt::format(" and {} more", runs.size() - shown);
    where = fmt::format("; it holds runs: --resume one of them ({})", where);
  }
  return fmt::format(
      "--resume {}: not a run directory (no config.json, which a run writes "
      "first){}",
      dir, where.empty() ? "; --resume takes the directory a run was given with --out" : where);
}

} // namespace

nlohmann::json read_run_config(const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    throw InputError(fmt::format("--resume {}: {}", dir,
                                 fs::exists(dir, ec) ? "not a directory"
                                                     : "no such directory: nothing to resume"));
  const std::string path = dir + "/config.json";
  if (!fs::exists(path, ec)) {
    // A run takes its lock, then writes config.json through config.json.tmp: with either
    // there, a run started here and was stopped before its configuration was written.
    if (fs::exists(dir + "/run.lock", ec) || fs::exists(dir + "/config.json.tmp", ec))
      throw InputError(fmt::format(
          "{}: missing: the run in '{}' was stopped before it wrote its configuration, so "
          "nothing of it can be resumed (nothing was evaluated yet); start it again with the "
          "same options and --out {} instead of --resume",
          path, dir, dir));
    throw InputError(not_a_run_message(dir));
  }
  const nlohmann::json cfg = parse_json_text(read_file(path), path);
  // (Compared, not read with value(): that throws a JSON exception for a format of another type.)
  if (!cfg.is_object() || !cfg.contains("format") || cfg["format"] != "tilevolve-run")
    throw InputError(fmt::format("{}: not a tilevolve run configuration (expected an object "
                                 "with \"format\": \"tilevolve-run\")",
                                 path));
  for (const char* key : {"problem", "options", "mutator"})
    if (!cfg.contains(key))
      throw InputError(fmt::format("{}: not a tilevolve run configuration (no '{}')", path, key));
  if (!cfg["problem"].is_object() || !cfg["options"].is_object() || !cfg["mutator"].is_string())
    throw InputError(fmt::format("{}: not a tilevolve run configuration ('problem' and "
                                 "'options' must be objects, 'mutator' a string)",
                                 path));
  return cfg;
}

RunLock::RunLock(const std::string& dir) {
  const std::string path = dir + "/run.lock";
  fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0)
    throw InputError(
        fmt::format("cannot create the lock file '{}': {}", path, std::strerror(errno)));
  if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    const int e = errno;
    char buf[32] = {};
    const ssize_t n = ::pread(fd_, buf, sizeof buf - 1, 0);
    std::string holder(buf, n > 0 ? std::size_t(n) : 0);
    while (!holder.empty() && (holder.back() == '\n' || holder.back() == ' '))
      holder.pop_back();
    ::close(fd_);
    fd_ = -1;
    if (e == EWOULDBLOCK)
      throw InputError(fmt::format(
          "'{}' is in use by another tilevolve process{}: two runs in one directory would "
          "interleave its events; wait for it to finish (or stop it), then try again",
          dir, holder.empty() ? "" : fmt::format(" (pid {})", holder)));
    throw InputError(fmt::format("cannot lock '{}': {}", path, std::strerror(e)));
  }
  // Record who holds it, for the message another process prints.
  const std::string pid = fmt::format("{}\n", ::getpid());
  if (::ftruncate(fd_, 0) == 0) (void)!::pwrite(fd_, pid.data(), pid.size(), 0);
}

RunLock::~RunLock() {
  if (fd_ >= 0) ::close(fd_); // closing the descriptor releases the flock
}

EventLog::EventLog(const std::string& path, std::uint64_t offset) : path_(path) {
  if (offset == 0) {
    file_ = std::fopen(path.c_str(), "wb");
  } else {
    std::error_code ec;
    const auto size = std::filesystem::file_size(path, ec);
    if (ec || size < offset)
      throw InputError(fmt::format("'{}' is shorter ({} bytes) than its checkpoint says ({})", path,
                                   ec ? 0 : size, offset));
    std::filesystem::resize_file(path, offset, ec);
    if (ec) throw InputError(fmt::format("cannot truncate '{}': {}", path, ec.message()));
    file_ = std::fopen(path.c_str(), "ab");
  }
  if (!file_) throw InputError(fmt::format("cannot open '{}': {}", path, std::strerror(errno)));
  offset_ = offset;
}

EventLog::~EventLog() {
  if (file_) std::fclose(file_);
}

void EventLog::write(const nlohmann::json& event) {
  const std::string line = event.dump() + "\n";
  if (std::fwrite(line.data(), 1, line.size(), file_) != line.size())
    throw InputError(fmt::format("cannot write '{}': {}", path_, std::strerror(errno)));
  offset_ += line.size();
}

std::uint64_t EventLog::sync() {
  std::fflush(file_);
  ::fsync(::fileno(file_));
  return offset_;
}

} // namespace tv
