#pragma once
/// A raw HTTP/1.1 client for end-to-end tests (header-only): sends the request target exactly
/// as given (no normalisation of "..", no re-encoding), so tests can try hostile paths.
#include <arpa/inet.h>
#include <cstring>
#include <netinet/in.h>
#include <string>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

namespace tv::test {

/// Status (0 when no answer), headers and body of one response.
struct HttpResponse {
  int status = 0;
  std::string headers, body;
};

/// A connected TCP socket to 127.0.0.1:`port`, or -1 when it cannot connect.
inline int connect_loopback(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return -1;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(std::uint16_t(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

/// Sends `method target` to 127.0.0.1:`port` with Connection: close and reads the answer.
inline HttpResponse http_request(int port, const std::string& target,
                                 const std::string& method = "GET") {
  HttpResponse r;
  const int fd = connect_loopback(port);
  if (fd < 0) return r;
  timeval tv{10, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  const std::string req =
      method + " " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\n" + "Connection: close\r\n\r\n";
  if (::send(fd, req.data(), req.size(), MSG_NOSIGNAL) != ssize_t(req.size())) {
    ::close(fd);
    return r;
  }
  std::string all;
  char buf[8192];
  for (ssize_t n; (n = ::recv(fd, buf, sizeof buf, 0)) > 0;)
    all.append(buf, std::size_t(n));
  ::close(fd);
  const auto head_end = all.find("\r\n\r\n");
  if (all.rfind("HTTP/1.1 ", 0) != 0 || head_end == std::string::npos) return r;
  r.status = std::atoi(all.c_str() + 9);
  r.headers = all.substr(0, head_end);
  r.body = all.substr(head_end + 4);
  return r;
}

/// The port of "http://HOST:PORT".
inline int url_port(const std::string& url) {
  const auto colon = url.rfind(':');
  return colon == std::string::npos ? 0 : std::atoi(url.c_str() + colon + 1);
}

} // namespace tv::test
