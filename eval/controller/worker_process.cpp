#include "eval/controller/worker_process.hpp"

#include "ir/error.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

namespace tv {

namespace {

constexpr std::size_t kStderrTail = 4096;

void set_nonblocking(int fd) {
  const int flags = ::fcntl(fd, F_GETFL, 0);
  ::fcntl(fd, F_SETFL, flags | O_NONBLOCK);
}

struct Pipe {
  int fd[2] = {-1, -1};
};

Pipe make_pipe() {
  Pipe p;
  if (::pipe2(p.fd, O_CLOEXEC) != 0)
    throw InputError(fmt::format("cannot create a pipe for a worker: {}", std::strerror(errno)));
  return p;
}

} // namespace

std::string substitute_device(const std::string& command, const std::string& device) {
  std::string out;
  const std::string key = "{device}";
  std::size_t i = 0;
  while (true) {
    const std::size_t at = command.find(key, i);
    if (at == std::string::npos) break;
    out += command.substr(i, at - i) + device;
    i = at + key.size();
  }
  return out + command.substr(i);
}

WorkerProcess::WorkerProcess(const std::string& command, std::size_t max_line)
    : max_line_(max_line) {
  Pipe in = make_pipe(), out = make_pipe(), err = make_pipe();
  const pid_t pid = ::fork();
  if (pid < 0) {
    for (Pipe* p : {&in, &out, &err})
      for (int fd : p->fd)
        ::close(fd);
    throw InputError(fmt::format("cannot start a worker: fork failed: {}", std::strerror(errno)));
  }
  if (pid == 0) {
    // Child: its own process group, the pipes on 0/1/2 (dup2 clears close-on-exec), default
    // SIGPIPE (the controller ignores it), then the shell.
    ::setpgid(0, 0);
    ::dup2(in.fd[0], 0);
    ::dup2(out.fd[1], 1);
    ::dup2(err.fd[1], 2);
    std::signal(SIGPIPE, SIG_DFL);
    ::execl("/bin/sh", "sh", "-c", command.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  ::setpgid(pid, pid); // also here, so the group exists before we might signal it
  pid_ = pid;
  ::close(in.fd[0]);
  ::close(out.fd[1]);
  ::close(err.fd[1]);
  in_fd_ = in.fd[1];
  out_fd_ = out.fd[0];
  err_fd_ = err.fd[0];
  set_nonblocking(in_fd_);
  set_nonblocking(out_fd_);
  set_nonblocking(err_fd_);
}

WorkerProcess::~WorkerProcess() {
  kill(0.0);
}

void WorkerProcess::close_fd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

bool WorkerProcess::send(const std::string& line) {
  if (in_fd_ < 0) return false;
  pending_out_ += line;
  pending_out_ += '\n';
  return flush();
}

bool WorkerProcess::flush() {
  while (!pending_out_.empty()) {
    if (in_fd_ < 0) return false;
    const ssize_t n = ::write(in_fd_, pending_out_.data(), pending_out_.size());
    if (n > 0) {
      pending_out_.erase(0, std::size_t(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return true; // the pipe is full
    close_fd(in_fd_);
    return false;
  }
  return true;
}

WorkerProcess::ReadResult WorkerProcess::read_stdout(std::vector<std::string>& lines) {
  if (out_fd_ < 0) return ReadResult::eof;
  char buf[65536];
  while (true) {
    const ssize_t n = ::read(out_fd_, buf, sizeof buf);
    if (n > 0) {
      std::size_t start = 0;
      for (std::size_t i = 0; i < std::size_t(n); ++i)
        if (buf[i] == '\n') {
          partial_line_.append(buf + start, i - start);
          if (!partial_line_.empty() && partial_line_.back() == '\r') partial_line_.pop_back();
          lines.push_back(std::move(partial_line_));
          partial_line_.clear();
          start = i + 1;
        }
      partial_line_.append(buf + start, std::size_t(n) - start);
      if (partial_line_.size() > max_line_) return ReadResult::overlong;
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return ReadResult::ok;
    close_fd(out_fd_);
    return ReadResult::eof;
  }
}

void WorkerProcess::read_stderr() {
  if (err_fd_ < 0) return;
  char buf[8192];
  while (true) {
    const ssize_t n = ::read(err_fd_, buf, sizeof buf);
    if (n > 0) {
      err_tail_.append(buf, std::size_t(n));
      if (err_tail_.size() > 2 * kStderrTail) err_tail_.erase(0, err_tail_.size() - kStderrTail);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
    close_fd(err_fd_);
    return;
  }
}

void WorkerProcess::close_stdin() {
  pending_out_.clear();
  close_fd(in_fd_);
}

bool WorkerProcess::poll_exit() {
  if (exited_ || pid_ < 0) return true;
  int st = 0;
  const pid_t r = ::waitpid(pid_, &st, WNOHANG);
  if (r == pid_) {
    exited_ = true;
    wait_status_ = st;
  } else if (r < 0 && errno == ECHILD) {
    exited_ = true;
  }
  return exited_;
}

bool WorkerProcess::wait_exit(double seconds) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  // Short sleeps first: a killed worker usually exits within a millisecond, and the pool's
  // one loop waits here for every worker.
  for (int k = 0; !poll_exit(); ++k) {
    if (std::chrono::steady_clock::now() >= until) return false;
    std::this_thread::sleep_for(std::chrono::microseconds(k < 20 ? 250 : 5000));
  }
  return true;
}

void WorkerProcess::kill(double grace_s) {
  if (pid_ > 0 && !poll_exit()) {
    ::kill(-pid_, SIGTERM);
    if (!wait_exit(grace_s)) {
      ::kill(-pid_, SIGKILL);
      int st = 0;
      while (::waitpid(pid_, &st, 0) < 0 && errno == EINTR) {
      }
      exited_ = true;
      wait_status_ = st;
    }
  }
  if (pid_ > 0) ::kill(-pid_, SIGKILL); // whatever else is left in the group
  read_stderr();
  close_fd(in_fd_);
  close_fd(out_fd_);
  close_fd(err_fd_);
}

std::string WorkerProcess::exit_description() const {
  if (!exited_) return "still running";
  if (WIFEXITED(wait_status_))
    return fmt::format("exited with status {}", WEXITSTATUS(wait_status_));
  if (WIFSIGNALED(wait_status_)) return fmt::format("killed by signal {}", WTERMSIG(wait_status_));
  return "exited";
}

} // namespace tv
