#pragma once
/// Lines of a text as the diff engine sees them: one splitting rule for every reader of
/// programs, replies and diffs.
#include <string_view>
#include <vector>

namespace tv {

/// The lines of `s`, split on '\n', each without its trailing '\r's; a final '\n' does not
/// start another line ("a\nb" and "a\nb\n" are both two lines, "" is none).
std::vector<std::string_view> split_lines(std::string_view s);
/// `s` without trailing whitespace (space, tab, '\r', '\f', '\v'): lines that differ only
/// there are the same line to the diff engine.
std::string_view rtrim(std::string_view s);

} // namespace tv
