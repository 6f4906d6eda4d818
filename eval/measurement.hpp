#pragma once
/// The result of timing one (shape, config) pair: a status and, when ok, a time.
#include <limits>
#include <string>
#include <string_view>

namespace tv {

/// Outcome of one timing; failures are data, never exceptions.
enum class MeasureStatus {
  ok,            ///< timed; `seconds` is valid
  unlaunchable,  ///< the config cannot launch on the device
  compile_error, ///< the kernel did not compile
  wrong_result,  ///< the output did not match the reference: no time is ever recorded
  timeout,       ///< the run exceeded its time limit
  unmeasured,    ///< the backend has no time for this pair (e.g. not in a recorded table)
  error,         ///< the measurement itself failed (a worker's error, or no worker was left)
  crash          ///< a poison pair: it took its worker down each time it was sent (never resent)
};

/// Lowercase name ("wrong_result").
std::string_view status_name(MeasureStatus s);
/// Parses a name produced by status_name; returns false when unknown.
bool parse_status(std::string_view text, MeasureStatus& out);

/// One timing result. `seconds` is +infinity unless status is ok.
struct Measurement {
  MeasureStatus status = MeasureStatus::unmeasured;
  double seconds = std::numeric_limits<double>::infinity();
  std::string detail; ///< optional reason, e.g. the compiler's message
  bool ok() const { return status == MeasureStatus::ok; }
};

} // namespace tv
