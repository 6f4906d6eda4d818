#pragma once
/// The record of every exchange with the LLM server: one JSON line per HTTP attempt,
/// appended and flushed as it happens (`llm_exchanges.ndjson` in the run directory). It holds
/// the request body, the reply, status, latency and tokens, never the API key. A recording
/// lets `--llm replay:DIR` rerun without a server and `--resume` reuse what was answered.
///
///   {"request": 12, "attempt": 0, "final": true, "model": "m", "digest": "9f..",
///    "body": {...}, "status": 200, "outcome": "ok", "error": "", "reply": "...",
///    "prompt_tokens": 812, "completion_tokens": 96, "usage": true, "latency_s": 1.92,
///    "retry_after_s": -1, "wait_s": 0}
#include "evolve/mutators/chat_attempt.hpp"

#include <cstdint>
#include <cstdio>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace tv {

/// One line of the log.
struct ExchangeRecord {
  std::uint64_t request = 0; ///< the run's request number (0-based, in request order)
  std::string model;
  std::string digest; ///< digest of the request body (what a replayed request must match)
  std::string body;   ///< the request body as sent (JSON text)
  ChatAttempt attempt;
};

/// A record as one JSON line (with '\n').
std::string record_line(const ExchangeRecord& r);
/// Parses one line written by record_line; throws InputError "source:line: ..." when it is
/// not one.
ExchangeRecord parse_record_line(std::string_view line, std::string_view source, int line_no);

/// The recorded attempts of each request, read from a log.
class ExchangeRecording {
public:
  /// Reads `text` (named `source` in errors). A last line without its '\n' (cut off by a
  /// kill) is ignored; any other bad line throws InputError naming the source and line.
  /// `valid_bytes` receives the length of the part that was read.
  static ExchangeRecording parse(std::string_view text, std::string_view source,
                                 std::uint64_t* valid_bytes = nullptr);
  /// Reads a log file; a missing file is an empty recording when `missing_ok`, else an
  /// InputError.
  static ExchangeRecording load(const std::string& path, bool missing_ok,
                                std::uint64_t* valid_bytes = nullptr);
  /// The attempts of request `n` in attempt order (empty when none was recorded).
  const std::vector<ExchangeRecord>& of(std::uint64_t n) const;
  /// True when request `n`'s last recorded attempt is final.
  bool answered(std::uint64_t n) const;
  /// Number of requests with any record.
  std::size_t size() const { return by_request_.size(); }

private:
  std::map<std::uint64_t, std::vector<ExchangeRecord>> by_request_;
};

/// Appends records to a log file, one flushed line each; safe to call from several threads.
class ExchangeWriter {
public:
  /// Opens `path`: truncated to `keep_bytes` first (0 = a new, empty file).
  ExchangeWriter(const std::string& path, std::uint64_t keep_bytes);
  ~ExchangeWriter();
  ExchangeWriter(const ExchangeWriter&) = delete;
  ExchangeWriter& operator=(const ExchangeWriter&) = delete;
  /// Appends and flushes one record; throws InputError when the file cannot be written.
  void append(const ExchangeRecord& r);

private:
  std::FILE* file_ = nullptr;
  std::string path_;
  std::mutex mutex_;
};

/// Deterministic digest of a request body (16 hex digits).
std::string body_digest(std::string_view body);

} // namespace tv
