#pragma once
/// SEARCH/REPLACE diffs (the AlphaEvolve format) over program text.
///
///   <<<<<<< SEARCH
///   exact lines of the parent
///   =======
///   their replacement
///   >>>>>>> REPLACE
///
/// Blocks are extracted from arbitrary surrounding text (prose, code fences) and applied in
/// order, strictly: each block reports its own outcome so it can be fed back to an LLM.
#include <string>
#include <string_view>
#include <vector>

namespace tv {

/// One SEARCH/REPLACE block as written.
struct DiffBlock {
  std::string search;
  std::string replace;
  friend bool operator==(const DiffBlock&, const DiffBlock&) = default;
};

/// What happened to one block.
enum class BlockOutcome {
  applied,   ///< the search text occurred exactly once and was replaced
  not_found, ///< the search text does not occur
  ambiguous, ///< the search text occurs more than once; nothing was changed
  empty      ///< the search text is empty (or only whitespace)
};

/// Lowercase name of an outcome ("not_found").
std::string_view outcome_name(BlockOutcome o);

/// Per-block report.
struct BlockReport {
  BlockOutcome outcome = BlockOutcome::not_found;
  int matches = 0; ///< occurrences found
};

/// Result of applying blocks: the new text and one report per block.
struct DiffResult {
  std::string text;
  std::vector<BlockReport> blocks;
  /// True when there was at least one block and every block applied.
  bool all_applied() const;
  /// Number of applied blocks.
  int applied_count() const;
};

/// Extracts every well-formed block from `reply` (tolerates CRLF, fences, prose around).
std::vector<DiffBlock> parse_diff(std::string_view reply);
/// Applies blocks in order to `text`; lines are compared with CRLF normalised and trailing
/// spaces ignored. Blocks that do not apply leave the text unchanged.
DiffResult apply_diff(std::string_view text, const std::vector<DiffBlock>& blocks);
/// Writes blocks back in SEARCH/REPLACE form; parse_diff of the result gives `blocks` back for
/// any blocks parse_diff produced (a section that starts or ends with a ``` line is fenced).
std::string format_diff(const std::vector<DiffBlock>& blocks);

} // namespace tv
