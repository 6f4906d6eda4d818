#include "serve/dashboard_server.hpp"

#include "ir/error.hpp"
#include "serve/assets.hpp"
#include "serve/bounded_server.hpp"
#include "serve/chart_library.hpp"
#include "serve/json_api.hpp"
#include "serve/path_safety.hpp"

#include <fmt/format.h>
#include <fstream>
#include <httplib.h>
#include <memory>
#include <nlohmann/json.hpp>
#include <vector>

namespace tv {

namespace {

void reply_text(httplib::Response& res, int status, const std::string& body) {
  res.status = status;
  res.set_content(body + "\n", "text/plain; charset=utf-8");
}

/// Bytes read from a file per write to the socket.
constexpr std::size_t kFileChunk = 64 * 1024;

/// Sends a file (already checked to be inside the root) as `type`, streamed a chunk at a time:
/// a 200 MB events file costs one chunk of memory per request, not 200 MB. The length is the
/// file's size when the request came; bytes appended since are not sent.
void send_file(httplib::Response& res, const std::filesystem::path& path, const char* type) {
  struct Open {
    std::ifstream in;
    std::vector<char> chunk;
  };
  auto f = std::make_shared<Open>();
  f->in.open(path, std::ios::binary);
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  if (!f->in || ec) return reply_text(res, 404, "cannot read " + path.filename().string());
  auto provide = [f](std::size_t offset, std::size_t length, httplib::DataSink& sink) {
    if (f->chunk.empty()) f->chunk.resize(kFileChunk);
    f->in.clear();
    if (!f->in.seekg(std::streamoff(offset))) return false;
    f->in.read(f->chunk.data(), std::streamsize(std::min(length, kFileChunk)));
    const auto got = std::size_t(f->in.gcount());
    // A file cut short since the request came: the answer ends early (the client sees fewer
    // bytes than announced) rather than padding it.
    return got > 0 && sink.write(f->chunk.data(), got);
  };
  res.status = 200;
  res.set_content_provider(std::size_t(size), type, std::move(provide));
}

void send_asset(httplib::Response& res, const std::string& name) {
  const auto a = find_asset(name);
  if (!a) return reply_text(res, 404, "no asset named " + name);
  res.status = 200;
  res.set_content(std::string(a->content), std::string(a->content_type).c_str());
}

/// True when some '/'-separated component of a decoded path is "." or "..".
bool has_dot_component(const std::string& path) {
  std::size_t start = 0;
  while (start <= path.size()) {
    std::size_t end = path.find('/', start);
    if (end == std::string::npos) end = path.size();
    const std::string_view c(path.data() + start, end - start);
    if (c == "." || c == "..") return true;
    start = end + 1;
  }
  return false;
}

} // namespace

bool is_loopback_host(const std::string& host) {
  return host == "localhost" || host == "::1" || host == "[::1]" || host.rfind("127.", 0) == 0;
}

DashboardServer::DashboardServer(const ServeOptions& options)
    : options_(options), index_(options.runs_dir), studies_(options.runs_dir),
      server_(std::make_unique<BoundedServer>(ServerLimits{options.threads, ServerLimits{}.queue,
                                                           options.request_deadline_s,
                                                           ServerLimits{}.io_timeout_s})) {
  add_routes();
}

DashboardServer::~DashboardServer() = default;

void DashboardServer::add_routes() {
  httplib::Server& s = *server_;
  s.set_default_headers(
      {{"X-Content-Type-Options", "nosniff"},
       {"Content-Security-Policy", "default-src 'self'; img-src 'self' data:; object-src 'none'; "
                                   "frame-ancestors 'none'"},
       {"Referrer-Policy", "no-referrer"},
       {"Cache-Control", "no-store"}});
  s.set_payload_max_length(64 * 1024);
  // An idle keep-alive connection (a browser between polls) holds a worker thread and delays
  // stop() until it times out: keep both short.
  s.set_keep_alive_timeout(2);
  // httplib's default sets SO_REUSEPORT, which would let a second server (or any process of
  // this user) bind the same port and take part of its connections. Address reuse only.
  s.set_socket_options([](socket_t sock) {
    int yes = 1;
    ::setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
  });
  s.set_pre_routing_handler([](const httplib::Request& req, httplib::Response& res) {
    if (req.method != "GET" && req.method != "HEAD") {
      reply_text(res, 405, "only GET and HEAD are served");
      return httplib::Server::HandlerResponse::Handled;
    }
    if (has_encoded_separator(req.target) || has_dot_component(req.path) ||
        req.path.find('\\') != std::string::npos || req.path.find('\0') != std::string::npos) {
      reply_text(res, 403, "refused: the path is outside what this server serves");
      return httplib::Server::HandlerResponse::Handled;
    }
    return httplib::Server::HandlerResponse::Unhandled;
  });
  s.set_exception_handler([](const httplib::Request&, httplib::Response& res,
                             std::exception_ptr ep) {
    std::string why = "internal error";
    try {
      if (ep) std::rethrow_exception(ep);
    } catch (const std::exception& e) {
      why = e.what();
    } catch (...) {
    }
    res.status = 500;
    res.set_content(nlohmann::json{{"error", why}}.dump(-1, ' ', false,
                                                        nlohmann::json::error_handler_t::replace),
                    "application/json");
  });

  s.Get("/",
        [](const httplib::Request&, httplib::Response& res) { send_asset(res, "index.html"); });
  s.Get(R"(/run/([^/]+))", [this](const httplib::Request& req, httplib::Response& res) {
    const std::string name = req.matches[1];
    if (const std::string why = component_problem(name); !why.empty())
      return reply_text(res, 403, "refused run name: " + why);
    if (index_.run_dir(name).empty()) return reply_text(res, 404, "no run named " + name);
    send_asset(res, "run.html");
  });
  s.Get(R"(/study/([^/]+))", [this](const httplib::Request& req, httplib::Response& res) {
    const std::string name = req.matches[1];
    if (const std::string why = component_problem(name); !why.empty())
      return reply_text(res, 403, "refused study name: " + why);
    if (studies_.study_dir(name).empty())
      return reply_text(res, 404, "no split study named " + name);
    send_asset(res, "study.html");
  });
  s.Get(R"(/assets/([^/]+))", [](const httplib::Request& req, httplib::Response& res) {
    send_asset(res, req.matches[1]);
  });
  s.Get("/lib/chart.js", [](const httplib::Request&, httplib::Response& res) {
    const auto path = find_chart_library();
    if (!path)
      return reply_text(res, 404,
                        "Chart.js is not installed: apt-get install libjs-chart.js (or set "
                        "TILEVOLVE_CHARTJS to its chart.min.js)");
    send_file(res, *path, "text/javascript; charset=utf-8");
  });
  s.Get(R"(/files/([^/]+)/(.+))", [this](const httplib::Request& req, httplib::Response& res) {
    const std::string name = req.matches[1], rel = req.matches[2];
    if (const std::string why = component_problem(name); !why.empty())
      return reply_text(res, 403, "refused run name: " + why);
    auto dir = index_.run_dir(name);
    if (dir.empty()) dir = studies_.study_dir(name);
    if (dir.empty()) return reply_text(res, 404, "no run or split study named " + name);
    const ResolvedPath r = resolve_under(dir, rel);
    if (!r.ok()) return reply_text(res, r.status, r.why);
    // Run files are shown as text, never rendered: they are untrusted.
    send_file(res, r.path, "text/plain; charset=utf-8");
  });
  add_json_api(s, index_, studies_);
  s.set_error_handler([](const httplib::Request&, httplib::Response& res) {
    if (res.body.empty()) reply_text(res, res.status, fmt::format("status {}", res.status));
  });
}

int DashboardServer::bind() {
  const int port = options_.port == 0
                       ? server_->bind_to_any_port(options_.host)
                       : (server_->bind_to_port(options_.host, options_.port) ? options_.port : -1);
  if (port < 0)
    throw InputError(fmt::format("cannot listen on {}:{} (is the port in use? --port 0 picks a "
                                 "free one)",
                                 options_.host, options_.port));
  port_ = port;
  return port;
}

void DashboardServer::listen() {
  server_->listen_after_bind();
}

void DashboardServer::stop() {
  server_->stop();
}

std::string DashboardServer::url() const {
  const bool v6 = options_.host.find(':') != std::string::npos && options_.host.front() != '[';
  return fmt::format("http://{}:{}/", v6 ? "[" + options_.host + "]" : options_.host, port_);
}

} // namespace tv
