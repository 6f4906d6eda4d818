#include "serve/chart_library.hpp"

#include <cstdlib>
#include <system_error>

namespace tv {

std::vector<std::filesystem::path> chart_library_candidates() {
  std::vector<std::filesystem::path> out;
  if (const char* env = std::getenv("TILEVOLVE_CHARTJS"); env && *env) out.emplace_back(env);
  out.emplace_back("/usr/share/javascript/chart.js/chart.min.js");
  out.emplace_back("/usr/share/javascript/chart.js/chart.js");
  return out;
}

std::optional<std::filesystem::path> find_chart_library() {
  for (const auto& p : chart_library_candidates()) {
    std::error_code ec;
    if (std::filesystem::is_regular_file(p, ec)) return p;
  }
  return std::nullopt;
}

} // namespace tv
