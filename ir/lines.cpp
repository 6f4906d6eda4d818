#include "ir/lines.hpp"

namespace tv {

std::vector<std::string_view> split_lines(std::string_view s) {
  std::vector<std::string_view> out;
  std::size_t start = 0;
  while (start < s.size()) {
    std::size_t end = s.find('\n', start);
    if (end == std::string_view::npos) end = s.size();
    std::string_view line = s.substr(start, end - start);
    while (!line.empty() && line.back() == '\r')
      line.remove_suffix(1);
    out.push_back(line);
    start = end + 1;
  }
  return out;
}

std::string_view rtrim(std::string_view s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r' ||
                        s.back() == '\f' || s.back() == '\v'))
    s.remove_suffix(1);
  return s;
}

} // namespace tv
