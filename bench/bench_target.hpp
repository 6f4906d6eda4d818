#pragma once
/// A benchmark's target and its verdict: each benchmark prints one line per target, "met" or
/// "MISSED", and exits with status 1 when any target was missed (CI does not run the
/// benchmarks; a person does, and a missed target must not pass unnoticed).
#include <chrono>
#include <cstdio>
#include <fmt/format.h>
#include <string>
#include <vector>

namespace tv::bench {

/// One figure against its bound.
struct Target {
  std::string what;  ///< e.g. "median wall time"
  double value = 0;  ///< what was measured
  double bound = 0;  ///< the target
  bool below = true; ///< met when value < bound (else when value >= bound)
  std::string unit;  ///< e.g. "s", "MB", "M/s"
};

/// True when `t`'s value is on the right side of its bound (NaN never is).
inline bool met(const Target& t) {
  return t.below ? t.value < t.bound : t.value >= t.bound;
}

/// "target: median wall time < 2 s: met (0.71 s)" or "... MISSED (4.65 s)".
inline std::string verdict_line(const Target& t) {
  return fmt::format("target: {} {} {:g} {}: {} ({:.4g} {})", t.what, t.below ? "<" : ">=", t.bound,
                     t.unit, met(t) ? "met" : "MISSED", t.value, t.unit);
}

/// The exit status for `targets`: 0 when every one was met, else 1.
inline int exit_status(const std::vector<Target>& targets) {
  for (const auto& t : targets)
    if (!met(t)) return 1;
  return 0;
}

/// A stopwatch of consecutive laps: each lap() is the seconds since the last one (or since
/// construction).
class Laps {
public:
  double lap() {
    const auto now = std::chrono::steady_clock::now();
    const double s = std::chrono::duration<double>(now - last_).count();
    last_ = now;
    return s;
  }

private:
  std::chrono::steady_clock::time_point last_ = std::chrono::steady_clock::now();
};

/// Prints each target's verdict line (prefixed by `bench`) and returns exit_status.
inline int report(const std::string& bench, const std::vector<Target>& targets) {
  for (const auto& t : targets)
    fmt::print("{}: {}\n", bench, verdict_line(t));
  std::fflush(stdout);
  return exit_status(targets);
}

} // namespace tv::bench
