#include "evolve/candidate_merge.hpp"

#include "ir/line_diff.hpp"

namespace tv {

std::optional<MergedEdit> merge_edits(std::string_view parent_text,
                                      const std::vector<std::string>& children) {
  MergedEdit m;
  m.text = std::string(parent_text);
  for (std::size_t i = 0; i < children.size(); ++i) {
    bool contributed = false;
    for (const DiffBlock& b : diff_lines(parent_text, children[i])) {
      DiffResult r = apply_diff(m.text, {b});
      if (r.all_applied()) {
        m.text = std::move(r.text);
        ++m.applied;
        contributed = true;
      } else {
        ++m.skipped;
      }
    }
    if (contributed) m.contributors.push_back(i);
  }
  if (m.contributors.size() < 2) return std::nullopt;
  m.blocks = diff_lines(parent_text, m.text);
  return m;
}

} // namespace tv
