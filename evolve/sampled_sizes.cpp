#include "evolve/sampled_sizes.hpp"

#include "ir/rng.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <fmt/format.h>
#include <limits>

namespace tv {

namespace {

/// The smallest and largest M, N and K of the shapes.
std::array<std::pair<std::int64_t, std::int64_t>, 3> ranges(const std::vector<Shape>& shapes) {
  std::array<std::pair<std::int64_t, std::int64_t>, 3> r;
  r.fill({std::numeric_limits<std::int64_t>::max(), 0});
  for (const Shape& s : shapes) {
    const std::array<std::int64_t, 3> v{s.M, s.N, s.K};
    for (std::size_t d = 0; d < 3; ++d)
      r[d] = {std::min(r[d].first, v[d]), std::max(r[d].second, v[d])};
  }
  return r;
}

/// The fraction of the fastest a failed config counts as.
constexpr double kFailedRatio = 0.01;

} // namespace

std::vector<Shape> sample_sizes(const std::vector<Shape>& train, int count, std::uint64_t seed) {
  std::vector<Shape> out;
  if (train.empty()) return out;
  const auto r = ranges(train);
  Rng rng(seed);
  for (int k = 0; k < count; ++k) {
    Shape s = train[rng.index(train.size())];
    std::array<std::int64_t, 3> v{};
    for (std::size_t d = 0; d < 3; ++d) {
      const double lo = std::log(double(r[d].first)), hi = std::log(double(r[d].second));
      v[d] = std::clamp<std::int64_t>(std::llround(std::exp(lo + rng.uniform01() * (hi - lo))),
                                      r[d].first, r[d].second);
    }
    s.M = v[0];
    s.N = v[1];
    s.K = v[2];
    s.weight = 1.0;
    s.name = fmt::format("sampled:{}", k);
    out.push_back(std::move(s));
  }
  return out;
}

SampledChoice choose_on_sampled_sizes(const std::vector<Program>& programs,
                                      const std::vector<Shape>& sizes, const TimeBatch& time) {
  SampledChoice out;
  out.figures.assign(programs.size(), 0.0);
  std::vector<double> log_sum(programs.size(), 0.0);
  std::vector<Config> chosen(programs.size());
  for (const Shape& size : sizes) {
    std::vector<TimingRequest> batch;
    std::vector<std::size_t> pair_of(programs.size());
    for (std::size_t p = 0; p < programs.size(); ++p) {
      chosen[p] = programs[p].choose(size);
      const auto it = std::find_if(batch.begin(), batch.end(),
                                   [&](const TimingRequest& t) { return t.config == chosen[p]; });
      pair_of[p] = std::size_t(it - batch.begin());
      if (it == batch.end()) batch.push_back({size, chosen[p], 0});
    }
    const std::vector<Measurement> times = time(batch);
    bool unmeasured = times.size() != batch.size();
    double fastest = std::numeric_limits<double>::infinity();
    for (std::size_t b = 0; !unmeasured && b < batch.size(); ++b) {
      if (times[b].status == MeasureStatus::unmeasured) unmeasured = true;
      if (times[b].ok()) fastest = std::min(fastest, times[b].seconds);
    }
    for (const Measurement& m : times)
      out.kernel_runs += m.status != MeasureStatus::unmeasured;
    if (unmeasured || !std::isfinite(fastest)) continue;
    ++out.sizes;
    for (std::size_t p = 0; p < programs.size(); ++p) {
      const Measurement& m = times[pair_of[p]];
      log_sum[p] += m.ok() ? std::log(fastest / m.seconds) : std::log(kFailedRatio);
    }
  }
  for (std::size_t p = 0; p < programs.size(); ++p) {
    out.figures[p] = out.sizes > 0 ? std::exp(log_sum[p] / out.sizes) : 1.0;
    if (out.figures[p] > out.figures[out.chosen]) out.chosen = p;
  }
  return out;
}

std::string sampled_range(const std::vector<Shape>& train) {
  if (train.empty()) return "no training shapes";
  const auto r = ranges(train);
  return fmt::format("M {}..{}, N {}..{}, K {}..{}", r[0].first, r[0].second, r[1].first,
                     r[1].second, r[2].first, r[2].second);
}

} // namespace tv
