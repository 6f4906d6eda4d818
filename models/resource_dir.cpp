#include "models/resource_dir.hpp"

#include <filesystem>
#include <system_error>

namespace tv {

namespace {

std::string find_resource_dir() {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const fs::path share = exe.parent_path().parent_path() / "share" / "tilevolve";
    if (fs::is_directory(share / "data", ec)) return share.string();
  }
  return TILEVOLVE_SOURCE_DIR;
}

} // namespace

std::string resource_dir() {
  static const std::string dir = find_resource_dir();
  return dir;
}

} // namespace tv
