#pragma once
/// Sums of token counts. The counts come from the servers' usage fields, which are untrusted:
/// a broken or hostile server may report 9223372036854775807 tokens. Sums saturate at the
/// largest count instead of overflowing, so a total never shrinks and --max-tokens still
/// stops the run.
#include <limits>

namespace tv {

/// The largest token count (sums stop there).
inline constexpr long long kMaxTokenCount = std::numeric_limits<long long>::max();

/// a + b for token counts, saturated at kMaxTokenCount; a negative count counts as 0.
inline long long add_tokens(long long a, long long b) {
  if (a < 0) a = 0;
  if (b < 0) b = 0;
  return b > kMaxTokenCount - a ? kMaxTokenCount : a + b;
}

} // namespace tv
