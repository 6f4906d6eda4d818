#pragma once
/// Random corruptions of valid input, for "never crash" tests (header-only, deterministic).
#include "ir/rng.hpp"

#include <string>

namespace tv::test {

/// `text` with 1 to 4 random single-character edits (delete, insert or replace with a
/// character of `alphabet`).
inline std::string mutate_text(std::string text, const std::string& alphabet, Rng& rng) {
  for (int e = int(rng.uniform_int(1, 4)); e > 0; --e) {
    const std::size_t at = rng.index(text.size() + 1);
    const char c = alphabet[rng.index(alphabet.size())];
    switch (rng.uniform_int(0, 2)) {
    case 0:
      text.insert(at, 1, c);
      break;
    case 1:
      if (at < text.size()) text.erase(at, 1);
      break;
    default:
      if (at < text.size()) text[at] = c;
    }
  }
  return text;
}

} // namespace tv::test
