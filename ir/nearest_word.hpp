#pragma once
/// The nearest of some valid words to a mistyped one, by edit distance (a swap of two
/// neighbouring letters counts as one edit).
#include <string>
#include <vector>

namespace tv {

/// Edits (insert, delete, substitute, swap neighbours) that turn `a` into `b`.
int edit_distance(const std::string& a, const std::string& b);
/// The candidate nearest to `word` when it is close enough to be a typo of it (at most
/// max(1, length / 3) edits, or `word` is a prefix of at least 4 characters, and nearer than
/// any other), else "".
std::string nearest_word(const std::string& word, const std::vector<std::string>& candidates);

} // namespace tv
