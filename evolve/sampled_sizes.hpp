#pragma once
/// Sampled sizes: many programs fit the training shapes alike (within a tenth of a percent on
/// the analytic model), and they part ways on the sizes between the training shapes, where the
/// run's result will be used. On a backend that can time any shape, the run draws sizes inside
/// the training shapes' range and returns, among the programs that fit alike, the one fastest
/// on them. Only training shapes set the range; test shapes are never read.
#include "eval/timing_backend.hpp"
#include "ir/program.hpp"
#include "ir/shape.hpp"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace tv {

/// Programs whose training figure is within this share of the best count as fitting alike.
inline constexpr double kSampledTieShare = 0.001;
/// At most this many programs are compared (the searched best and the next best).
inline constexpr std::size_t kSampledCandidates = 16;
/// Sizes drawn when the backend can time any shape and the option is not given.
inline constexpr int kDefaultSampledSizes = 64;

/// `count` sizes drawn with `seed`: M, N and K each log-uniform between the smallest and the
/// largest of the training shapes, independently (so a decode M meets the widest N); dtype and
/// layout those of a training shape drawn at random; weight 1. Empty when `train` is empty.
std::vector<Shape> sample_sizes(const std::vector<Shape>& train, int count, std::uint64_t seed);

/// Times one batch of pairs (a backend's time(), within the run's kernel-run cap: a pair past
/// the cap comes back unmeasured).
using TimeBatch = std::function<std::vector<Measurement>(const std::vector<TimingRequest>&)>;

/// What the comparison found.
struct SampledChoice {
  int sizes = 0;          ///< sampled sizes that counted (each timed for every program)
  std::size_t chosen = 0; ///< index of the program returned (0: the first, the searched best)
  /// Per program: the geometric mean over the sizes of (the fastest program's time there / its
  /// time), in (0, 1]; 1 = fastest on every size.
  std::vector<double> figures;
  long long kernel_runs = 0; ///< pairs timed
  std::string range;         ///< where the sizes were drawn (sampled_range; set by the caller)
};

/// Times, on each size, every distinct config the programs choose there (one batch per size;
/// a size where a pair went unmeasured is left out, a config that fails counts as 100 times the
/// fastest) and returns the program with the best figure (ties: the earlier). `programs` must
/// not be empty.
SampledChoice choose_on_sampled_sizes(const std::vector<Program>& programs,
                                      const std::vector<Shape>& sizes, const TimeBatch& time);

/// The range the sizes were drawn from, e.g. "M 1..8192, N 1024..28672, K 1024..14336".
std::string sampled_range(const std::vector<Shape>& train);

} // namespace tv
