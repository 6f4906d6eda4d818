#include "ir/exporters/nearest_key.hpp"

#include "ir/condition.hpp"

#include <algorithm>
#include <limits>

namespace tv {

std::vector<KeyRange> nearest_key_ranges(const std::vector<std::int64_t>& keys) {
  std::vector<KeyRange> r;
  r.reserve(keys.size());
  for (std::size_t i = 0; i < keys.size(); ++i)
    r.push_back(KeyRange{keys[i], 0, 0, i});
  std::sort(r.begin(), r.end(), [](const KeyRange& a, const KeyRange& b) { return a.key < b.key; });
  for (std::size_t i = 0; i < r.size(); ++i) {
    r[i].lo = i == 0 ? std::numeric_limits<std::int64_t>::min() : r[i - 1].hi + 1;
    if (i + 1 == r.size()) {
      r[i].hi = kDimMax;
      break;
    }
    // Between neighbours a < b the lookup switches at the midpoint; M == (a + b) / 2 (only when
    // a + b is even) is a tie that goes to the key earlier in the file.
    const std::int64_t a = r[i].key, b = r[i + 1].key, sum = a + b;
    if (sum % 2 != 0)
      r[i].hi = sum / 2;
    else
      r[i].hi = r[i].position < r[i + 1].position ? sum / 2 : sum / 2 - 1;
  }
  return r;
}

std::int64_t nearest_key(const std::vector<std::int64_t>& keys, std::int64_t M) {
  std::int64_t best = keys.front();
  // Distances as unsigned: |key - M| can exceed INT64_MAX for extreme M.
  const auto dist = [M](std::int64_t k) {
    return k >= M ? std::uint64_t(k) - std::uint64_t(M) : std::uint64_t(M) - std::uint64_t(k);
  };
  for (const std::int64_t k : keys)
    if (dist(k) < dist(best)) best = k; // strictly smaller: ties keep the earlier key
  return best;
}

} // namespace tv
