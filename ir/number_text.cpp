#include "ir/number_text.hpp"

namespace tv {

std::string thousands(long long v) {
  // Built front to back: GCC 12 raises a false -Wrestrict on string inserts.
  const std::string digits = std::to_string(v < 0 ? -(unsigned long long)v : (unsigned long long)v);
  std::string out = v < 0 ? "-" : "";
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

} // namespace tv
