#pragma once
/// The progress bar of a measurement run: pairs done out of queued, per device, with an ETA,
/// redrawn on one stderr line when stderr is a terminal, else written as a line of its own
/// every kLogEvery seconds (a log of a long run shows that it moves).
#include "eval/controller/device_pool.hpp"

#include <string>
#include <vector>

namespace tv {

/// Draws PoolProgress updates; silent until a run has taken half a second.
class ProgressBar {
public:
  /// Seconds between two lines when stderr is no terminal.
  static constexpr double kLogEvery = 30;
  /// `devices` are the device ids shown beside their counts; `enabled` false draws nothing.
  ProgressBar(std::vector<std::string> devices, bool enabled);
  /// Clears the line if anything was drawn.
  ~ProgressBar();
  /// Redraws for `p` (at most ten times a second).
  void update(const PoolProgress& p);
  /// The line for `p`, e.g. "measuring [#####.....] 120/240 pairs  dev 0: 61  1: 59  3.1 s,
  /// ETA 3.0 s" (public for tests).
  std::string line(const PoolProgress& p) const;

private:
  std::vector<std::string> devices_;
  bool enabled_;
  bool terminal_;
  bool drawn_ = false;
  double last_draw_ = -1;
};

} // namespace tv
