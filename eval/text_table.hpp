#pragma once
/// Aligned plain-text tables for terminal reports.
#include <string>
#include <string_view>
#include <vector>

namespace tv {

/// Terminal columns `text` (UTF-8) takes: East Asian wide and fullwidth characters (CJK
/// ideographs, kana, hangul, fullwidth punctuation) take two, other code points one.
std::size_t display_width(std::string_view text);

/// A table of strings: a header row and data rows, printed with aligned columns.
class TextTable {
public:
  /// Starts a table with these column headers.
  explicit TextTable(std::vector<std::string> header) : header_(std::move(header)) {}
  /// Appends one row (missing cells print empty).
  void add(std::vector<std::string> row) { rows_.push_back(std::move(row)); }
  /// The table as text: header, a rule (unless `rule` is false), rows; numeric-looking cells
  /// right-aligned; columns aligned by display width, so CJK text lines up in a terminal.
  std::string str(bool rule = true) const;

private:
  std::vector<std::string> header_;
  std::vector<std::vector<std::string>> rows_;
};

} // namespace tv
