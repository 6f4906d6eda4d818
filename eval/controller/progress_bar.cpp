#include "eval/controller/progress_bar.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <unistd.h>

namespace tv {

ProgressBar::ProgressBar(std::vector<std::string> devices, bool enabled)
    : devices_(std::move(devices)), enabled_(enabled), terminal_(::isatty(::fileno(stderr))) {}

ProgressBar::~ProgressBar() {
  if (drawn_) std::fprintf(stderr, "\r%*s\r", 100, "");
}

std::string ProgressBar::line(const PoolProgress& p) const {
  constexpr int kWidth = 20;
  const double frac = p.total ? double(p.done) / double(p.total) : 1.0;
  const int filled = int(frac * kWidth);
  std::string bar =
      std::string(std::size_t(filled), '#') + std::string(std::size_t(kWidth - filled), '.');
  std::string per;
  for (std::size_t i = 0; i < p.done_per_device.size() && i < devices_.size(); ++i)
    per += fmt::format("{}{}: {}", i ? "  " : "  dev ", devices_[i], p.done_per_device[i]);
  const double rate = p.elapsed_s > 0 ? double(p.done) / p.elapsed_s : 0;
  const std::string eta =
      rate > 0 ? fmt::format("ETA {:.1f} s", double(p.total - p.done) / rate) : "ETA ?";
  return fmt::format("measuring [{}] {}/{} pairs{}  {:.1f} s, {}", bar, p.done, p.total, per,
                     p.elapsed_s, eta);
}

void ProgressBar::update(const PoolProgress& p) {
  if (!enabled_) return;
  if (!terminal_) {
    // A log: one whole line per kLogEvery seconds, none for a run shorter than that.
    if (p.elapsed_s - std::max(last_draw_, 0.0) < kLogEvery || p.done >= p.total) return;
    last_draw_ = p.elapsed_s;
    std::fprintf(stderr, "%s\n", line(p).c_str());
    std::fflush(stderr);
    return;
  }
  if (p.elapsed_s < 0.5) return;
  if (last_draw_ >= 0 && p.elapsed_s - last_draw_ < 0.1 && p.done < p.total) return;
  last_draw_ = p.elapsed_s;
  std::fprintf(stderr, "\r%s   ", line(p).c_str());
  std::fflush(stderr);
  drawn_ = true;
}

} // namespace tv
