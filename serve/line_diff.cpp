#include "serve/line_diff.hpp"

#include "ir/lines.hpp"

#include <algorithm>
#include <cstdint>

namespace tv {

std::vector<DiffLine> line_diff(std::string_view before, std::string_view after,
                                std::size_t max_lines) {
  const auto a = split_lines(before), b = split_lines(after);
  std::vector<DiffLine> out;
  if (a.size() > max_lines || b.size() > max_lines) {
    for (auto l : a)
      out.push_back({'-', std::string(l)});
    for (auto l : b)
      out.push_back({'+', std::string(l)});
    return out;
  }
  // lcs[i][j]: longest common subsequence of a[i..] and b[j..].
  const std::size_t n = a.size(), m = b.size();
  std::vector<std::uint32_t> lcs((n + 1) * (m + 1), 0);
  const auto at = [&](std::size_t i, std::size_t j) -> std::uint32_t& {
    return lcs[i * (m + 1) + j];
  };
  for (std::size_t i = n; i-- > 0;)
    for (std::size_t j = m; j-- > 0;)
      at(i, j) = a[i] == b[j] ? at(i + 1, j + 1) + 1 : std::max(at(i + 1, j), at(i, j + 1));
  std::size_t i = 0, j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] == b[j]) {
      out.push_back({' ', std::string(a[i])});
      ++i, ++j;
    } else if (i < n && (j == m || at(i + 1, j) >= at(i, j + 1))) {
      out.push_back({'-', std::string(a[i++])});
    } else {
      out.push_back({'+', std::string(b[j++])});
    }
  }
  return out;
}

std::string diff_text(const std::vector<DiffLine>& diff) {
  std::string s;
  for (const DiffLine& l : diff) {
    s += l.kind;
    s += l.text;
    s += '\n';
  }
  return s;
}

} // namespace tv
