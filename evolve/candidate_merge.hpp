#pragma once
/// The merge of several children of one parent that each beat it (auto_tune.py's explore
/// mode): their edits, as SEARCH/REPLACE blocks against the parent, applied in turn where
/// they still apply.
#include "ir/diff.hpp"

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tv {

/// A merged program text and where it came from.
struct MergedEdit {
  std::string text;                      ///< the parent with the edits applied
  std::vector<std::size_t> contributors; ///< indices of the children with an applied block
  int applied = 0, skipped = 0;          ///< blocks applied and blocks that no longer applied
  std::vector<DiffBlock> blocks;         ///< the merge as one diff against the parent
};

/// Applies the line-diff blocks of each child (in the order given, best first) to the
/// parent, one block at a time, skipping blocks that no longer apply after the earlier ones.
/// nullopt when fewer than two children contributed (nothing to merge).
std::optional<MergedEdit> merge_edits(std::string_view parent_text,
                                      const std::vector<std::string>& children);

} // namespace tv
