// The dashboard server under hostile load (issue 19): slow clients that trickle a request a
// byte at a time, several large file downloads at once, and one run whose reading takes long.
// Real sockets on 127.0.0.1; the binary where the defect showed in it.
#include "serve/dashboard_server.hpp"
#include "serve/run_index.hpp"
#include "support/http.hpp"
#include "support/process.hpp"
#include "support/shell.hpp"
#include "support/temp_dir.hpp"

#include <atomic>
#include <chrono>
#include <doctest/doctest.h>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <future>
#include <poll.h>
#include <thread>
#include <vector>

// In a namespace of its own: the test files are compiled several to a unit (unity build).
namespace serve_load_test {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

/// GET `target` with every wait bounded by `timeout_s`: the status (0 when no answer came in
/// time) and the number of body bytes, read and dropped as they come.
std::pair<int, std::size_t> get(int port, const std::string& target, double timeout_s) {
  const int fd = tv::test::connect_loopback(port);
  if (fd < 0) return {0, 0};
  timeval tv{time_t(timeout_s), suseconds_t((timeout_s - double(time_t(timeout_s))) * 1e6)};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  const std::string req =
      "GET " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n";
  if (::send(fd, req.data(), req.size(), MSG_NOSIGNAL) != ssize_t(req.size())) {
    ::close(fd);
    return {0, 0};
  }
  std::string head;
  std::size_t body = 0;
  std::vector<char> buf(1 << 16);
  for (ssize_t n; (n = ::recv(fd, buf.data(), buf.size(), 0)) > 0;) {
    if (head.find("\r\n\r\n") == std::string::npos) {
      head.append(buf.data(), std::size_t(n));
      const auto end = head.find("\r\n\r\n");
      if (end != std::string::npos) {
        body += head.size() - end - 4;
        head.resize(end + 4);
      }
    } else {
      body += std::size_t(n);
    }
  }
  ::close(fd);
  if (head.rfind("HTTP/1.1 ", 0) != 0) return {0, body};
  return {std::atoi(head.c_str() + 9), body};
}

/// Sockets that each send one byte of a request line every `interval` for `total` and then
/// close: slow clients that never finish a request.
class SlowClients {
public:
  SlowClients(int port, int count, std::chrono::milliseconds interval,
              std::chrono::milliseconds total) {
    for (int i = 0; i < count; ++i) {
      const int fd = tv::test::connect_loopback(port);
      REQUIRE(fd >= 0);
      fds_.push_back(fd);
    }
    thread_ = std::thread([this, interval, total] {
      const std::string line = "GET /api/runs HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ";
      const auto end = Clock::now() + total;
      for (std::size_t i = 0; Clock::now() < end && !stop_; ++i) {
        const char c = i < line.size() ? line[i] : 'x';
        for (const int fd : fds_)
          (void)::send(fd, &c, 1, MSG_NOSIGNAL);
        std::this_thread::sleep_for(interval);
      }
      for (const int fd : fds_)
        ::close(fd);
    });
  }
  ~SlowClients() {
    stop_ = true;
    thread_.join();
  }

private:
  std::vector<int> fds_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

/// The value in kB of a "Name:   123 kB" line of /proc/PID/status (0 when absent).
long status_kb(pid_t pid, const std::string& name) {
  std::ifstream in(fmt::format("/proc/{}/status", pid));
  for (std::string line; std::getline(in, line);)
    if (line.rfind(name + ":", 0) == 0) return std::atol(line.c_str() + name.size() + 1);
  return 0;
}

/// `tilevolve serve ROOT --port 0`, with its port.
struct Served {
  tv::test::Process process;
  int port = 0;
  Served(const std::string& root, const std::string& log)
      : process({TILEVOLVE_BINARY, "serve", root, "--port", "0"}, log) {
    REQUIRE(process.wait_for_output("http://"));
    port = tv::test::url_port(tv::test::served_url(process.output()));
    REQUIRE(port > 0);
  }
};

} // namespace

TEST_CASE("serve load: sixteen slow clients do not keep the dashboard from answering others") {
  tv::test::ScratchDir d("tilevolve_serve_slow");
  fs::create_directories(d.at("runs/r"));
  d.write("runs/r/config.json", "{}");
  Served s(d.at("runs"), d.at("serve.log"));
  // More slow sockets than cpp-httplib's own pool has threads on this machine (8, or cores - 1),
  // each a byte every 250 ms for 6 s, like a byte a second for minutes.
  SlowClients slow(s.port, 16, std::chrono::milliseconds(250), std::chrono::seconds(6));
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  const auto t0 = Clock::now();
  for (int i = 0; i < 3; ++i) {
    const auto t = Clock::now();
    const auto [status, bytes] = get(s.port, "/api", 2.0);
    INFO("request " << i << " after " << seconds_since(t0) << " s");
    CHECK(status == 200);
    CHECK(bytes > 0);
    CHECK(seconds_since(t) < 2.0);
    const auto runs = get(s.port, "/api/runs", 2.0);
    CHECK(runs.first == 200);
  }
  CHECK(seconds_since(t0) < 5.0); // all of it while the slow clients were still there
}

TEST_CASE("serve load: a request that does not arrive whole within its deadline is cut off") {
  tv::test::ScratchDir d("tilevolve_serve_deadline");
  tv::ServeOptions o;
  o.runs_dir = d.path;
  o.port = 0;
  o.request_deadline_s = 1;
  tv::DashboardServer server(o);
  const int port = server.bind();
  std::thread listener([&] { server.listen(); });
  const int fd = tv::test::connect_loopback(port);
  REQUIRE(fd >= 0);
  const std::string line =
      "GET /api HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: xxxxxxxxxxxxxxxxxxxxxxxx";
  const auto t0 = Clock::now();
  bool ended = false;
  for (std::size_t i = 0; i < line.size() && !ended; ++i) {
    if (::send(fd, &line[i], 1, MSG_NOSIGNAL) != 1) {
      ended = true; // the server closed the connection
      break;
    }
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 200) > 0) {
      char buf[512];
      (void)::recv(fd, buf, sizeof buf, 0); // a 400 or the close itself
      ended = true;
    }
  }
  const double took = seconds_since(t0);
  ::close(fd);
  CHECK(ended);
  CHECK(took >= 0.9);
  CHECK(took < 4);
  // A whole request is still answered.
  CHECK(get(port, "/api", 5).first == 200);
  server.stop();
  listener.join();
}

