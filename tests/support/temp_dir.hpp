#pragma once
/// A fresh temporary directory for one test, removed afterwards (header-only).
#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace tv::test {

/// A directory under the system temp dir, removed (with its files) when the object goes away.
struct ScratchDir {
  std::string path;
  /// Creates "<tmp>/<prefix>_XXXXXX".
  explicit ScratchDir(const std::string& prefix = "tv_test") {
    std::string tmpl = (std::filesystem::temp_directory_path() / (prefix + "_XXXXXX")).string();
    REQUIRE(mkdtemp(tmpl.data()) != nullptr);
    path = tmpl;
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  /// `path + "/" + name`.
  std::string at(const std::string& name) const { return path + "/" + name; }
  /// Writes `text` to `name` and returns its path.
  std::string write(const std::string& name, const std::string& text) const {
    std::ofstream(at(name), std::ios::binary) << text;
    return at(name);
  }
};

} // namespace tv::test
