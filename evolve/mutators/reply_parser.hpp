#pragma once
/// What an LLM's reply proposes, and the child text it makes from the parent. Replies are
/// untrusted text: they are only scanned, never executed.
///
///   - `<think>` / `<thinking>` sections are dropped first (a reasoning model's drafts must
///     not count as its answer);
///   - SEARCH/REPLACE blocks anywhere in the rest (fenced or chatty) are the edit;
///   - without blocks, a whole rewritten program (`def choose(M, N, K):` and its indented
///     body, fenced or not; the last one when there are several) replaces the parent.
#include "ir/diff.hpp"

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace tv {

/// The form of a reply's proposal.
enum class ReplyKind {
  diff,    ///< one or more SEARCH/REPLACE blocks
  program, ///< a whole program
  none     ///< neither (prose only, or only thinking)
};

/// Lowercase name ("diff", "program", "none").
std::string_view reply_kind_name(ReplyKind k);

/// A reply taken apart.
struct ParsedReply {
  ReplyKind kind = ReplyKind::none;
  std::vector<DiffBlock> blocks;  ///< kind == diff
  std::string program_text;       ///< kind == program: from `def choose(` to the end of its body
  std::size_t thinking_chars = 0; ///< characters of thinking sections that were dropped
};

/// `reply` without its thinking sections: `<think>...</think>` (also `<thinking>`, any case);
/// an unclosed opening tag runs to the end, and text before a closing tag with no opening one
/// is thinking too (chat templates often put the opening tag in the prompt). `removed`
/// receives the number of characters dropped.
std::string strip_thinking(std::string_view reply, std::size_t* removed = nullptr);
/// Takes a reply apart (see the file comment); never throws.
ParsedReply parse_reply(std::string_view reply);

/// The child a reply makes from `parent_text`, or why it makes none.
struct ReplyEdit {
  ParsedReply parsed;
  DiffResult applied;     ///< block outcomes (kind == diff)
  std::string child_text; ///< the edited text; empty when `failure` is set
  std::string failure;    ///< e.g. "block 2 (SEARCH `if M <= 99:`): not_found"; empty on success
  bool ok() const { return failure.empty(); }
};

/// Applies a reply to the parent: every block must apply (a partly applied diff is refused
/// and each block's outcome reported); a whole program is taken as it is. Never throws.
ReplyEdit edit_from_reply(std::string_view reply, std::string_view parent_text);
/// One line per block outcome for feedback, e.g. "block 1: applied; block 2 (SEARCH `if M <=
/// 99:`): not_found" (SEARCH texts shortened to their first line, at most 60 characters).
std::string describe_block_outcomes(const std::vector<DiffBlock>& blocks, const DiffResult& r);

} // namespace tv
