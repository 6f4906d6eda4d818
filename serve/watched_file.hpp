#pragma once
/// A run file the dashboard rereads only when it changed (size or modification time), with a
/// size limit: files in a run directory are untrusted input.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

namespace tv {

/// Seconds since `path` was last modified, or nullopt when it does not exist.
std::optional<double> file_age_seconds(const std::filesystem::path& path);

/// One file, watched for changes.
class WatchedFile {
public:
  /// `max_bytes`: a larger file is not read (its content reads as absent, `problem()` says so);
  /// nor is one whose real location is outside `root` (a symlink pointing out), when given.
  WatchedFile(std::filesystem::path path, std::uintmax_t max_bytes,
              std::filesystem::path root = {});
  /// True when the file appeared, disappeared or changed since the last call; then content()
  /// holds what it holds now (nullopt when missing, unreadable or too large).
  bool refresh();
  /// The content read by the last refresh() that saw a change.
  const std::optional<std::string>& content() const { return content_; }
  /// Why the content is absent although the file exists (too large, unreadable), or empty.
  const std::string& problem() const { return problem_; }
  const std::filesystem::path& path() const { return path_; }

private:
  std::filesystem::path path_;
  std::uintmax_t max_bytes_;
  std::filesystem::path root_;
  bool seen_ = false;
  bool exists_ = false;
  std::uintmax_t size_ = 0;
  std::filesystem::file_time_type mtime_{};
  std::optional<std::string> content_;
  std::string problem_;
};

} // namespace tv
