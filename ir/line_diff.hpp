#pragma once
/// SEARCH/REPLACE blocks that turn one text into another, computed from a line diff: how the
/// edit of a whole rewritten program, or of a merge of several edits, is expressed in the
/// same form as an LLM's diff.
#include "ir/diff.hpp"

#include <string_view>
#include <vector>

namespace tv {

/// One block per changed run of lines (a longest-common-subsequence line diff), each widened
/// with unchanged neighbouring lines until its SEARCH text occurs exactly once where it is
/// applied. Applying the blocks to `from` in order with apply_diff gives `to` (lines compared
/// as apply_diff compares them). Empty when the texts have the same lines. A text with no
/// lines cannot anchor an insertion: the block then has an empty SEARCH and never applies.
std::vector<DiffBlock> diff_lines(std::string_view from, std::string_view to);

} // namespace tv
