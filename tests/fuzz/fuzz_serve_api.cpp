// Fuzz target for the dashboard server's handlers (serve/dashboard_server.hpp, json_api.hpp):
// one real `tilevolve serve` server in this process, on 127.0.0.1, over a runs directory whose
// files are the input: split at 0x01 bytes into a study's study.json, a run's events.ndjson,
// per_shape.json and config.json, and the offset and chunk of a raw events request. Every
// request (the index, the lists, the study, the run's state, per-shape view and raw events,
// followed by `next` as a page does) must be answered with 200, 400, 404 or 422 and a JSON body:
// never a crash, a hang or a leak, whatever the files hold (issue 65: a study.json nested
// 100,000 deep ended the server). Seeds in tests/fuzz/corpus/serve_api/ (deep nesting among
// them). Built by -DTILEVOLVE_FUZZ=ON (links the tv_ libraries).
#include "serve/dashboard_server.hpp"
#include "tests/support/temp_dir.hpp"

#include <charconv>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <httplib.h>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <thread>

namespace {

namespace fs = std::filesystem;

/// The server and its runs directory, for the whole fuzzing session.
struct Served {
  tv::test::ScratchDir scratch{"tilevolve_fuzz_serve_api"};
  fs::path runs = fs::path(scratch.path) / "runs";
  std::unique_ptr<tv::DashboardServer> server;
  std::thread thread;
  int port = 0;
  Served() {
    fs::create_directories(runs / "run");
    fs::create_directories(runs / "study");
    tv::ServeOptions o;
    o.runs_dir = runs.string();
    o.port = 0;
    o.threads = 4;
    server = std::make_unique<tv::DashboardServer>(o);
    port = server->bind();
    thread = std::thread([this] { server->listen(); });
  }
  ~Served() {
    server->stop();
    thread.join();
  }
};

Served* served = nullptr;

void write(const fs::path& p, std::string_view text) {
  std::ofstream(p, std::ios::binary | std::ios::trunc)
      .write(text.data(), std::streamsize(text.size()));
}

std::uint64_t number(std::string_view s) {
  std::uint64_t v = 0;
  std::from_chars(s.data(), s.data() + s.size(), v);
  return v;
}

/// GET `target`: an answer the API documents, with a JSON body; the body.
nlohmann::json get(httplib::Client& c, const std::string& target) {
  const auto r = c.Get(target);
  if (!r) __builtin_trap(); // the server is gone
  if (r->status != 200 && r->status != 400 && r->status != 404 && r->status != 422)
    __builtin_trap();
  nlohmann::json j = nlohmann::json::parse(r->body, nullptr, false);
  if (j.is_discarded() || !j.is_object()) __builtin_trap();
  return j;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (!served) {
    served = new Served;
    // libFuzzer ends with exit(): stop the server's threads first, then remove the directory.
    std::atexit([] { delete served; });
  }
  const std::string_view in(reinterpret_cast<const char*>(data), size);
  std::string_view parts[5];
  std::size_t start = 0;
  for (int i = 0; i < 5 && start <= in.size(); ++i) {
    const std::size_t end = i == 4 ? in.size() : std::min(in.find('\x01', start), in.size());
    parts[i] = in.substr(start, end - start);
    start = end + 1;
  }
  write(served->runs / "study" / "study.json", parts[0]);
  write(served->runs / "run" / "events.ndjson", parts[1]);
  write(served->runs / "run" / "per_shape.json", parts[2]);
  write(served->runs / "run" / "config.json", parts[3]);
  const std::size_t comma = parts[4].find(',');
  const std::uint64_t offset = number(parts[4].substr(0, comma));
  const std::uint64_t chunk =
      comma == std::string_view::npos ? 4096 : number(parts[4].substr(comma + 1));

  // A connection per request: with keep-alive each answer waited 40 ms on delayed ACKs (the
  // server writes its headers and body apart).
  httplib::Client c("127.0.0.1", served->port);
  c.set_read_timeout(20, 0);
  (void)get(c, "/api");
  (void)get(c, "/api/studies");
  (void)get(c, "/api/studies/study");
  (void)get(c, "/api/runs");
  (void)get(c, "/api/runs/run");
  (void)get(c, "/api/runs/run/per_shape");
  (void)get(c, fmt::format("/api/runs/run/events?offset={}&max_bytes={}", offset, chunk));
  // Following the stream from its start as a page does: a `next` it gave is always a place to go
  // on from, never behind; it stays put only before a last line without its newline.
  std::uint64_t at = 0;
  for (int i = 0; i < 8; ++i) {
    const nlohmann::json s =
        get(c, fmt::format("/api/runs/run/events?offset={}&max_bytes={}", at, chunk % 65536));
    if (s.contains("error")) __builtin_trap();
    const auto next = s["next"].get<std::uint64_t>();
    if (next < at || next > s["size"].get<std::uint64_t>()) __builtin_trap();
    if (next == at) break;
    at = next;
  }
  const auto page = c.Get("/");
  if (!page || page->status != 200) __builtin_trap();
  return 0;
}
