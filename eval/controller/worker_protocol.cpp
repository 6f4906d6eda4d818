#include "eval/controller/worker_protocol.hpp"

#include "models/csv_fields.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace tv {

namespace {

using json = nlohmann::json;

/// Deepest nesting a protocol line needs: the object, its config object or times array.
constexpr int kMaxDepth = 4;
/// Largest tile or knob value a request may carry.
constexpr int kMaxTileField = 1 << 16;
/// Longest time a reply may report (anything longer is not a kernel time).
constexpr double kMaxSeconds = 1e4;

/// Nesting depth of brackets outside strings (a cheap bound before parsing).
int nesting_depth(std::string_view s) {
  int depth = 0, deepest = 0;
  bool in_string = false, escaped = false;
  for (char c : s) {
    if (in_string) {
      if (escaped)
        escaped = false;
      else if (c == '\\')
        escaped = true;
      else if (c == '"')
        in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      deepest = std::max(deepest, ++depth);
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return deepest;
}

/// Printable ASCII only, at most kMaxReplyText bytes: text from a worker is shown and stored.
std::string clean_text(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (out.size() >= kMaxReplyText) {
      out += "...";
      break;
    }
    const auto u = static_cast<unsigned char>(c);
    out += (u >= 0x20 && u < 0x7f) ? c : (c == '\n' || c == '\t' ? ' ' : '?');
  }
  return out;
}

/// The object in `line`, or a discarded value with `error` set.
json parse_object(std::string_view line, std::string& error) {
  if (line.size() > kMaxProtocolLine) {
    error = fmt::format("line of {} bytes is longer than {}", line.size(), kMaxProtocolLine);
    return json(json::value_t::discarded);
  }
  if (nesting_depth(line) > kMaxDepth) {
    error = fmt::format("nested deeper than {} levels", kMaxDepth);
    return json(json::value_t::discarded);
  }
  json j = json::parse(line.begin(), line.end(), nullptr, false);
  if (j.is_discarded()) {
    error = "not JSON";
    return j;
  }
  if (!j.is_object()) {
    error = "not a JSON object";
    return json(json::value_t::discarded);
  }
  return j;
}

bool get_id(const json& j, std::uint64_t& id, std::string& error) {
  auto it = j.find("id");
  if (it == j.end()) {
    error = "no \"id\"";
    return false;
  }
  if (!it->is_number_unsigned()) {
    error = "\"id\" is not a non-negative integer";
    return false;
  }
  id = it->get<std::uint64_t>();
  return true;
}

/// The string field `key`, or nullopt when it is missing or not a string.
std::optional<std::string> string_field(const json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_string()) return std::nullopt;
  return clean_text(it->get<std::string>());
}

/// A finite number field, or nullopt when missing, null or not a number.
std::optional<double> number_field(const json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_number()) return std::nullopt;
  const double v = it->get<double>();
  if (!std::isfinite(v)) return std::nullopt;
  return v;
}

/// An integer field in [lo, hi]; false (with `error`) otherwise.
bool int_field(const json& j, const char* key, std::int64_t lo, std::int64_t hi, std::int64_t& out,
               std::string& error) {
  auto it = j.find(key);
  if (it == j.end()) {
    error = fmt::format("no \"{}\"", key);
    return false;
  }
  if (!it->is_number_integer()) {
    error = fmt::format("\"{}\" is not an integer", key);
    return false;
  }
  const std::int64_t v = it->get<std::int64_t>();
  if (v < lo || v > hi) {
    error = fmt::format("\"{}\" = {} is outside [{}, {}]", key, v, lo, hi);
    return false;
  }
  out = v;
  return true;
}

json config_json(const Config& c) {
  json j{{"BM", c.BM},       {"BN", c.BN},         {"BK", c.BK},
         {"warps", c.warps}, {"stages", c.stages}, {"group", c.group}};
  if (c.waves_per_eu) j["waves_per_eu"] = *c.waves_per_eu;
  if (c.matrix_instr_nonkdim) j["matrix_instr_nonkdim"] = *c.matrix_instr_nonkdim;
  if (c.kpack) j["kpack"] = *c.kpack;
  return j;
}

