#pragma once
/// A line diff of two texts (longest common subsequence), for showing how the best program
/// differs from the expert.
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace tv {

/// One line of a diff: kept (' '), removed from the old text ('-') or added in the new ('+').
struct DiffLine {
  char kind = ' ';
  std::string text;
  friend bool operator==(const DiffLine&, const DiffLine&) = default;
};

/// The lines of `before` and `after` in order, each kept, removed or added, with as many kept
/// as possible (a longest common subsequence). Texts over `max_lines` lines each give one
/// removal per old line and one addition per new line instead (the table would be too big).
std::vector<DiffLine> line_diff(std::string_view before, std::string_view after,
                                std::size_t max_lines = 2000);

/// The diff in unified style: each line prefixed by its kind, joined with newlines.
std::string diff_text(const std::vector<DiffLine>& diff);

} // namespace tv
