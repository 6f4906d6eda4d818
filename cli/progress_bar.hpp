#pragma once
/// A progress bar on the terminal for the libraries' long computations (models/progress.hpp).

namespace tv {

/// While it lives, draws "what [#####.....] 45% (45000/100000)" on stderr for computations that
/// report progress and run longer than a moment; does nothing unless stderr is a terminal.
class TerminalProgressBar {
public:
  TerminalProgressBar();
  ~TerminalProgressBar();
  TerminalProgressBar(const TerminalProgressBar&) = delete;
  TerminalProgressBar& operator=(const TerminalProgressBar&) = delete;

  /// Stops drawing (e.g. for --quiet).
  static void silence();

private:
  bool active_ = false;
};

} // namespace tv
