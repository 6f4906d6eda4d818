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
/// Every candidate that is equally nearest to `word` and close enough to be a typo of it (the
/// same nearness as nearest_word), in the candidates' order: "h300" -> {"h100", "h200"}; empty
/// when none is near.
std::vector<std::string> nearest_words(const std::string& word,
                                       const std::vector<std::string>& candidates);
/// " (did you mean h100 or h200?)" for nearest_words' answer, "" when it is empty.
std::string did_you_mean(const std::vector<std::string>& words);

} // namespace tv
