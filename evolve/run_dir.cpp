#include "evolve/run_dir.hpp"

#include "ir/error.hpp"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <sstream>
#include <unistd.h>

namespace tv {

void atomic_write(const std::string& path, const std::string& content) {
  const std::string tmp = path + ".tmp";
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) throw InputError(fmt::format("cannot write '{}': {}", tmp, std::strerror(errno)));
  std::size_t done = 0;
  while (done < content.size()) {
    const ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      const int e = errno;
      ::close(fd);
      throw InputError(fmt::format("cannot write '{}': {}", tmp, std::strerror(e)));
    }
    done += std::size_t(n);
  }
  ::fsync(fd);
  ::close(fd);
  if (std::rename(tmp.c_str(), path.c_str()) != 0)
    throw InputError(
        fmt::format("cannot rename '{}' to '{}': {}", tmp, path, std::strerror(errno)));
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(fmt::format("cannot read '{}': {}", path, std::strerror(errno)));
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

EventLog::EventLog(const std::string& path, std::uint64_t offset) : path_(path) {
  if (offset == 0) {
    file_ = std::fopen(path.c_str(), "wb");
  } else {
    std::error_code ec;
    const auto size = std::filesystem::file_size(path, ec);
    if (ec || size < offset)
      throw InputError(fmt::format("'{}' is shorter ({} bytes) than its checkpoint says ({})", path,
                                   ec ? 0 : size, offset));
    std::filesystem::resize_file(path, offset, ec);
    if (ec) throw InputError(fmt::format("cannot truncate '{}': {}", path, ec.message()));
    file_ = std::fopen(path.c_str(), "ab");
  }
  if (!file_) throw InputError(fmt::format("cannot open '{}': {}", path, std::strerror(errno)));
  offset_ = offset;
}

EventLog::~EventLog() {
  if (file_) std::fclose(file_);
}

void EventLog::write(const nlohmann::json& event) {
  const std::string line = event.dump() + "\n";
  if (std::fwrite(line.data(), 1, line.size(), file_) != line.size())
    throw InputError(fmt::format("cannot write '{}': {}", path_, std::strerror(errno)));
  offset_ += line.size();
}

std::uint64_t EventLog::sync() {
  std::fflush(file_);
  ::fsync(::fileno(file_));
  return offset_;
}

} // namespace tv
