#pragma once
/// One worker process: `/bin/sh -c COMMAND` with pipes on its stdin, stdout and stderr, in a
/// process group of its own (so `srun ...` or `ssh host ...` and everything they start can
/// be stopped together). All pipe ends are non-blocking; the owner poll()s the descriptors and
/// calls the read and write functions when they are ready, so nothing here ever blocks for
/// long.
#include <sys/types.h>

#include <cstddef>
#include <string>
#include <vector>

namespace tv {

/// A running (or finished) worker process and its three pipes.
class WorkerProcess {
public:
  /// What one read of the worker's stdout found.
  enum class ReadResult {
    ok,      ///< zero or more complete lines
    eof,     ///< stdout closed (the worker exited or closed it)
    overlong ///< a line grew past the limit without a newline
  };

  /// Starts `command` with /bin/sh -c; throws InputError when the pipes or the fork fail.
  /// `max_line` bounds one stdout line.
  explicit WorkerProcess(const std::string& command, std::size_t max_line);
  /// Kills the process group if it still runs.
  ~WorkerProcess();
  WorkerProcess(const WorkerProcess&) = delete;
  WorkerProcess& operator=(const WorkerProcess&) = delete;

  /// Process id (also the process group id).
  pid_t pid() const { return pid_; }
  /// Descriptors to poll: stdout and stderr for reading, stdin for writing (-1 once closed).
  int stdout_fd() const { return out_fd_; }
  int stderr_fd() const { return err_fd_; }
  int stdin_fd() const { return in_fd_; }

  /// Queues `line` and a newline and writes as much as the pipe takes now; false when the
  /// worker's stdin is closed or broken.
  bool send(const std::string& line);
  /// Writes more of what is queued; false when stdin is broken.
  bool flush();
  /// True while queued bytes wait for the pipe (poll stdin for POLLOUT).
  bool wants_write() const { return !pending_out_.empty(); }
  /// Appends the complete lines now readable on stdout to `lines` (without newlines).
  ReadResult read_stdout(std::vector<std::string>& lines);
  /// Reads what stderr has, keeping only its last few kilobytes.
  void read_stderr();
  /// The last lines the worker wrote to stderr (bounded).
  const std::string& stderr_tail() const { return err_tail_; }

  /// Closes stdin (the worker sees end of input).
  void close_stdin();
  /// Sends SIGTERM to the group, waits up to `grace_s` for the process to exit, then sends
  /// SIGKILL and reaps it. Safe to call more than once.
  void kill(double grace_s = 0.2);
  /// Reaps the process without blocking; true once it has exited.
  bool poll_exit();
  /// Waits up to `seconds` for the process to exit by itself; true when it did.
  bool wait_exit(double seconds);
  /// "exited with status 3", "killed by signal 9" or "still running".
  std::string exit_description() const;

private:
  void close_fd(int& fd);
  pid_t pid_ = -1;
  int in_fd_ = -1, out_fd_ = -1, err_fd_ = -1;
  std::size_t max_line_;
  std::string pending_out_, partial_line_, err_tail_;
  bool exited_ = false;
  int wait_status_ = 0;
};

/// `command` with every "{device}" replaced by `device`.
std::string substitute_device(const std::string& command, const std::string& device);

} // namespace tv
