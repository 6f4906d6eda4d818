#include "serve/named_directories.hpp"

#include "ir/error.hpp"
#include "serve/path_safety.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <system_error>

namespace tv {

namespace fs = std::filesystem;

fs::path canonical_runs_dir(const fs::path& root) {
  std::error_code ec;
  fs::path out = fs::canonical(root, ec);
  if (ec || !fs::is_directory(out, ec))
    throw InputError(
        fmt::format("runs directory '{}' does not exist or is not a directory", root.string()));
  return out;
}

std::string root_directory_name(const fs::path& root, std::string_view fallback) {
  const std::string n = root.filename().string();
  return component_problem(n).empty() ? n : std::string(fallback);
}

std::vector<std::string> named_directories(const fs::path& root, const DirectoryTest& holds,
                                           std::string_view fallback) {
  std::vector<std::string> out;
  if (holds(root)) {
    out.push_back(root_directory_name(root, fallback));
    return out;
  }
  std::error_code ec;
  for (fs::directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (!component_problem(name).empty()) continue;
    const ResolvedPath r = resolve_under(root, name, true);
    if (r.ok() && holds(r.path)) out.push_back(name);
  }
  std::sort(out.begin(), out.end());
  return out;
}

fs::path named_directory(const fs::path& root, const std::string& name, const DirectoryTest& holds,
                         std::string_view fallback) {
  if (!component_problem(name).empty()) return {};
  if (holds(root)) return name == root_directory_name(root, fallback) ? root : fs::path();
  const ResolvedPath r = resolve_under(root, name, true);
  return r.ok() && holds(r.path) ? r.path : fs::path();
}

} // namespace tv
