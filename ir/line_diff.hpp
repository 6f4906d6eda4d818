#pragma once
/// Line diffs (longest common subsequence over lines, compared without trailing whitespace):
/// the changed runs, the diff shown line by line (the dashboard's expert-to-best view), and the
/// SEARCH/REPLACE blocks that turn one text into another (how the edit of a whole rewritten
/// program, or of a merge of several edits, is expressed in the same form as an LLM's diff).
#include "ir/diff.hpp"

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace tv {

/// A changed run of a line diff: old lines [a0, a1) become new lines [b0, b1).
struct LineHunk {
  std::size_t a0 = 0, a1 = 0, b0 = 0, b1 = 0;
};

/// The changed runs that turn lines `a` into lines `b`, in order; the lines between them are
/// a longest common subsequence (lines equal without trailing whitespace). Time and memory
/// O(a.size() * b.size()).
std::vector<LineHunk> line_hunks(const std::vector<std::string_view>& a,
                                 const std::vector<std::string_view>& b);

/// One line of a shown diff: kept (' '), removed from the old text ('-') or added in the new
/// ('+').
struct DiffLine {
  char kind = ' ';
  std::string text;
  friend bool operator==(const DiffLine&, const DiffLine&) = default;
};

/// The lines of `before` and `after` in order, each kept, removed or added, as many kept as
/// possible (line_hunks; in a changed run the removals come first). Texts over `max_lines`
/// lines each give one removal per old line and one addition per new line instead (the table
/// would be too big).
std::vector<DiffLine> line_diff(std::string_view before, std::string_view after,
                                std::size_t max_lines = 2000);

/// A shown diff in unified style: each line prefixed by its kind, joined with newlines.
std::string diff_text(const std::vector<DiffLine>& diff);

/// One block per changed run of lines (a longest-common-subsequence line diff), each widened
/// with unchanged neighbouring lines until its SEARCH text occurs exactly once where it is
/// applied. Applying the blocks to `from` in order with apply_diff gives `to` (lines compared
/// as apply_diff compares them). Empty when the texts have the same lines. A text with no
/// lines cannot anchor an insertion: the block then has an empty SEARCH and never applies.
std::vector<DiffBlock> diff_lines(std::string_view from, std::string_view to);

} // namespace tv
