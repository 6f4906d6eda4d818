#include "serve/bounded_server.hpp"

#include <algorithm>
#include <arpa/inet.h>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <functional>
#include <mutex>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace tv {

namespace {

using Clock = std::chrono::steady_clock;

/// Set while the pool's accepting thread hands over a connection it has no room for.
thread_local bool t_no_room = false;

Clock::time_point after(double seconds) {
  return Clock::now() +
         std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
}

/// Waits until `fd` is ready for `events` (or hung up), at most until `until`, in slices that
/// notice a server being stopped. False on timeout, stop or error.
bool wait_ready(int fd, short events, Clock::time_point until,
                const std::atomic<socket_t>& server) {
  for (;;) {
    const auto now = Clock::now();
    if (now >= until || server == INVALID_SOCKET) return false;
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - now).count();
    pollfd p{fd, events, 0};
    const int r = ::poll(&p, 1, int(std::min<long long>(left + 1, 100)));
    if (r > 0) return true;
    if (r < 0 && errno != EINTR) return false;
  }
}

void address_of(int fd, bool remote, std::string& ip, int& port) {
  sockaddr_storage addr{};
  socklen_t len = sizeof addr;
  auto* sa = reinterpret_cast<sockaddr*>(&addr);
  if ((remote ? ::getpeername(fd, sa, &len) : ::getsockname(fd, sa, &len)) != 0) return;
  char host[INET6_ADDRSTRLEN] = {};
  if (addr.ss_family == AF_INET) {
    const auto* a = reinterpret_cast<const sockaddr_in*>(&addr);
    ::inet_ntop(AF_INET, &a->sin_addr, host, sizeof host);
    port = ntohs(a->sin_port);
  } else if (addr.ss_family == AF_INET6) {
    const auto* a = reinterpret_cast<const sockaddr_in6*>(&addr);
    ::inet_ntop(AF_INET6, &a->sin6_addr, host, sizeof host);
    port = ntohs(a->sin6_port);
  }
  ip = host;
}

/// A connection's socket as httplib reads and writes it: reads end at the request's
/// deadline, every wait at the I/O timeout, and everything when the server stops.
class DeadlineStream final : public httplib::Stream {
public:
  DeadlineStream(socket_t sock, double io_timeout_s, const std::atomic<socket_t>& server)
      : sock_(sock), io_timeout_s_(io_timeout_s), server_(server), deadline_(Clock::now()) {}
  /// Reads from now on end at `deadline`.
  void set_deadline(Clock::time_point deadline) { deadline_ = deadline; }
  /// True when bytes already received wait to be read.
  bool has_buffered() const { return off_ < size_; }

  bool is_readable() const override {
    return has_buffered() || wait_ready(sock_, POLLIN, read_until(), server_);
  }
  bool is_writable() const override {
    return wait_ready(sock_, POLLOUT, after(io_timeout_s_), server_);
  }
  ssize_t read(char* ptr, size_t size) override {
    if (!has_buffered()) {
      if (!wait_ready(sock_, POLLIN, read_until(), server_)) return -1;
      ssize_t n;
      do {
        n = ::recv(sock_, buf_, sizeof buf_, MSG_DONTWAIT);
      } while (n < 0 && errno == EINTR);
      if (n <= 0) return n;
      off_ = 0;
      size_ = std::size_t(n);
    }
    const std::size_t k = std::min(size, size_ - off_);
    std::memcpy(ptr, buf_ + off_, k);
    off_ += k;
    return ssize_t(k);
  }
  ssize_t write(const char* ptr, size_t size) override {
    // Non-blocking: a reader that stops reading holds the thread for one I/O timeout at most.
    if (!wait_ready(sock_, POLLOUT, after(io_timeout_s_), server_)) return -1;
    ssize_t n;
    do {
      n = ::send(sock_, ptr, size, MSG_NOSIGNAL | MSG_DONTWAIT);
    } while (n < 0 && errno == EINTR);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return 0; // wait again
    return n;
  }
  void get_remote_ip_and_port(std::string& ip, int& port) const override {
    address_of(sock_, true, ip, port);
  }
  void get_local_ip_and_port(std::string& ip, int& port) const override {
    address_of(sock_, false, ip, port);
  }
  socket_t socket() const override { return sock_; }

private:
  Clock::time_point read_until() const { return std::min(deadline_, after(io_timeout_s_)); }

  socket_t sock_;
  double io_timeout_s_;
  const std::atomic<socket_t>& server_;
  Clock::time_point deadline_;
  char buf_[4096];
  std::size_t off_ = 0, size_ = 0;
};

/// `threads` workers and a queue of at most `queue` connections; a connection that finds
/// the queue full is handed back at once, flagged by t_no_room.
class BoundedPool final : public httplib::TaskQueue {
public:
  BoundedPool(std::size_t threads, std::size_t queue)
      : max_queued_(std::max<std::size_t>(queue, 1)) {
    for (std::size_t i = 0; i < std::max<std::size_t>(threads, 1); ++i)
      threads_.emplace_back([this] { work(); });
  }
  void enqueue(std::function<void()> fn) override {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (jobs_.size() < max_queued_) {
        jobs_.push_back(std::move(fn));
        cv_.notify_one();
        return;
      }
    }
    t_no_room = true;
    fn();
    t_no_room = false;
  }
  void shutdown() override {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    cv_.notify_all();
    for (auto& t : threads_)
      t.join();
  }

private:
  void work() {
    for (;;) {
      std::function<void()> fn;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        cv_.wait(lock, [this] { return stop_ || !jobs_.empty(); });
        if (jobs_.empty()) return; // stopped, and every queued connection was handled
        fn = std::move(jobs_.front());
        jobs_.pop_front();
      }
      fn();
    }
  }

  std::size_t max_queued_;
  std::mutex mutex_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> jobs_;
  bool stop_ = false;
  std::vector<std::thread> threads_;
};

void close_socket(socket_t sock) {
  ::shutdown(sock, SHUT_RDWR);
  ::close(sock);
}

} // namespace

BoundedServer::BoundedServer(ServerLimits limits) : limits_(limits) {
  new_task_queue = [this] { return new BoundedPool(limits_.threads, limits_.queue); };
}

bool BoundedServer::process_and_close_socket(socket_t sock) {
  if (t_no_room) {
    static const char busy[] = "HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\n"
                               "Connection: close\r\n\r\n";
    (void)::send(sock, busy, sizeof busy - 1, MSG_NOSIGNAL | MSG_DONTWAIT);
    close_socket(sock);
    return false;
  }
  DeadlineStream strm(sock, limits_.io_timeout_s, svr_sock_);
  bool ret = false;
  for (std::size_t left = std::max<std::size_t>(keep_alive_max_count_, 1); left > 0; --left) {
    // Between requests a connection waits at most the keep-alive timeout.
    if (!strm.has_buffered() &&
        !wait_ready(sock, POLLIN, after(double(keep_alive_timeout_sec_)), svr_sock_))
      break;
    strm.set_deadline(after(limits_.request_deadline_s));
    bool connection_closed = false;
    ret = process_request(strm, left == 1, connection_closed, nullptr);
    if (!ret || connection_closed) break;
  }
  close_socket(sock);
  return ret;
}

} // namespace tv
