#pragma once
/// An httplib::Server that slow or idle clients cannot take over. cpp-httplib 0.11 serves
/// connections from a fixed pool of max(8, cores - 1) threads, and its timeouts bound each
/// read, not a request: eight sockets sending a byte a second hold every thread for as long
/// as they like, and every other client waits. Here a pool of `threads` workers serves the
/// connections, at most `queue` accepted connections wait for one (more are answered 503 and
/// closed at once), a request must arrive whole within `request_deadline_s`, and no single
/// read or write waits longer than `io_timeout_s`.
#include <httplib.h>

#include <cstddef>

namespace tv {

/// The limits of a BoundedServer.
struct ServerLimits {
  std::size_t threads = 32;       ///< connections served at once
  std::size_t queue = 256;        ///< accepted connections waiting for a thread
  double request_deadline_s = 10; ///< to receive one whole request (line, headers, body)
  double io_timeout_s = 5;        ///< the longest wait for one read or write
};

/// The server; configure and run it like an httplib::Server.
class BoundedServer : public httplib::Server {
public:
  explicit BoundedServer(ServerLimits limits = {});
  const ServerLimits& limits() const { return limits_; }

private:
  // Replaces httplib's per-connection loop (a virtual of httplib::Server, as its SSLServer
  // overrides it): the same keep-alive loop over a stream with a deadline per request.
  bool process_and_close_socket(socket_t sock) override;

  ServerLimits limits_;
};

} // namespace tv
