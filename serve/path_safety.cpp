#include "serve/path_safety.hpp"

#include <cctype>
#include <system_error>

namespace tv {

namespace {

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

/// True when `p` is `root` or lies below it (both canonical).
bool inside(const std::filesystem::path& root, const std::filesystem::path& p) {
  auto r = root.begin(), q = p.begin();
  for (; r != root.end(); ++r, ++q) {
    if (q == p.end() || *r != *q) return false;
  }
  return true;
}

} // namespace

bool has_encoded_separator(std::string_view t) {
  for (std::size_t i = 0; i + 2 < t.size(); ++i) {
    if (t[i] != '%') continue;
    const int hi = hex_digit(t[i + 1]), lo = hex_digit(t[i + 2]);
    if (hi < 0 || lo < 0) continue;
    const int byte = hi * 16 + lo;
    if (byte == '/' || byte == '\\' || byte == '.' || byte < 0x20 || byte == 0x7f) return true;
  }
  return false;
}

std::string component_problem(std::string_view c) {
  if (c.empty()) return "empty path component";
  if (c.front() == '.') return "path component starting with '.'";
  for (const char ch : c) {
    const auto u = static_cast<unsigned char>(ch);
    if (ch == '/' || ch == '\\') return "slash or backslash inside a path component";
    if (u < 0x20 || u == 0x7f) return "control character in the path";
  }
  return "";
}

bool leaves_root(const std::filesystem::path& root, const std::filesystem::path& path) {
  std::error_code ec;
  const auto real = std::filesystem::canonical(path, ec);
  return !ec && !inside(root, real);
}

ResolvedPath resolve_under(const std::filesystem::path& root, std::string_view relative,
                           bool want_directory) {
  namespace fs = std::filesystem;
  ResolvedPath r;
  if (!relative.empty() && relative.front() == '/') {
    r.status = 403;
    r.why = "absolute paths are refused";
    return r;
  }
  fs::path p = root;
  std::size_t start = 0;
  while (true) {
    const std::size_t end = relative.find('/', start);
    const std::string_view part = relative.substr(
        start, end == std::string_view::npos ? std::string_view::npos : end - start);
    if (const std::string why = component_problem(part); !why.empty()) {
      r.status = 403;
      r.why = why;
      return r;
    }
    p /= std::string(part);
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  std::error_code ec;
  const fs::path real = fs::canonical(p, ec);
  if (ec) {
    r.why = "no such file";
    return r;
  }
  if (!inside(root, real)) {
    r.status = 403;
    r.why = "the path leaves the runs directory";
    return r;
  }
  const bool kind_ok = want_directory ? fs::is_directory(real, ec) : fs::is_regular_file(real, ec);
  if (!kind_ok) {
    r.why = want_directory ? "not a directory" : "not a regular file";
    return r;
  }
  r.status = 200;
  r.path = real;
  return r;
}

} // namespace tv
