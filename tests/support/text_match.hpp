#pragma once
/// Small text checks the end-to-end tests share.
#include <string>
#include <vector>

namespace tv::test {

/// True when `part` occurs in `text`.
inline bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

/// `text` with each run of spaces and line breaks as one space (help text is wrapped).
inline std::string squeezed(const std::string& text) {
  std::string out;
  for (const char c : text)
    if (c == ' ' || c == '\n') {
      if (out.empty() || out.back() != ' ') out += ' ';
    } else {
      out += c;
    }
  return out;
}

/// The commands a script's `--list` prints (scripts/protocols.py, scripts/ab_panel.py): each
/// line that starts with two spaces and "tilevolve ", without the two spaces.
inline std::vector<std::string> listed_commands(const std::string& listing) {
  std::vector<std::string> out;
  for (std::size_t pos = 0; (pos = listing.find("\n  tilevolve ", pos)) != std::string::npos;) {
    pos += 3;
    out.push_back(listing.substr(pos, listing.find('\n', pos) - pos));
  }
  return out;
}

/// `text` with its first `from` (if any) replaced by `to`.
inline std::string replaced_first(std::string text, const std::string& from,
                                  const std::string& to) {
  if (const std::size_t at = text.find(from); at != std::string::npos)
    text.replace(at, from.size(), to);
  return text;
}

} // namespace tv::test
