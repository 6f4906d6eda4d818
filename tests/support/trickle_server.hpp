#pragma once
/// A hostile HTTP server for tests (header-only): raw sockets on 127.0.0.1 at a free port, one
/// thread per connection, that reads a request and then sends a complete, valid chat
/// completion one byte every `interval`: headers and body trickle (or the headers come at once
/// and only the body trickles). A client without an overall deadline waits the whole
/// trickle; the response is finite, so such a client ends (late) instead of hanging a test.
#include <arpa/inet.h>
#include <atomic>
#include <chrono>
#include <doctest/doctest.h>
#include <mutex>
#include <netinet/in.h>
#include <poll.h>
#include <string>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace tv::test {

class TrickleServer {
public:
  /// `body`: the response body; `interval`: time between bytes; `headers_at_once`: send the
  /// status line and headers in one piece, trickle only the body.
  TrickleServer(std::string body, std::chrono::milliseconds interval, bool headers_at_once = false)
      : body_(std::move(body)), interval_(interval), headers_at_once_(headers_at_once) {
    listen_fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    REQUIRE(listen_fd_ >= 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    REQUIRE(::bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
    REQUIRE(::listen(listen_fd_, 16) == 0);
    socklen_t len = sizeof addr;
    REQUIRE(::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len) == 0);
    port_ = ntohs(addr.sin_port);
    acceptor_ = std::thread([this] { accept_loop(); });
  }
  ~TrickleServer() {
    stop_ = true;
    acceptor_.join();
    std::vector<std::thread> conns;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      conns.swap(connections_);
    }
    for (auto& t : conns)
      t.join();
    ::close(listen_fd_);
  }
  TrickleServer(const TrickleServer&) = delete;
  TrickleServer& operator=(const TrickleServer&) = delete;

  int port() const { return port_; }
  /// The base URL to give a client ("http://127.0.0.1:PORT/v1").
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/v1"; }
  /// Requests whose headers arrived so far.
  int requests() const { return requests_; }

private:
  void accept_loop() {
    while (!stop_) {
      pollfd p{listen_fd_, POLLIN, 0};
      if (::poll(&p, 1, 50) <= 0) continue;
      const int fd = ::accept(listen_fd_, nullptr, nullptr);
      if (fd < 0) continue;
      std::lock_guard<std::mutex> lock(mutex_);
      connections_.emplace_back([this, fd] { serve(fd); });
    }
  }

  void serve(int fd) {
    // Reads the request headers and as much body as has come (the body is not needed).
    std::string got;
    char buf[4096];
    while (got.find("\r\n\r\n") == std::string::npos && !stop_) {
      pollfd p{fd, POLLIN, 0};
      if (::poll(&p, 1, 50) <= 0) continue;
      const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
      if (n <= 0) break;
      got.append(buf, std::size_t(n));
    }
    if (got.find("\r\n\r\n") != std::string::npos) {
      ++requests_;
      const std::string head = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                               "Content-Length: " +
                               std::to_string(body_.size()) + "\r\n\r\n";
      std::string rest = head + body_;
      std::size_t i = 0;
      bool alive = true;
      if (headers_at_once_) {
        alive = ::send(fd, head.data(), head.size(), MSG_NOSIGNAL) == ssize_t(head.size());
        i = head.size();
      }
      for (; alive && i < rest.size() && !stop_; ++i) {
        if (::send(fd, rest.data() + i, 1, MSG_NOSIGNAL) != 1) break; // the client gave up
        std::this_thread::sleep_for(interval_);
      }
    }
    ::close(fd);
  }

  std::string body_;
  std::chrono::milliseconds interval_;
  bool headers_at_once_;
  int listen_fd_ = -1, port_ = 0;
  std::atomic<bool> stop_{false};
  std::atomic<int> requests_{0};
  std::thread acceptor_;
  std::mutex mutex_;
  std::vector<std::thread> connections_;
};

} // namespace tv::test
