#pragma once
/// A fresh temporary directory, removed with everything in it at the end of the scope.
#include <doctest/doctest.h>
#include <filesystem>
#include <fstream>
#include <string>

namespace tv::test {

/// mkdtemp under the system temporary directory.
struct TempDir {
  std::filesystem::path path;
  explicit TempDir(const std::string& prefix = "tilevolve_test") {
    std::string tmpl = (std::filesystem::temp_directory_path() / (prefix + "_XXXXXX")).string();
    REQUIRE(mkdtemp(tmpl.data()) != nullptr);
    path = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  /// Writes `text` (bytes as given) to `name` inside the directory; returns its path.
  std::string write(const std::string& name, const std::string& text) const {
    const std::string p = (path / name).string();
    std::ofstream(p, std::ios::binary | std::ios::trunc) << text;
    return p;
  }
  /// The path of `name` inside the directory.
  std::string at(const std::string& name) const { return (path / name).string(); }
};

} // namespace tv::test