bool parse_config_json(const json& j, Config& c, std::string& error) {
  if (!j.is_object()) {
    error = "\"config\" is neither an object nor \"vendor\"";
    return false;
  }
  std::int64_t v = 0;
  const auto field = [&](const char* key, int& out) {
    if (!int_field(j, key, 1, kMaxTileField, v, error)) return false;
    out = int(v);
    return true;
  };
  if (!field("BM", c.BM) || !field("BN", c.BN) || !field("BK", c.BK) || !field("warps", c.warps) ||
      !field("stages", c.stages) || !field("group", c.group))
    return false;
  const auto knob = [&](const char* key, std::optional<int>& out) {
    if (!j.contains(key) || j[key].is_null()) return true;
    if (!int_field(j, key, 0, kMaxTileField, v, error)) return false;
    out = int(v);
    return true;
  };
  return knob("waves_per_eu", c.waves_per_eu) &&
         knob("matrix_instr_nonkdim", c.matrix_instr_nonkdim) && knob("kpack", c.kpack);
}

std::string layout_of(const Shape& s) {
  return s.layout.empty() ? "NN" : s.layout;
}

} // namespace

double median_of(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

std::string format_hello_request(std::uint64_t id) {
  return json{{"id", id}, {"op", "hello"}, {"protocol", kWorkerProtocol}}.dump();
}

std::string format_measure_request(std::uint64_t id, const MeasureJob& job) {
  json j{{"id", id},
         {"op", "measure"},
         {"M", job.shape.M},
         {"N", job.shape.N},
         {"K", job.shape.K},
         {"dtype", std::string(dtype_name(job.shape.dtype))},
         {"layout", layout_of(job.shape)},
         {"warmup", job.warmup},
         {"reps", job.reps},
         {"sample", job.sample}};
  j["config"] = job.vendor ? json("vendor") : config_json(job.config);
  return j.dump();
}

std::string format_shutdown_request(std::uint64_t id) {
  return json{{"id", id}, {"op", "shutdown"}}.dump();
}

ReplyLine read_reply_line(std::string_view line) {
  ReplyLine r;
  r.body = parse_object(line, r.error);
  if (r.body.is_discarded()) return r;
  if (!get_id(r.body, r.id, r.error)) return r;
  r.ok = true;
  return r;
}

std::optional<std::string> parse_hello_reply(const json& body, HelloReply& out) {
  out = HelloReply{};
  const auto status = string_field(body, "status");
  if (!status) return "hello reply has no \"status\" string";
  out.detail = string_field(body, "detail").value_or("");
  out.worker = string_field(body, "worker").value_or("");
  out.device = string_field(body, "device").value_or("");
  out.backend = string_field(body, "backend").value_or("");
  if (*status != "ok") {
    if (*status != "error")
      return fmt::format("hello reply has status '{}' (expected ok or error)", *status);
    if (out.detail.empty()) out.detail = "the worker answered hello with an error";
    return std::nullopt;
  }
  std::int64_t v = 0;
  std::string error;
  if (!int_field(body, "protocol", 0, 1 << 20, v, error)) return "hello reply: " + error;
  out.protocol = int(v);
  if (out.device.empty()) return "hello reply has no \"device\" name";
  if (out.worker.empty()) return "hello reply has no \"worker\" name";
  if (out.backend != "cuda" && out.backend != "rocm" && out.backend != "fake")
    return fmt::format("hello reply: backend '{}' is not cuda, rocm or fake", out.backend);
  if (body.contains("devices")) {
    if (!int_field(body, "devices", 0, 1 << 16, v, error)) return "hello reply: " + error;
    out.devices = int(v);
  }
  out.ok = true;
  return std::nullopt;
}

std::optional<std::string> parse_measure_reply(const json& body, MeasureReply& out) {
  out = MeasureReply{};
  const auto status = string_field(body, "status");
  if (!status) return "reply has no \"status\" string";
  // "unmeasured" says nothing and "crash" is the controller's verdict on a poison pair: a
  // worker sends neither.
  if (*status == "unmeasured" || *status == "crash" || !parse_status(*status, out.status))
    return fmt::format("reply has unknown status '{}'", *status);
  out.detail = string_field(body, "detail").value_or("");
  auto seconds = body.find("seconds");
  const bool has_seconds = seconds != body.end() && !seconds->is_null();
  auto times = body.find("times");
  const bool has_times =
      times != body.end() && !times->is_null() && !(times->is_array() && times->empty());
  if (body.contains("max_rel_error") && !body["max_rel_error"].is_null()) {
    const auto e = number_field(body, "max_rel_error");
    if (!e || *e < 0) return "\"max_rel_error\" is not a non-negative finite number";
    out.max_rel_error = *e;
  }
  if (out.status != MeasureStatus::ok) {
    // A failed pair never has a time: a worker that sends one is lying.
    if (has_seconds || has_times)
      return fmt::format("reply with status {} carries a time", *status);
    return std::nullopt;
  }
  const auto s = number_field(body, "seconds");
  if (!has_seconds || !s) return "ok reply without a finite \"seconds\"";
  if (!(*s > 0) || *s > kMaxSeconds)
    return fmt::format("ok reply with seconds {} outside (0, {}]", *s, kMaxSeconds);
  out.seconds = *s;
  if (has_times) {
    if (!times->is_array()) return "\"times\" is not an array";
    if (times->size() > kMaxReplyTimes)
      return fmt::format("\"times\" has {} entries (at most {})", times->size(), kMaxReplyTimes);
    for (const auto& t : *times) {
      if (!t.is_number()) return "\"times\" holds something that is not a number";
      const double v = t.get<double>();
      if (!std::isfinite(v) || !(v > 0) || v > kMaxSeconds)
        return "\"times\" holds a time that is not positive and finite";
      out.times.push_back(v);
    }
  }
  return std::nullopt;
}

WorkerRequest parse_request(std::string_view line) {
  WorkerRequest r;
  const json j = parse_object(line, r.error);
  if (j.is_discarded()) return r;
  if (!get_id(j, r.id, r.error)) return r;
  const auto op = string_field(j, "op");
  if (!op) {
    r.error = "no \"op\" string";
    return r;
  }
  r.op = *op;
  std::int64_t v = 0;
  if (r.op == "hello") {
    if (!int_field(j, "protocol", 0, 1 << 20, v, r.error)) return r;
    r.protocol = int(v);
  } else if (r.op == "measure") {
    Shape& s = r.job.shape;
    if (!int_field(j, "M", 1, kMaxShapeDim, s.M, r.error) ||
        !int_field(j, "N", 1, kMaxShapeDim, s.N, r.error) ||
        !int_field(j, "K", 1, kMaxShapeDim, s.K, r.error))
      return r;
    const auto dtype = string_field(j, "dtype");
    const auto d = dtype ? parse_dtype(*dtype) : std::nullopt;
    if (!d) {
      r.error = "\"dtype\" is not bf16, f16, f32 or fp8";
      return r;
    }
    s.dtype = *d;
    const auto layout = string_field(j, "layout").value_or("NN");
    if (!is_shape_layout(layout)) {
      r.error = fmt::format("\"layout\" '{}' is not NN, NT, TN or TT", layout);
      return r;
    }
    s.layout = layout;
    if (!int_field(j, "warmup", 0, 100000, v, r.error)) return r;
    r.job.warmup = int(v);
    if (!int_field(j, "reps", 1, 100000, v, r.error)) return r;
    r.job.reps = int(v);
    if (j.contains("sample")) {
      if (!int_field(j, "sample", 0, 1 << 20, v, r.error)) return r;
      r.job.sample = int(v);
    }
    auto config = j.find("config");
    if (config == j.end()) {
      r.error = "no \"config\"";
      return r;
    }
    if (config->is_string() && config->get<std::string>() == "vendor")
      r.job.vendor = true;
    else if (!parse_config_json(*config, r.job.config, r.error))
      return r;
  } else if (r.op != "shutdown") {
    r.error = fmt::format("unknown op '{}'", r.op);
    return r;
  }
  r.ok = true;
  return r;
}

std::string format_hello_reply(std::uint64_t id, const HelloReply& r) {
  json j{{"id", id}, {"status", r.ok ? "ok" : "error"}, {"protocol", r.protocol}};
  if (!r.device.empty()) j["device"] = r.device;
  if (!r.backend.empty()) j["backend"] = r.backend;
  if (!r.worker.empty()) j["worker"] = r.worker;
  if (r.devices > 0) j["devices"] = r.devices;
  if (!r.detail.empty()) j["detail"] = r.detail;
  return j.dump();
}

std::string format_measure_reply(std::uint64_t id, const MeasureReply& r) {
  json j{{"id", id}, {"status", std::string(status_name(r.status))}};
  if (r.status == MeasureStatus::ok) {
    j["seconds"] = r.seconds;
    j["times"] = r.times;
  }
  if (r.max_rel_error) j["max_rel_error"] = *r.max_rel_error;
  if (!r.detail.empty()) j["detail"] = r.detail;
  return j.dump();
}

} // namespace tv
