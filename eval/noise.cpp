#include "eval/noise.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>

namespace tv {

nlohmann::json NoiseEstimate::to_json() const {
  nlohmann::json j{{"valid", valid}, {"shape", shape},     {"config", config.brief()},
                   {"times", times}, {"median_s", median}, {"spread", spread}};
  if (!valid) j["problem"] = problem;
  return j;
}

std::string NoiseEstimate::text() const {
  if (!valid) return fmt::format("noise estimate failed: {}", problem);
  return fmt::format("{} runs of {} on {}: median {:.2f} us, spread {:.2f}% (fastest {:.2f} us, "
                     "slowest {:.2f} us)",
                     times.size(), config.brief(), shape, median * 1e6, 100 * spread,
                     *std::min_element(times.begin(), times.end()) * 1e6,
                     *std::max_element(times.begin(), times.end()) * 1e6);
}

NoiseEstimate estimate_noise(TimingBackend& backend, const Shape& shape, const Config& config,
                             int reps) {
  NoiseEstimate e;
  e.shape = shape.label();
  e.config = config;
  std::vector<TimingRequest> batch;
  for (int k = 0; k < reps; ++k)
    batch.push_back({shape, config, k});
  const std::vector<Measurement> got = backend.time(batch);
  for (std::size_t k = 0; k < got.size(); ++k) {
    if (!got[k].ok()) {
      e.problem = fmt::format("sample {} of {} on {}: {}{}", k, config.brief(), e.shape,
                              status_name(got[k].status),
                              got[k].detail.empty() ? "" : " (" + got[k].detail + ")");
      return e;
    }
    e.times.push_back(got[k].seconds);
  }
  if (e.times.empty()) {
    e.problem = "no repetitions asked for";
    return e;
  }
  std::vector<double> sorted = e.times;
  std::sort(sorted.begin(), sorted.end());
  const std::size_t n = sorted.size();
  e.median = n % 2 ? sorted[n / 2] : 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]);
  e.spread = (sorted.back() - sorted.front()) / e.median;
  e.valid = true;
  return e;
}

std::size_t noise_row(const Problem& p) {
  const std::vector<double>& t = p.train->expert_times();
  std::vector<std::size_t> order(t.size());
  std::iota(order.begin(), order.end(), std::size_t(0));
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return t[a] < t[b]; });
  return p.train_rows[order[(order.size() - 1) / 2]];
}

} // namespace tv
