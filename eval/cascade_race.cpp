// Stage 2's race (CascadeEvaluator::race): a child past the probes is timed on its new training
// pairs a batch at a time, in a fixed random order, and stopped as soon as its parent surely
// beats it. A child that changes the config of many training shapes and loses on a sample of
// them needs no more kernel runs to be rejected; one that does not lose is timed in full.
#include "eval/cascade.hpp"

#include "ir/hash.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

namespace tv {

double race_upper_bound(double known, const std::vector<double>& sample, std::size_t population,
                        double total_weight) {
  const double n = double(sample.size()), N = double(population);
  double mean = 0;
  for (double v : sample)
    mean += v / n;
  double ss = 0;
  for (double v : sample)
    ss += (v - mean) * (v - mean);
  // Sampling without replacement: the standard error shrinks to 0 as the sample nears N.
  const double se = n > 1 ? std::sqrt(ss / (n - 1) / n * std::max(0.0, 1 - n / N)) : 0.0;
  return (known + N * (mean + kRaceStandardErrors * se)) / total_weight;
}

bool CascadeEvaluator::race(const Program& p, const Program& parent, Evaluation& ev,
                            long long from_new_pairs) {
  const std::vector<std::size_t>& rows = problem_->train_rows;
  const std::vector<double>& w = problem_->train->weights();
  double total = 0, known = 0;
  std::vector<std::size_t> fresh; // positions in rows: p's pair untimed, parent's timed
  for (std::size_t i = 0; i < rows.size(); ++i) {
    total += w[i];
    const Shape& s = problem_->shape(rows[i]);
    const Config c = p.choose(s), pc = parent.choose(s);
    if (c == pc) continue;
    const double tp = cached_time(rows[i], pc);
    if (!std::isfinite(tp)) continue; // the parent's side unknown: nothing to race on
    if (cache_.count(Key{rows[i], c}) == 0)
      fresh.push_back(i);
    else if (const double tc = cached_time(rows[i], c); std::isfinite(tc))
      known += w[i] * std::log(tp / tc);
  }
  const std::size_t batch = std::size_t(options_.race_batch);
  if (fresh.size() <= batch || (long long)fresh.size() < from_new_pairs || !(total > 0))
    return true;
  // A fixed random order (the same on every platform), so a batch is a random sample. Keyed
  // by the shape's place among the training shapes, not by its table row: a split a study
  // derives from another's table (resplit) numbers its rows differently from a fresh load of
  // the same split, and must race in the same order to give the same runs.
  std::vector<std::uint64_t> key(rows.size());
  for (std::size_t i : fresh)
    key[i] = hash_mix(0x7261636500000000ULL, i);
  std::sort(fresh.begin(), fresh.end(), [&](std::size_t a, std::size_t b) {
    return key[a] != key[b] ? key[a] < key[b] : a < b;
  });
  const double bar = std::log(1.0 - options_.probe_margin);
  std::vector<double> sample;
  std::vector<std::size_t> sub;
  std::vector<double> times;
  std::string why;
  for (std::size_t start = 0; start + batch < fresh.size(); start += batch) {
    sub.clear();
    for (std::size_t k = start; k < start + batch; ++k)
      sub.push_back(rows[fresh[k]]);
    if (!time_rows(p, sub, times, ev, why)) {
      ev.stage = Stage::timing_failed;
      ev.reason = why;
      return false;
    }
    for (std::size_t k = 0; k < sub.size(); ++k) {
      const std::size_t i = fresh[start + k];
      const double tp = cached_time(rows[i], parent.choose(problem_->shape(rows[i])));
      sample.push_back(w[i] * std::log(tp / times[k]));
    }
    const double upper = race_upper_bound(known, sample, fresh.size(), total);
    if (upper < bar) {
      ev.stage = Stage::race_reject;
      ev.reason =
          fmt::format("raced: after {} of its {} new training pairs, at most {:.3f} x its "
                      "parent's training score (bar {:.3f})",
                      sample.size(), fresh.size(), std::exp(upper), 1.0 - options_.probe_margin);
      return false;
    }
  }
  return true;
}

} // namespace tv
