#pragma once
/// Progress of long computations (a time table of 100k shapes takes tens of seconds). The
/// libraries only report; the CLI installs an observer that draws a bar on a terminal.
#include <cstddef>
#include <functional>
#include <string_view>

namespace tv {

/// Receives "`what`: `done` of `total`" (done == total once at the end). Called from one
/// thread at a time.
using ProgressObserver =
    std::function<void(std::string_view what, std::size_t done, std::size_t total)>;

/// Installs the process-wide observer (an empty function removes it); returns the previous one.
ProgressObserver set_progress_observer(ProgressObserver observer);
/// Reports progress to the observer, if any (cheap when there is none; thread-safe).
void report_progress(std::string_view what, std::size_t done, std::size_t total);

} // namespace tv
