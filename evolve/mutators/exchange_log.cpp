#include "evolve/mutators/exchange_log.hpp"

#include "evolve/mutators/excerpt.hpp"
#include "ir/error.hpp"
#include "ir/hash.hpp"
#include "models/json_text.hpp"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

namespace tv {

namespace {

template <class T>
T log_field(const nlohmann::json& j, const char* key, std::string_view source, int line) {
  const auto it = j.find(key);
  if (it == j.end()) throw InputError(fmt::format("{}:{}: field '{}' missing", source, line, key));
  // Checked before get<T>(): nlohmann casts a number out of T's range (undefined behaviour;
  // found by fuzz_exchange_log with a status of 4.3e58).
  if (const std::string why = json_type_problem<T>(*it); !why.empty())
    throw InputError(
        fmt::format("{}:{}: field '{}' has the wrong type ({})", source, line, key, why));
  return it->get<T>();
}

} // namespace

std::string body_digest(std::string_view s) {
  return fmt::format("{:016x}", text_digest(s, 0x6c6c6d626f647921ULL));
}

std::string record_line(const ExchangeRecord& r) {
  const ChatAttempt& a = r.attempt;
  nlohmann::json body;
  try {
    JsonReadOptions how; // the server's bytes: bounded, as any file's
    how.duplicate_keys = DuplicateKeys::keep_last;
    how.max_depth = kMaxJsonDepth - 1; // one level under the record, which must read back
    body = read_json(r.body, "the response", how);
  } catch (const InputError&) {
    body = r.body; // keep it as text rather than lose it
  }
  nlohmann::json j{{"request", r.request},
                   {"attempt", a.attempt},
                   {"final", a.final},
                   {"model", r.model},
                   {"digest", r.digest},
                   {"body", body},
                   {"status", a.status},
                   {"outcome", failure_kind_name(a.failure)},
                   {"error", a.error},
                   {"reply", a.content},
                   {"prompt_tokens", a.prompt_tokens},
                   {"completion_tokens", a.completion_tokens},
                   {"usage", a.has_usage},
                   {"latency_s", a.latency_s},
                   {"retry_after_s", a.retry_after_s},
                   {"wait_s", a.wait_s}};
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

ExchangeRecord parse_record_line(std::string_view line, std::string_view source, int n) {
  nlohmann::json j;
  try {
    JsonReadOptions how;
    how.duplicate_keys = DuplicateKeys::keep_last;
    j = read_json(line, source, how);
  } catch (const InputError&) {
    j = nullptr; // refused below
  }
  if (!j.is_object())
    throw InputError(
        fmt::format("{}:{}: not a JSON object (a corrupt exchange record)", source, n));
  ExchangeRecord r;
  r.request = log_field<std::uint64_t>(j, "request", source, n);
  r.model = log_field<std::string>(j, "model", source, n);
  r.digest = log_field<std::string>(j, "digest", source, n);
  const auto body = j.find("body");
  if (body == j.end()) throw InputError(fmt::format("{}:{}: field 'body' missing", source, n));
  r.body = body->is_string() ? body->get<std::string>() : body->dump();
  ChatAttempt& a = r.attempt;
  a.attempt = log_field<int>(j, "attempt", source, n);
  if (a.attempt < 0 || a.attempt > 1000)
    throw InputError(fmt::format("{}:{}: attempt {} out of range", source, n, a.attempt));
  a.final = log_field<bool>(j, "final", source, n);
  a.status = log_field<int>(j, "status", source, n);
  const std::string outcome = log_field<std::string>(j, "outcome", source, n);
  if (!parse_failure_kind(outcome, a.failure))
    throw InputError(fmt::format("{}:{}: unknown outcome '{}'", source, n, excerpt(outcome, 40)));
  a.error = log_field<std::string>(j, "error", source, n);
  a.content = log_field<std::string>(j, "reply", source, n);
  a.prompt_tokens = log_field<long long>(j, "prompt_tokens", source, n);
  a.completion_tokens = log_field<long long>(j, "completion_tokens", source, n);
  a.has_usage = log_field<bool>(j, "usage", source, n);
  a.latency_s = log_field<double>(j, "latency_s", source, n);
  a.retry_after_s = log_field<double>(j, "retry_after_s", source, n);
  a.wait_s = log_field<double>(j, "wait_s", source, n);
  if (a.prompt_tokens < 0 || a.completion_tokens < 0 || a.latency_s < 0 || a.wait_s < 0)
    throw InputError(fmt::format("{}:{}: negative tokens, latency or wait", source, n));
  if (a.ok() && !a.final)
    throw InputError(fmt::format("{}:{}: a successful attempt must be final", source, n));
  return r;
}

ExchangeRecording ExchangeRecording::parse(std::string_view text, std::string_view source,
                                           std::uint64_t* valid_bytes) {
  ExchangeRecording rec;
  std::size_t pos = 0;
  int line_no = 0;
  while (pos < text.size()) {
    const std::size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) break; // cut off by a kill: not recorded
    ++line_no;
    const std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    ExchangeRecord r = parse_record_line(line, source, line_no);
    auto& attempts = rec.by_request_[r.request];
    if (!attempts.empty() && attempts.back().attempt.final)
      throw InputError(fmt::format("{}:{}: request {} has an attempt after its final one", source,
                                   line_no, r.request));
    if (r.attempt.attempt != int(attempts.size()))
      throw InputError(fmt::format("{}:{}: request {}: attempt {} where {} was expected", source,
                                   line_no, r.request, r.attempt.attempt, attempts.size()));
    if (!attempts.empty() && attempts.front().digest != r.digest)
      throw InputError(fmt::format("{}:{}: request {}: the attempts have different bodies", source,
                                   line_no, r.request));
    attempts.push_back(std::move(r));
  }
  if (valid_bytes) *valid_bytes = pos;
  return rec;
}

ExchangeRecording ExchangeRecording::load(const std::string& path, bool missing_ok,
                                          std::uint64_t* valid_bytes) {
  if (!std::filesystem::exists(path)) {
    if (!missing_ok)
      throw InputError(fmt::format("'{}' does not exist: that run recorded no exchanges with an "
                                   "LLM server",
                                   path));
    if (valid_bytes) *valid_bytes = 0;
    return {};
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(fmt::format("cannot read '{}': {}", path, std::strerror(errno)));
  std::ostringstream ss;
  ss << in.rdbuf();
  return parse(ss.str(), path, valid_bytes);
}

const std::vector<ExchangeRecord>& ExchangeRecording::of(std::uint64_t n) const {
  static const std::vector<ExchangeRecord> none;
  const auto it = by_request_.find(n);
  return it == by_request_.end() ? none : it->second;
}

bool ExchangeRecording::answered(std::uint64_t n) const {
  const auto& a = of(n);
  return !a.empty() && a.back().attempt.final;
}

ExchangeWriter::ExchangeWriter(const std::string& path, std::uint64_t keep_bytes) : path_(path) {
  if (keep_bytes == 0) {
    file_ = std::fopen(path.c_str(), "wb");
  } else {
    std::error_code ec;
    std::filesystem::resize_file(path, keep_bytes, ec);
    if (ec) throw InputError(fmt::format("cannot truncate '{}': {}", path, ec.message()));
    file_ = std::fopen(path.c_str(), "ab");
  }
  if (!file_) throw InputError(fmt::format("cannot open '{}': {}", path, std::strerror(errno)));
}

ExchangeWriter::~ExchangeWriter() {
  if (file_) std::fclose(file_);
}

void ExchangeWriter::append(const ExchangeRecord& r) {
  const std::string line = record_line(r);
  std::lock_guard<std::mutex> lock(mutex_);
  if (std::fwrite(line.data(), 1, line.size(), file_) != line.size() || std::fflush(file_) != 0)
    throw InputError(fmt::format("cannot write '{}': {}", path_, std::strerror(errno)));
}

} // namespace tv
