#include "eval/text_table.hpp"

#include <algorithm>
#include <cctype>

namespace tv {

namespace {
/// Display width: counts UTF-8 code points, not bytes.
std::size_t width(const std::string& s) {
  return std::size_t(std::count_if(s.begin(), s.end(), [](char c) { return (c & 0xC0) != 0x80; }));
}
bool numeric(const std::string& s) {
  return !s.empty() && (std::isdigit((unsigned char)s[0]) || s[0] == '-' || s[0] == '+');
}
} // namespace

std::string TextTable::str() const {
  std::vector<std::size_t> w(header_.size(), 0);
  for (std::size_t i = 0; i < header_.size(); ++i)
    w[i] = width(header_[i]);
  for (const auto& r : rows_)
    for (std::size_t i = 0; i < r.size() && i < w.size(); ++i)
      w[i] = std::max(w[i], width(r[i]));
  auto line = [&](const std::vector<std::string>& r, bool align_numbers) {
    std::string out;
    for (std::size_t i = 0; i < w.size(); ++i) {
      const std::string cell = i < r.size() ? r[i] : "";
      const std::string pad(w[i] - width(cell), ' ');
      out += (align_numbers && numeric(cell)) ? pad + cell : cell + pad;
      if (i + 1 < w.size()) out += "  ";
    }
    while (!out.empty() && out.back() == ' ')
      out.pop_back();
    return out + "\n";
  };
  std::string s = line(header_, false);
  std::size_t total = 0;
  for (auto x : w)
    total += x + 2;
  s += std::string(total > 2 ? total - 2 : 0, '-') + "\n";
  for (const auto& r : rows_)
    s += line(r, true);
  return s;
}

} // namespace tv
