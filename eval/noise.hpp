#pragma once
/// The run-to-run noise of a timing backend: one kernel timed several times, independently.
/// A measured evolution counts a child as better than its parent only beyond this spread.
#include "eval/problem.hpp"
#include "eval/timing_backend.hpp"

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace tv {

/// What timing one (shape, config) pair `reps` times gave.
struct NoiseEstimate {
  bool valid = false;
  std::string problem; ///< why not valid (a failed measurement)
  std::string shape;   ///< label of the shape
  Config config;
  std::vector<double> times; ///< one per sample, samples 0 .. reps-1
  double median = 0;
  double spread = 0; ///< (slowest - fastest) / median: the threshold a gain must beat

  /// All fields as JSON.
  nlohmann::json to_json() const;
  /// One line: "5 runs of 128x128x64 w4 s3 g8 on llama3-8b:o:M128: median 31.2 us, spread 1.8%".
  std::string text() const;
};

/// Times `config` on `shape` as samples 0 .. reps-1 (each an independent measurement on a
/// noisy backend; a replay of such a run reads the same samples back).
NoiseEstimate estimate_noise(TimingBackend& backend, const Shape& shape, const Config& config,
                             int reps);
/// The training row whose expert time is the median of the training rows (a typical
/// kernel; the earlier row on ties).
std::size_t noise_row(const Problem& p);

} // namespace tv
