#include "serve/json_api.hpp"

#include "ir/error.hpp"
#include "serve/path_safety.hpp"

#include <charconv>
#include <fmt/format.h>
#include <httplib.h>

namespace tv {

namespace {

using json = nlohmann::json;

void reply(httplib::Response& res, const json& body, int status = 200) {
  res.status = status;
  res.set_content(body.dump(-1, ' ', false, json::error_handler_t::replace), "application/json");
}

void error(httplib::Response& res, int status, const std::string& why) {
  reply(res, {{"error", why}}, status);
}

/// A run name from the URL: 403 for a name that could leave the root, 404 for no such run.
bool check_run(RunIndex& index, const std::string& name, httplib::Response& res) {
  if (const std::string why = component_problem(name); !why.empty()) {
    error(res, 403, "refused run name: " + why);
    return false;
  }
  if (index.run_dir(name).empty()) {
    error(res, 404, fmt::format("no run named '{}' under {}", name, index.root().string()));
    return false;
  }
  return true;
}

/// A non-negative decimal query parameter, `fallback` when absent; nullopt when malformed.
std::optional<std::uint64_t> param(const httplib::Request& req, const char* key,
                                   std::uint64_t fallback) {
  if (!req.has_param(key)) return fallback;
  const std::string v = req.get_param_value(key);
  std::uint64_t out = 0;
  const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), out);
  if (ec != std::errc() || end != v.data() + v.size() || v.empty()) return std::nullopt;
  return out;
}

const json kEndpoints = json::array({
    {{"path", "/api/runs"}, {"what", "every run under the runs directory, with its summary"}},
    {{"path", "/api/runs/NAME"},
     {"what", "one run's state: config, status, counters, operators, improvements, best "
              "program (simplified, diff from the expert), lineage, devices (a measured "
              "run's devices: alive or retired, restarts, faults by kind, error; its poison "
              "pairs)"}},
    {{"path", "/api/runs/NAME/per_shape"},
     {"what", "per-shape speedups over the expert of the best program and the baselines"}},
    {{"path", "/api/runs/NAME/events?offset=B&max_bytes=M"},
     {"what", "raw events from byte B; follow the stream by polling from 'next'"}},
    {{"path", "/api/studies"},
     {"what", "every split study (tilevolve splits --out DIR) under the runs directory, with "
              "its headline figures"}},
    {{"path", "/api/studies/NAME"}, {"what", "one split study: its study.json, as splits --json"}},
});

} // namespace

void add_json_api(httplib::Server& server, RunIndex& index, StudyIndex& studies) {
  server.Get("/api", [](const httplib::Request&, httplib::Response& res) {
    reply(res, {{"endpoints", kEndpoints}});
  });
  server.Get("/api/runs", [&index](const httplib::Request&, httplib::Response& res) {
    reply(res, {{"root", index.root().string()}, {"runs", index.summaries()}});
  });
  server.Get("/api/studies", [&index, &studies](const httplib::Request&, httplib::Response& res) {
    reply(res, {{"root", index.root().string()}, {"studies", studies.summaries()}});
  });
  server.Get(R"(/api/studies/([^/]+))",
             [&index, &studies](const httplib::Request& req, httplib::Response& res) {
               const std::string name = req.matches[1];
               if (const std::string why = component_problem(name); !why.empty())
                 return error(res, 403, "refused study name: " + why);
               try {
                 json doc = studies.study(name);
                 if (doc.is_null())
                   return error(res, 404,
                                fmt::format("no split study named '{}' under {}", name,
                                            index.root().string()));
                 reply(res, doc);
               } catch (const InputError& e) {
                 error(res, 422, e.what());
               }
             });
  server.Get(R"(/api/runs/([^/]+))", [&index](const httplib::Request& req, httplib::Response& res) {
    const std::string name = req.matches[1];
    if (!check_run(index, name, res)) return;
    json state;
    if (!index.with_run(name, [&](RunView& v) { state = v.state(); }))
      return error(res, 404, "the run went away");
    reply(res, state);
  });
  server.Get(R"(/api/runs/([^/]+)/per_shape)",
             [&index](const httplib::Request& req, httplib::Response& res) {
               const std::string name = req.matches[1];
               if (!check_run(index, name, res)) return;
               json body;
               index.with_run(name, [&](RunView& v) {
                 body = {{"version", v.per_shape_version()}, {"per_shape", v.per_shape()}};
               });
               reply(res, body);
             });
  server.Get(
      R"(/api/runs/([^/]+)/events)", [&index](const httplib::Request& req, httplib::Response& res) {
        const std::string name = req.matches[1];
        if (!check_run(index, name, res)) return;
        const auto offset = param(req, "offset", 0);
        const auto max_bytes = param(req, "max_bytes", 1u << 20);
        if (!offset || !max_bytes)
          return error(res, 400, "offset and max_bytes must be non-negative integers");
        const auto dir = index.run_dir(name);
        const EventSlice s =
            read_event_slice(dir / "events.ndjson", *offset,
                             std::size_t(std::min<std::uint64_t>(*max_bytes, 16u << 20)), dir);
        if (!s.error.empty())
          return error(res, s.error.find("outside") != std::string::npos ? 403 : 400, s.error);
        reply(res, {{"offset", *offset},
                    {"next", s.next},
                    {"size", s.size},
                    {"events", s.events},
                    {"bad_lines", s.bad_lines}});
      });
}

} // namespace tv
