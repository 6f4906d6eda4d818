#include "cli/progress_bar.hpp"

#include "models/progress.hpp"

#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <unistd.h>

namespace tv {

namespace {

using Clock = std::chrono::steady_clock;

/// Draws one bar at a time; shows it only once a computation has run for 0.3 s.
struct BarState {
  std::string what;
  Clock::time_point start;
  bool shown = false;
  int last_percent = -1;
};

void draw(BarState& st, std::string_view what, std::size_t done, std::size_t total) {
  const auto now = Clock::now();
  if (what != st.what) {
    st = BarState{std::string(what), now, false, -1};
  }
  const bool finished = done >= total;
  if (!st.shown && (finished || now - st.start < std::chrono::milliseconds(300))) {
    if (finished) st.what.clear();
    return;
  }
  const int percent = total == 0 ? 100 : int(100.0 * double(done) / double(total));
  if (percent == st.last_percent && !finished) return;
  st.shown = true;
  st.last_percent = percent;
  constexpr int kWidth = 30;
  const int filled = percent * kWidth / 100;
  std::fprintf(stderr, "\r%.*s [%s%s] %3d%% (%zu/%zu)", int(st.what.size()), st.what.data(),
               std::string(std::size_t(filled), '#').c_str(),
               std::string(std::size_t(kWidth - filled), '.').c_str(), percent, done, total);
  if (finished) {
    const double secs = std::chrono::duration<double>(now - st.start).count();
    std::fprintf(stderr, " %.1fs\n", secs);
    st.what.clear();
  }
  std::fflush(stderr);
}

} // namespace

TerminalProgressBar::TerminalProgressBar() {
  if (!::isatty(::fileno(stderr))) return;
  active_ = true;
  auto st = std::make_shared<BarState>();
  set_progress_observer([st](std::string_view what, std::size_t done, std::size_t total) {
    draw(*st, what, done, total);
  });
}

TerminalProgressBar::~TerminalProgressBar() {
  if (active_) set_progress_observer({});
}

void TerminalProgressBar::silence() {
  set_progress_observer({});
}

} // namespace tv
