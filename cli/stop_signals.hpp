#pragma once
/// SIGINT and SIGTERM as a request to stop at the next safe point (a long run's Ctrl-C): while
/// a StopSignals lives, the first of them sets a flag instead of ending the process (and says so
/// on stderr) and gives both signals their default action back, so a second one of either kind
/// ends the process at once. A signal that was
/// ignored when the StopSignals was made (a background job of a non-interactive shell ignores
/// SIGINT) stays ignored.

namespace tv {

/// The handlers, installed for the object's lifetime (one at a time per process).
class StopSignals {
public:
  StopSignals();
  /// Restores the actions the signals had before.
  ~StopSignals();
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;

  /// True once SIGINT or SIGTERM arrived.
  bool requested() const;
  /// The first signal that arrived (SIGINT or SIGTERM), 0 before one did.
  int signal_number() const;
};

/// "SIGINT", "SIGTERM", else "a signal".
const char* stop_signal_name(int sig);

} // namespace tv
