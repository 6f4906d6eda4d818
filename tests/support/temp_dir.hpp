#pragma once
/// A fresh temporary directory for one test, removed afterwards (header-only; no doctest, so
/// that the fuzz targets can hold one as a static object, removed when the process exits).
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <stdexcept>
#include <string>

namespace tv::test {

/// A directory under the system temp dir, removed (with its files) when the object goes away.
struct ScratchDir {
  std::string path;
  /// Creates "<tmp>/<prefix>_XXXXXX" (mkdtemp); throws std::runtime_error when it cannot.
  explicit ScratchDir(const std::string& prefix = "tv_test") {
    std::string tmpl = (std::filesystem::temp_directory_path() / (prefix + "_XXXXXX")).string();
    if (mkdtemp(tmpl.data()) == nullptr)
      throw std::runtime_error("cannot make the directory " + tmpl + ": " + std::strerror(errno));
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

/// Points TMPDIR at `dir` while the object lives, for the processes started meanwhile (Chromium
/// leaves its own temp dirs behind when it is killed); then puts the old value back.
struct TmpdirOverride {
  std::optional<std::string> old;
  /// Sets TMPDIR to `dir` (which must exist).
  explicit TmpdirOverride(const std::string& dir) {
    if (const char* v = std::getenv("TMPDIR")) old = v;
    ::setenv("TMPDIR", dir.c_str(), 1);
  }
  ~TmpdirOverride() {
    if (old)
      ::setenv("TMPDIR", old->c_str(), 1);
    else
      ::unsetenv("TMPDIR");
  }
  TmpdirOverride(const TmpdirOverride&) = delete;
  TmpdirOverride& operator=(const TmpdirOverride&) = delete;
};

} // namespace tv::test
