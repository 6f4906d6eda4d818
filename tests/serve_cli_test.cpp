// End-to-end tests of `tilevolve serve`: the real binary on runs the real binary wrote,
// spoken to over real HTTP on 127.0.0.1 (hostile paths sent byte for byte).
#include "serve/dashboard_server.hpp"
#include "support/http.hpp"
#include "support/process.hpp"
#include "support/serve_process.hpp"
#include "support/shell.hpp"
#include "support/temp_dir.hpp"

#include <doctest/doctest.h>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

// In a namespace of its own: the test files are compiled several to a unit (unity build).
namespace serve_cli_test {

namespace fs = std::filesystem;
using json = nlohmann::json;
using tv::test::get_json;
using tv::test::http_request;

namespace {

/// base/runs/done (a finished 300-program run), base/secret beside the runs directory, a
/// symlink inside the run pointing at the secret, and a symlinked "run" pointing outside.
/// Removed with `scratch` when the process ends.
struct Runs {
  tv::test::ScratchDir scratch{"tilevolve_serve_cli_test"};
  fs::path base, runs;
  Runs() {
    base = scratch.path;
    runs = base / "runs";
    fs::create_directories(runs);
    const auto r = tv::test::run_shell(
        fmt::format("{} evolve --gpu h100 --budget 300 --quiet --out {} > /dev/null 2>&1",
                    TILEVOLVE_BINARY, (runs / "done").string()));
    REQUIRE(r.status == 0);
    fs::create_directories(base / "outside_run");
    std::ofstream(base / "outside_run" / "config.json") << "{}";
    std::ofstream(base / "secret") << "top secret\n";
    fs::create_symlink(base / "secret", runs / "done" / "leak");
    fs::create_directory_symlink(base / "outside_run", runs / "outside");
    fs::create_directories(runs / "not_a_run");
    // A run whose events stream is a symlink to a file outside the runs directory.
    fs::create_directories(runs / "linked");
    fs::copy_file(runs / "done" / "config.json", runs / "linked" / "config.json");
    std::ofstream(base / "secret_events.ndjson")
        << "{\"event\":\"start\",\"mutator\":\"top secret\"}\n";
    fs::create_symlink(base / "secret_events.ndjson", runs / "linked" / "events.ndjson");
  }
};

const Runs& runs() {
  static const Runs r;
  return r;
}

/// `tilevolve serve` on the test runs with a free port, each with a log of its own.
struct Server : tv::test::ServeProcess {
  static inline int counter = 0;
  explicit Server(const std::vector<std::string>& extra = {})
      : ServeProcess(runs().runs.string(),
                     (runs().base / fmt::format("serve{}.log", counter++)).string(), extra) {}
};

} // namespace

TEST_CASE("serve: the API lists the runs and answers a run's state, per-shape view and events") {
  Server s;
  const json list = get_json(s.port, "/api/runs");
  CHECK(list["root"] == fs::canonical(runs().runs).string());
  REQUIRE(list["runs"].size() == 2); // not the symlink out, not the directory without a run
  CHECK(list["runs"][0]["name"] == "done");
  CHECK(list["runs"][1]["name"] == "linked");
  CHECK(list["runs"][0]["status"] == "finished");
  CHECK(list["runs"][0]["programs"] == 300);

  const json state = get_json(s.port, "/api/runs/done");
  const json summary =
      json::parse(tv::test::read_text((runs().runs / "done" / "summary.json").string()));
  CHECK(state["best"]["id"] == summary["best"]["id"]);
  CHECK(state["best"]["simplified"] == summary["best"]["simplified"]);
  CHECK(state["counters"]["kernel_runs"] == summary["kernel_runs"]);
  CHECK(state["per_shape_version"].get<int>() > 0);

  const json ps = get_json(s.port, "/api/runs/done/per_shape");
  CHECK(ps["version"] == state["per_shape_version"]);
  CHECK(ps["per_shape"]["shapes"].size() == 88);

  // Following the raw stream from offset 0 reads every line once.
  const std::string events = tv::test::read_text((runs().runs / "done" / "events.ndjson").string());
  const auto lines = std::count(events.begin(), events.end(), '\n');
  std::uint64_t offset = 0;
  long long seen = 0;
  for (int polls = 0; polls < 1000; ++polls) {
    const json e =
        get_json(s.port, fmt::format("/api/runs/done/events?offset={}&max_bytes=20000", offset));
    seen += e["events"].size();
    CHECK(e["bad_lines"] == 0);
    if (e["next"] == offset) break;
    offset = e["next"];
  }
  CHECK(seen == lines);
  CHECK(offset == events.size());

  CHECK(get_json(s.port, "/api")["endpoints"].size() == 6);
  CHECK(get_json(s.port, "/api/runs/nope", 404)["error"].get<std::string>().find("no run named") !=
        std::string::npos);
  CHECK(get_json(s.port, "/api/runs/done/events?offset=3", 400)["error"].get<std::string>().find(
            "start of a line") != std::string::npos);
  get_json(s.port, "/api/runs/done/events?offset=-1", 400);
  CHECK(s.process.stop() == 0); // SIGTERM ends it cleanly
}

TEST_CASE("serve: pages, assets, Chart.js and run files are served, as text for run files") {
  Server s;
  auto r = http_request(s.port, "/");
  CHECK(r.status == 200);
  CHECK(r.body.find("<title>tilevolve dashboard</title>") != std::string::npos);
  CHECK(r.headers.find("Content-Security-Policy: default-src 'self'") != std::string::npos);
  r = http_request(s.port, "/run/done");
  CHECK(r.status == 200);
  CHECK(r.body.find("/lib/chart.js") != std::string::npos);
  CHECK(http_request(s.port, "/run/nope").status == 404);
  r = http_request(s.port, "/lib/chart.js");
  CHECK(r.status == 200);
  CHECK(r.body.find("Chart.js v") != std::string::npos);
  CHECK(http_request(s.port, "/assets/run.js").status == 200);
  CHECK(http_request(s.port, "/assets/nope.js").status == 404);
  r = http_request(s.port, "/files/done/best.py");
  CHECK(r.status == 200);
  CHECK(r.body == tv::test::read_text((runs().runs / "done" / "best.py").string()));
  CHECK(r.headers.find("Content-Type: text/plain") != std::string::npos);
  CHECK(r.headers.find("X-Content-Type-Options: nosniff") != std::string::npos);
  CHECK(http_request(s.port, "/files/done/missing.txt").status == 404);
  CHECK(http_request(s.port, "/api/runs", "POST").status == 405);
  CHECK(http_request(s.port, "/api/runs", "HEAD").status == 200);
}

TEST_CASE("serve: every path that leaves the runs directory is refused with 403 or 404") {
  Server s;
  const char* hostile[] = {
      "/files/done/../../secret",
      "/files/done/../../../../../../etc/passwd",
      "/files/done/%2e%2e/%2e%2e/secret",
      "/files/done/%2E%2E%2F%2E%2E%2Fsecret",
      "/files/..%2f..%2fsecret",
      "/files/done/..%2f..%2fsecret",
      "/files/done/..%5c..%5csecret",
      "/files/done/leak", // a symlink to the secret
      "/files/outside/config.json",
      "/files/done//etc/passwd",
      "/files/done/best.py%00.txt",
      "/files/done/.checkpoint",
      "/files/./done/best.py",
      "/files/../runs/done/best.py",
      "/api/runs/..",
      "/api/runs/%2e%2e",
      "/api/runs/outside",
      "/api/runs/..%2f..%2fsecret",
      "/run/..",
      "/run/outside",
      "/assets/../../secret",
      "/assets/%2e%2e%2fsecret",
      "/files/linked/events.ndjson", // a symlink to outside the runs directory
      "/api/runs/linked/events",
      "/api/runs/linked", // answers, but without the file's content
  };
  for (const char* target : hostile) {
    const auto r = http_request(s.port, target);
    INFO(target << " -> " << r.status << " " << r.body);
    if (std::string(target) != "/api/runs/linked") CHECK((r.status == 403 || r.status == 404));
    CHECK(r.body.find("top secret") == std::string::npos);
    CHECK(r.body.find("root:") == std::string::npos);
  }
  CHECK(http_request(s.port, "/files/done/leak").status == 403);
  CHECK(http_request(s.port, "/files/done/%2e%2e/%2e%2e/secret").status == 403);
  CHECK(http_request(s.port, "/files/done/../../secret").status == 403);
  CHECK(http_request(s.port, "/api/runs/linked/events").status == 403);
  CHECK(get_json(s.port, "/api/runs/linked")["events"]["problem"] ==
        "events.ndjson points outside the run directory: not read");
}

TEST_CASE("serve: it listens on the loopback address unless --host says otherwise") {
  Server s;
  // /proc/net/tcp and tcp6 list sockets as "sl local_address:port remote st ...", in hex; a
  // listening socket has state 0A. Ours must be exactly one, on 127.0.0.1.
  std::vector<std::string> listening;
  for (const char* file : {"/proc/net/tcp", "/proc/net/tcp6"}) {
    std::istringstream in(tv::test::read_text(file));
    std::string line;
    std::getline(in, line); // header
    while (std::getline(in, line)) {
      std::istringstream cols(line);
      std::string sl, local, remote, state;
      cols >> sl >> local >> remote >> state;
      if (state == "0A" && local.size() > 5 &&
          local.substr(local.size() - 5) == fmt::format(":{:04X}", s.port))
        listening.push_back(local);
    }
  }
  REQUIRE(listening.size() == 1);
  CHECK(listening[0] == fmt::format("0100007F:{:04X}", s.port));
  CHECK(s.process.output().find("http://127.0.0.1:") != std::string::npos);
  CHECK(s.process.output().find("warning") == std::string::npos);
  CHECK(tv::is_loopback_host("127.0.0.1"));
  CHECK(tv::is_loopback_host("localhost"));
  CHECK(tv::is_loopback_host("::1"));
  CHECK_FALSE(tv::is_loopback_host("0.0.0.0"));
  CHECK_FALSE(tv::is_loopback_host("192.168.1.5"));
  const auto help = tv::test::run_shell(std::string(TILEVOLVE_BINARY) + " serve --help");
  CHECK(help.out.find("127.0.0.1") != std::string::npos);
}

TEST_CASE("serve: SIGTERM stops it within seconds while a client holds an idle connection") {
  Server s;
  // A browser keeps its connection open between polls.
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  REQUIRE(fd >= 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(std::uint16_t(s.port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  REQUIRE(::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
  const std::string req = "GET /api/runs HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
  REQUIRE(::send(fd, req.data(), req.size(), MSG_NOSIGNAL) == ssize_t(req.size()));
  char buf[256];
  REQUIRE(::recv(fd, buf, sizeof buf, 0) > 0);
  const auto start = std::chrono::steady_clock::now();
  CHECK(s.process.stop(SIGTERM, 4) == 0);
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(4));
  ::close(fd);
}

TEST_CASE("serve: a missing runs directory or a taken port exits 2 with a message") {
  auto r = tv::test::run_shell(std::string(TILEVOLVE_BINARY) + " serve /nonexistent/runs 2>&1");
  CHECK(r.status == 2);
  CHECK(r.out.find("tilevolve: error: runs directory '/nonexistent/runs' does not exist") !=
        std::string::npos);
  Server s;
  r = tv::test::run_shell(
      fmt::format("{} serve {} --port {} 2>&1", TILEVOLVE_BINARY, runs().runs.string(), s.port));
  CHECK(r.status == 2);
  CHECK(r.out.find("cannot listen on 127.0.0.1:") != std::string::npos);
}

} // namespace serve_cli_test
