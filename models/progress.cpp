#include "models/progress.hpp"

#include <atomic>
#include <mutex>

namespace tv {

namespace {

std::mutex& observer_mutex() {
  static std::mutex m;
  return m;
}
ProgressObserver& observer() {
  static ProgressObserver o;
  return o;
}
std::atomic<bool> g_have_observer{false};

} // namespace

ProgressObserver set_progress_observer(ProgressObserver o) {
  std::lock_guard<std::mutex> lock(observer_mutex());
  ProgressObserver old = std::move(observer());
  observer() = std::move(o);
  g_have_observer.store(bool(observer()), std::memory_order_release);
  return old;
}

void report_progress(std::string_view what, std::size_t done, std::size_t total) {
  if (!g_have_observer.load(std::memory_order_acquire)) return;
  std::lock_guard<std::mutex> lock(observer_mutex());
  if (observer()) observer()(what, done, total);
}

} // namespace tv
