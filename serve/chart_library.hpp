#pragma once
/// Where the charting library (Chart.js, Debian's libjs-chart.js) is installed: the server
/// serves it from the installed file, so nothing is fetched from the internet.
#include <filesystem>
#include <optional>
#include <vector>

namespace tv {

/// The places looked at, in order: $TILEVOLVE_CHARTJS when set, then Debian's
/// /usr/share/javascript/chart.js/chart.min.js and chart.js.
std::vector<std::filesystem::path> chart_library_candidates();
/// The first candidate that is a regular file, or nullopt.
std::optional<std::filesystem::path> find_chart_library();

} // namespace tv
