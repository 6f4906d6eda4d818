#include "models/csv_fields.hpp"

#include "ir/error.hpp"

#include <charconv>
#include <fmt/format.h>

namespace tv {

std::string_view trim_field(std::string_view s) {
  const auto is_space = [](char c) { return c == ' ' || c == '\t' || c == '\r'; };
  while (!s.empty() && is_space(s.front()))
    s.remove_prefix(1);
  while (!s.empty() && is_space(s.back()))
    s.remove_suffix(1);
  return s;
}

std::vector<std::string_view> split_csv_fields(std::string_view line) {
  std::vector<std::string_view> out;
  for (;;) {
    const std::size_t comma = line.find(',');
    out.push_back(trim_field(line.substr(0, comma)));
    if (comma == std::string_view::npos) break;
    line.remove_prefix(comma + 1);
  }
  return out;
}

std::string_view strip_bom(std::string_view text) {
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
  return text;
}

bool LineCursor::next(std::string_view& line) {
  if (rest_.empty()) return false;
  ++line_no_;
  const std::size_t nl = rest_.find('\n');
  line = trim_field(rest_.substr(0, nl));
  rest_.remove_prefix(nl == std::string_view::npos ? rest_.size() : nl + 1);
  return true;
}

std::int64_t parse_int_field(std::string_view field, std::string_view what, std::int64_t lo,
                             std::int64_t hi, std::string_view source, int line) {
  std::int64_t v = 0;
  const char* end = field.data() + field.size();
  const auto [ptr, ec] = std::from_chars(field.data(), end, v);
  if (field.empty() || ec != std::errc() || ptr != end || v < lo || v > hi)
    fail_at_line(source, line,
                 fmt::format("{} must be an integer in [{}, {}], got '{}'", what, lo, hi, field));
  return v;
}

void fail_at_line(std::string_view source, int line, const std::string& what) {
  throw InputError(fmt::format("{}:{}: {}", source, line, what));
}

} // namespace tv
