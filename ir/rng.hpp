#pragma once
/// A deterministic random source (xoshiro256**) with its own, platform-independent helpers.
///
/// std::uniform_int_distribution and std::shuffle differ between standard libraries; every
/// stochastic part of tilevolve uses this class instead, so a seed names one run everywhere.
#include <cstdint>
#include <utility>
#include <vector>

namespace tv {

/// Seeded pseudo-random generator; the same seed gives the same stream on every platform.
class Rng {
public:
  /// Seeds the state from `seed` through splitmix64.
  explicit Rng(std::uint64_t seed = 0);
  /// Next raw 64-bit value.
  std::uint64_t next();
  /// Uniform integer in [lo, hi] (inclusive), unbiased; requires lo <= hi.
  std::int64_t uniform_int(std::int64_t lo, std::int64_t hi);
  /// Uniform index in [0, n); requires n > 0.
  std::size_t index(std::size_t n) { return std::size_t(uniform_int(0, std::int64_t(n) - 1)); }
  /// Uniform double in [0, 1).
  double uniform01();
  /// True with probability p.
  bool chance(double p) { return uniform01() < p; }
  /// A derived, independent generator for sub-stream `stream` (for per-worker determinism).
  Rng fork(std::uint64_t stream) const;
  /// Fisher-Yates shuffle with this generator.
  template <class T> void shuffle(std::vector<T>& v) {
    for (std::size_t i = v.size(); i > 1; --i)
      std::swap(v[i - 1], v[index(i)]);
  }
  /// A uniformly chosen element; requires a non-empty vector.
  template <class T> const T& pick(const std::vector<T>& v) { return v[index(v.size())]; }

  /// The full generator state (for checkpoints).
  std::vector<std::uint64_t> state() const { return {s_[0], s_[1], s_[2], s_[3]}; }
  /// Restores a state produced by state(); returns false if it has the wrong size.
  bool set_state(const std::vector<std::uint64_t>& st);

private:
  std::uint64_t s_[4];
};

} // namespace tv