TEST_CASE("serve load: files are streamed, so concurrent downloads of a big file cost little "
          "memory") {
  tv::test::ScratchDir d("tilevolve_serve_files");
  fs::create_directories(d.at("runs/big"));
  d.write("runs/big/config.json", "{}");
  const std::size_t size = std::size_t(32) << 20;
  {
    std::ofstream out(d.at("runs/big/events.txt"), std::ios::binary);
    const std::string line(1023, 'e');
    for (std::size_t i = 0; i < size / 1024; ++i)
      out << line << '\n';
  }
  Served s(d.at("runs"), d.at("serve.log"));
  REQUIRE(get(s.port, "/files/big/config.json", 10).first == 200); // the server is warm
  REQUIRE(get(s.port, "/api/runs", 10).first == 200);
  const long before = status_kb(s.process.pid(), "VmHWM");
  REQUIRE(before > 0);
  std::vector<std::future<std::pair<int, std::size_t>>> downloads;
  for (int i = 0; i < 4; ++i)
    downloads.push_back(
        std::async(std::launch::async, [&] { return get(s.port, "/files/big/events.txt", 30); }));
  for (auto& f : downloads) {
    const auto [status, bytes] = f.get();
    CHECK(status == 200);
    CHECK(bytes == size);
  }
  const long after = status_kb(s.process.pid(), "VmHWM");
  MESSAGE("server peak resident memory: " << before << " kB before, " << after
                                          << " kB after 4 downloads of 32 MB");
  // Reading the file whole made it at least 32 MB per download.
  CHECK(after - before < 12 * 1024);
  // HEAD and a missing file still answer as before.
  CHECK(tv::test::http_request(s.port, "/files/big/events.txt", "HEAD").status == 200);
  CHECK(get(s.port, "/files/big/none.txt", 5).first == 404);
}

TEST_CASE("serve load: one run held up does not hold up the other runs or the list") {
  tv::test::ScratchDir d("tilevolve_serve_locks");
  for (const char* name : {"big", "small"}) {
    fs::create_directories(d.at(name));
    d.write(std::string(name) + "/config.json", "{}");
    d.write(std::string(name) + "/events.ndjson",
            R"({"event":"program","n":0,"id":1,"op":"seed","stage":"full","train":1.0})"
            "\n");
  }
  tv::RunIndex index(d.path);
  // While one request holds the big run (as reading hundreds of MB of its events does),
  // requests for the small run and for the list must not wait for it.
  std::promise<void> inside, release;
  std::shared_future<void> released = release.get_future().share();
  std::thread holder([&] {
    index.with_run("big", [&](tv::RunView&) {
      inside.set_value();
      released.wait();
    });
  });
  inside.get_future().wait();
  auto small = std::async(std::launch::async, [&] {
    long long programs = -1;
    index.with_run("small", [&](tv::RunView& v) { programs = v.summary()["programs"]; });
    return programs;
  });
  auto list = std::async(std::launch::async, [&] { return index.summaries(); });
  const bool small_done = small.wait_for(std::chrono::seconds(5)) == std::future_status::ready;
  const bool list_done = list.wait_for(std::chrono::seconds(5)) == std::future_status::ready;
  release.set_value();
  holder.join();
  CHECK(small_done);
  CHECK(list_done);
  CHECK(small.get() == 0);
  const nlohmann::json runs = list.get();
  REQUIRE(runs.size() == 2);
  CHECK(runs[0]["name"] == "big"); // its last summary, from before it was held
  CHECK(runs[0]["programs"] == 0);
  CHECK(runs[1]["name"] == "small");
}

} // namespace serve_load_test
