#include "cli/stop_signals.hpp"

#include <csignal>
#include <unistd.h>

namespace tv {

namespace {

volatile std::sig_atomic_t g_signal = 0;
struct sigaction g_old_int, g_old_term;

/// Gives `sig` its default action back, unless it was ignored before (then it stays ignored).
void default_action(int sig, const struct sigaction& old) {
  if (old.sa_handler == SIG_IGN) return;
  struct sigaction sa {};
  sa.sa_handler = SIG_DFL;
  sigemptyset(&sa.sa_mask);
  sigaction(sig, &sa, nullptr); // async-signal-safe
}

extern "C" void on_stop_signal(int sig) {
  if (g_signal == 0) g_signal = sig;
  // A second signal of either kind ends the process at once: SA_RESETHAND gave this one its
  // default action back, the other one needs it too (SIGINT then SIGTERM, or the reverse).
  default_action(SIGINT, g_old_int);
  default_action(SIGTERM, g_old_term);
  // Said at once (a measured batch can take minutes); write() is async-signal-safe.
  static const char said[] =
      "\ntilevolve: stopping at the end of the search's current batch, or at the end of the run "
      "if the search is over (a second SIGINT or SIGTERM ends the process at once)\n";
  const ssize_t ignored = ::write(2, said, sizeof said - 1);
  (void)ignored;
}

/// Takes `sig` unless it is ignored; `old` keeps what it had.
void take(int sig, struct sigaction* old) {
  sigaction(sig, nullptr, old);
  if (old->sa_handler == SIG_IGN) return;
  struct sigaction sa {};
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  // SA_RESETHAND: the handler runs once, then the default action is back (a second Ctrl-C
  // ends the process; the handler gives the other signal its default too). SA_RESTART: a system
  // call the signal interrupts (a worker's pipe, an LLM request's socket) goes on rather than
  // failing with EINTR.
  sa.sa_flags = SA_RESETHAND | SA_RESTART;
  sigaction(sig, &sa, nullptr);
}

} // namespace

StopSignals::StopSignals() {
  g_signal = 0;
  take(SIGINT, &g_old_int);
  take(SIGTERM, &g_old_term);
}

StopSignals::~StopSignals() {
  sigaction(SIGINT, &g_old_int, nullptr);
  sigaction(SIGTERM, &g_old_term, nullptr);
}

bool StopSignals::requested() const {
  return g_signal != 0;
}

int StopSignals::signal_number() const {
  return int(g_signal);
}

const char* stop_signal_name(int sig) {
  switch (sig) {
  case SIGINT:
    return "SIGINT";
  case SIGTERM:
    return "SIGTERM";
  default:
    return "a signal";
  }
}

} // namespace tv
