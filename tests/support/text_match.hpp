#pragma once
/// Small text checks the end-to-end tests share.
#include <string>

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

} // namespace tv::test
