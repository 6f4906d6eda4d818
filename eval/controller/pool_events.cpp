#include "eval/controller/pool_events.hpp"

#include <utility>

namespace tv {

std::string line_excerpt(const std::string& s) {
  std::string out;
  for (char c : s.substr(0, 80)) {
    const auto u = static_cast<unsigned char>(c);
    out += (u >= 0x20 && u < 0x7f) ? c : '?';
  }
  return s.size() > 80 ? out + "..." : out;
}

std::string last_lines(const std::string& text, int n) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(start, end - start);
    if (!line.empty()) lines.push_back(line_excerpt(line));
    start = end + 1;
  }
  std::string out;
  for (std::size_t i = lines.size() > std::size_t(n) ? lines.size() - std::size_t(n) : 0;
       i < lines.size(); ++i)
    out += (out.empty() ? "" : " | ") + lines[i];
  return out;
}

nlohmann::json event_pair(const MeasureJob& job) {
  nlohmann::json j{{"shape", job.shape.label()},
                   {"config", job.vendor ? std::string("vendor") : job.config.brief()}};
  if (job.sample > 0) j["sample"] = job.sample;
  return j;
}

std::string event_text(const std::string& s) {
  if (s.size() <= kMaxEventText) return s;
  std::string out = s.substr(0, kMaxEventText - 3);
  // Not in the middle of a UTF-8 sequence.
  while (!out.empty() && (static_cast<unsigned char>(out.back()) & 0xC0) == 0x80)
    out.pop_back();
  if (!out.empty() && static_cast<unsigned char>(out.back()) >= 0xC0) out.pop_back();
  return out + "...";
}

nlohmann::json worker_fault_event(const FaultEvent& f) {
  return {{"event", "worker_fault"},
          {"device", f.device},
          {"kind", f.kind},
          {"while", f.starting ? "starting" : "measuring"},
          {"error", event_text(f.error)},
          {"requests", f.requests},
          {"pairs", f.pairs},
          {"faults_in_row", f.faults_in_row},
          {"action", f.action},
          {"backoff_s", f.backoff_s},
          {"restarts", f.restarts}};
}

nlohmann::json pair_retry_event(const std::string& device, const MeasureJob& job, int faults,
                                int strikes) {
  nlohmann::json j{{"event", "pair_retry"}, {"device", device}};
  j.update(event_pair(job));
  j["faults"] = faults;
  j["strikes"] = strikes;
  return j;
}

nlohmann::json poison_pair_event(const std::string& device, const std::vector<std::string>& devices,
                                 const MeasureJob& job, int strikes, const std::string& error,
                                 const std::string& stderr_tail) {
  nlohmann::json j{{"event", "poison_pair"}, {"device", device}, {"devices", devices}};
  j.update(event_pair(job));
  j["strikes"] = strikes;
  j["error"] = event_text(error);
  j["stderr"] = event_text(stderr_tail);
  return j;
}

nlohmann::json device_retired_event(const std::string& device, const std::string& reason,
                                    long long faults, long long restarts, long long failed_starts) {
  return {{"event", "device_retired"}, {"device", device},     {"reason", event_text(reason)},
          {"faults", faults},          {"restarts", restarts}, {"failed_starts", failed_starts}};
}

void PoolEventLog::add(nlohmann::json e) {
  if (kept_ >= kMaxPoolEvents) {
    ++dropped_;
    return;
  }
  ++kept_;
  pending_.push_back(std::move(e));
}

std::vector<nlohmann::json> PoolEventLog::take() {
  return std::exchange(pending_, {});
}

} // namespace tv
