#pragma once
/// The dashboard's HTTP server (cpp-httplib): the pages and their assets, Chart.js from its
/// installed file, the JSON API (json_api.hpp) and the raw files of each run. It binds the
/// loopback address unless told otherwise, answers GET and HEAD only, and serves nothing
/// outside RUNS_DIR: a path that leaves it ("..", symlinks, encoded slashes or dots) is
/// refused with 403. Slow clients cannot take it over (bounded_server.hpp), and files are
/// streamed, never read whole into memory.
///
///   /                      the index of runs          /run/NAME           one run's page
///   /study/NAME            one split study's page     /assets/FILE        the page assets
///   /lib/chart.js          Chart.js                   /api/...            see json_api.hpp
///   /files/NAME/FILE       a run's or a study's file, as text
#include "serve/run_index.hpp"
#include "serve/study_index.hpp"

#include <cstddef>
#include <memory>
#include <string>

namespace httplib {
class Server;
}

namespace tv {

/// Where and what to serve.
struct ServeOptions {
  std::string runs_dir = ".";
  std::string host = "127.0.0.1"; ///< the address to bind (loopback by default)
  int port = 8765;                ///< 0 = any free port
  std::size_t threads = 32;       ///< connections served at once (ServerLimits::threads)
  double request_deadline_s = 10; ///< to receive one whole request (ServerLimits)
};

/// One server; bind() then listen() (which blocks until stop()).
class DashboardServer {
public:
  /// Throws InputError when the runs directory does not exist.
  explicit DashboardServer(const ServeOptions& options);
  ~DashboardServer();
  DashboardServer(const DashboardServer&) = delete;
  DashboardServer& operator=(const DashboardServer&) = delete;
  /// Binds host:port; returns the port bound. Throws InputError when it cannot.
  int bind();
  /// Serves until stop() is called (from another thread).
  void listen();
  /// Makes listen() return.
  void stop();
  /// "http://HOST:PORT/" of the bound server.
  std::string url() const;
  RunIndex& index() { return index_; }
  StudyIndex& studies() { return studies_; }

private:
  void add_routes();

  ServeOptions options_;
  RunIndex index_;
  StudyIndex studies_;
  std::unique_ptr<httplib::Server> server_;
  int port_ = 0;
};

/// True when `host` is a loopback address (127.0.0.0/8, ::1, "localhost").
bool is_loopback_host(const std::string& host);

} // namespace tv
