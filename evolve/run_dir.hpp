#pragma once
/// Files of a run directory: atomic writes and the append-only events stream.
#include <cstdint>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>

namespace tv {

/// Writes `content` to `path` atomically (temporary file PATH.tmp, fsync, rename); throws
/// InputError when the file cannot be written, after removing the temporary file.
void atomic_write(const std::string& path, const std::string& content);
/// Reads a whole file; throws InputError naming the file when it cannot be read.
std::string read_file(const std::string& path);

/// The config.json of the run in `dir` (the problem, options and mutator it was started
/// with). Throws InputError that says what happened when the directory is missing, when the
/// run stopped before it wrote config.json (start it again without --resume), or when the file
/// is not a tilevolve run configuration (malformed JSON, a repeated key, a missing part).
nlohmann::json read_run_config(const std::string& dir);

/// Exclusive use of a run directory by one process: an flock on DIR/run.lock, held while the
/// object lives and released by the kernel when the process exits or is killed, so a crashed
/// run never leaves a stale lock behind.
class RunLock {
public:
  /// Takes the lock; throws InputError naming the directory (and the pid recorded by the
  /// holder) when another process holds it, or when the lock file cannot be created.
  explicit RunLock(const std::string& dir);
  ~RunLock();
  RunLock(const RunLock&) = delete;
  RunLock& operator=(const RunLock&) = delete;

private:
  int fd_ = -1;
};

/// The NDJSON events stream of a run: one JSON object per line, appended and flushed.
class EventLog {
public:
  /// Opens `path` for appending after truncating it to `offset` bytes (0 = new file).
  EventLog(const std::string& path, std::uint64_t offset);
  ~EventLog();
  EventLog(const EventLog&) = delete;
  EventLog& operator=(const EventLog&) = delete;
  /// Appends one event line.
  void write(const nlohmann::json& event);
  /// Flushes to the OS and to disk; returns the byte size of the stream so far.
  std::uint64_t sync();
  /// Bytes written so far (including what was kept from before).
  std::uint64_t offset() const { return offset_; }

private:
  std::FILE* file_ = nullptr;
  std::uint64_t offset_ = 0;
  std::string path_;
};

} // namespace tv
