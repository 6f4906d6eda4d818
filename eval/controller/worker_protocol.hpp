#pragma once
/// The worker protocol, version 1 (eval/workers/PROTOCOL.md): line-delimited JSON between the
/// controller and a worker process. Both sides live here: the controller formats requests and
/// parses replies, a worker (the fake worker in tests/) parses requests and formats replies.
/// Every parser treats its input as untrusted: bounded, validated, never executed.
#include "eval/measurement.hpp"
#include "ir/config.hpp"
#include "ir/shape.hpp"

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tv {

/// The protocol version this controller speaks.
inline constexpr int kWorkerProtocol = 1;
/// Longest line either side accepts (a longer one is garbage).
inline constexpr std::size_t kMaxProtocolLine = 1 << 20;
/// Most repetition times a reply may carry.
inline constexpr std::size_t kMaxReplyTimes = 100000;
/// Longest detail or name kept from a reply (longer text is cut).
inline constexpr std::size_t kMaxReplyText = 2000;

/// One thing to measure: a (shape, config) pair, or the vendor library on a shape.
struct MeasureJob {
  Shape shape;         ///< M, N, K, dtype and layout (empty = NN); name and weight unused
  Config config;       ///< ignored when `vendor`
  bool vendor = false; ///< time the vendor library (torch.matmul) instead of the Triton kernel
  int sample = 0;      ///< 0 = first measurement, k = the k-th independent re-measurement
  int warmup = 5;      ///< untimed runs first
  int reps = 20;       ///< timed repetitions (the median is the result)
};

/// A worker's answer to hello.
struct HelloReply {
  bool ok = false;     ///< status "ok"
  int protocol = 0;    ///< the protocol it speaks
  std::string device;  ///< device name, e.g. "NVIDIA H200"
  std::string backend; ///< "cuda", "rocm" or "fake"
  std::string worker;  ///< worker name and version, e.g. "tilevolve-triton-worker 1 (...)"
  int devices = 0;     ///< devices the worker can see (0 = not said)
  std::string detail;  ///< why, when not ok
};

/// A worker's answer to one measure request.
struct MeasureReply {
  MeasureStatus status = MeasureStatus::error;
  double seconds = 0;                  ///< median of `times`, only when ok
  std::vector<double> times;           ///< every timed repetition (ok only)
  std::optional<double> max_rel_error; ///< largest relative error against the reference
  std::string detail;                  ///< why, when not ok
};

/// A reply line split into its id and its object.
struct ReplyLine {
  bool ok = false;
  std::string error; ///< why the line is not a reply (not JSON, no id, too deep, ...)
  std::uint64_t id = 0;
  nlohmann::json body;
};

/// What a worker reads: one request line.
struct WorkerRequest {
  bool ok = false;
  std::string error;
  std::uint64_t id = 0;
  std::string op; ///< "hello", "measure" or "shutdown"
  int protocol = 0;
  MeasureJob job; ///< for "measure"
};

/// `{"id": 0, "op": "hello", "protocol": 1}`.
std::string format_hello_request(std::uint64_t id);
/// The measure request of `job` (one line, no newline).
std::string format_measure_request(std::uint64_t id, const MeasureJob& job);
/// `{"id": N, "op": "shutdown"}`.
std::string format_shutdown_request(std::uint64_t id);

/// Splits a reply line: a JSON object with a non-negative integer "id", at most
/// kMaxProtocolLine bytes and nested at most a few levels deep. Never throws.
ReplyLine read_reply_line(std::string_view line);
/// Validates a hello reply body; returns an error text instead when a field is missing or
/// mistyped. A worker that says status "error" is a valid reply with ok false.
std::optional<std::string> parse_hello_reply(const nlohmann::json& body, HelloReply& out);
/// Validates a measure reply body; returns an error text when it is malformed or lies (a time
/// with a failed status, ok without a positive finite time, an unknown status). Never throws.
std::optional<std::string> parse_measure_reply(const nlohmann::json& body, MeasureReply& out);

/// Parses one request line (worker side); never throws.
WorkerRequest parse_request(std::string_view line);
/// The hello reply line of `r` with id `id`.
std::string format_hello_reply(std::uint64_t id, const HelloReply& r);
/// The measure reply line of `r` with id `id` (seconds and times only when ok).
std::string format_measure_reply(std::uint64_t id, const MeasureReply& r);

/// Median of `v` (0 for an empty vector).
double median_of(std::vector<double> v);

} // namespace tv
