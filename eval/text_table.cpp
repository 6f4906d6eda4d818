#include "eval/text_table.hpp"

#include <algorithm>
#include <cctype>

namespace tv {

namespace {

/// True for the code points a terminal draws two columns wide (East Asian Wide and Fullwidth).
bool wide(char32_t c) {
  return (c >= 0x1100 && c <= 0x115F) || (c >= 0x2E80 && c <= 0x303E) ||
         (c >= 0x3041 && c <= 0x33FF) || (c >= 0x3400 && c <= 0x4DBF) ||
         (c >= 0x4E00 && c <= 0x9FFF) || (c >= 0xA000 && c <= 0xA4CF) ||
         (c >= 0xAC00 && c <= 0xD7A3) || (c >= 0xF900 && c <= 0xFAFF) ||
         (c >= 0xFE30 && c <= 0xFE4F) || (c >= 0xFF00 && c <= 0xFF60) ||
         (c >= 0xFFE0 && c <= 0xFFE6) || (c >= 0x20000 && c <= 0x3FFFD);
}

std::size_t width(const std::string& s) {
  return display_width(s);
}

bool numeric(const std::string& s) {
  return !s.empty() && (std::isdigit((unsigned char)s[0]) || s[0] == '-' || s[0] == '+');
}
} // namespace

std::size_t display_width(std::string_view text) {
  std::size_t w = 0;
  for (std::size_t i = 0; i < text.size();) {
    const auto b = static_cast<unsigned char>(text[i]);
    const std::size_t len = b < 0x80           ? 1
                            : (b >> 5) == 0x6  ? 2
                            : (b >> 4) == 0xE  ? 3
                            : (b >> 3) == 0x1E ? 4
                                               : 1;
    char32_t c = len == 1 ? b : b & (0x7F >> len);
    for (std::size_t k = 1; k < len && i + k < text.size(); ++k)
      c = (c << 6) | (static_cast<unsigned char>(text[i + k]) & 0x3F);
    w += wide(c) ? 2 : 1;
    i += len;
  }
  return w;
}

std::string TextTable::str(bool rule) const {
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
  if (rule) s += std::string(total > 2 ? total - 2 : 0, '-') + "\n";
  for (const auto& r : rows_)
    s += line(r, true);
  return s;
}

} // namespace tv
