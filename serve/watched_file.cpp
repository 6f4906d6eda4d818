#include "serve/watched_file.hpp"

#include "serve/path_safety.hpp"

#include <chrono>
#include <fmt/format.h>
#include <fstream>
#include <iterator>
#include <system_error>

namespace tv {

WatchedFile::WatchedFile(std::filesystem::path path, std::uintmax_t max_bytes,
                         std::filesystem::path root)
    : path_(std::move(path)), max_bytes_(max_bytes), root_(std::move(root)) {}

bool WatchedFile::refresh() {
  namespace fs = std::filesystem;
  std::error_code ec;
  const bool exists = fs::is_regular_file(path_, ec);
  std::uintmax_t size = 0;
  fs::file_time_type mtime{};
  if (exists) {
    size = fs::file_size(path_, ec);
    if (!ec) mtime = fs::last_write_time(path_, ec);
  }
  if (seen_ && exists == exists_ && size == size_ && mtime == mtime_) return false;
  seen_ = true;
  exists_ = exists;
  size_ = size;
  mtime_ = mtime;
  content_.reset();
  problem_.clear();
  if (!exists) return true;
  if (!root_.empty() && leaves_root(root_, path_)) {
    problem_ =
        fmt::format("{} points outside the run directory: not read", path_.filename().string());
    return true;
  }
  if (size > max_bytes_) {
    problem_ = fmt::format("{} is {} bytes, more than the {} this dashboard reads",
                           path_.filename().string(), size, max_bytes_);
    return true;
  }
  std::ifstream in(path_, std::ios::binary);
  if (!in) {
    problem_ = fmt::format("{} cannot be read", path_.filename().string());
    return true;
  }
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (text.size() > max_bytes_) text.resize(max_bytes_); // grew while being read
  content_ = std::move(text);
  return true;
}

std::optional<double> file_age_seconds(const std::filesystem::path& path) {
  std::error_code ec;
  const auto t = std::filesystem::last_write_time(path, ec);
  if (ec) return std::nullopt;
  return std::chrono::duration<double>(std::filesystem::file_time_type::clock::now() - t).count();
}

} // namespace tv
