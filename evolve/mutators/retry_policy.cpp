#include "evolve/mutators/retry_policy.hpp"

#include "ir/rng.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>

namespace tv {

double RetryPolicy::wait(int retry, double retry_after_s, std::uint64_t jitter_seed) const {
  Rng rng(jitter_seed ^ (0x6a6974746572ULL + std::uint64_t(retry)));
  const double base = backoff_s * std::ldexp(1.0, std::clamp(retry - 1, 0, 30));
  double w = base * (0.5 + 0.5 * rng.uniform01());
  if (retry_after_s >= 0) w = std::max(w, retry_after_s);
  return std::clamp(w, 0.0, std::max(0.0, max_wait_s));
}

double parse_retry_after(std::string_view h) {
  while (!h.empty() && (h.front() == ' ' || h.front() == '\t'))
    h.remove_prefix(1);
  while (!h.empty() && (h.back() == ' ' || h.back() == '\t'))
    h.remove_suffix(1);
  if (h.empty()) return -1;
  double v = 0;
  const auto r = std::from_chars(h.data(), h.data() + h.size(), v);
  if (r.ec != std::errc() || r.ptr != h.data() + h.size() || !std::isfinite(v) || v < 0) return -1;
  return v;
}

} // namespace tv
