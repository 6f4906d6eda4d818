#pragma once
/// Small deterministic hash combining (same value on every platform and run).
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace tv {

/// Mixes `v` into `seed` (splitmix64 finalizer based); deterministic across runs.
inline std::uint64_t hash_mix(std::uint64_t seed, std::uint64_t v) {
  std::uint64_t x = seed ^ (v + 0x9e3779b97f4a7c15ULL + (seed << 6) + (seed >> 2));
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  x ^= x >> 31;
  return x;
}

/// A deterministic 64-bit digest of the bytes of `s`, started from `seed` (for checksums and
/// fingerprints of files; not cryptographic).
inline std::uint64_t text_digest(std::string_view s, std::uint64_t seed) {
  std::uint64_t h = seed;
  std::size_t i = 0;
  for (; i + 8 <= s.size(); i += 8) {
    std::uint64_t w = 0;
    for (int b = 0; b < 8; ++b)
      w |= std::uint64_t(std::uint8_t(s[i + b])) << (8 * b);
    h = hash_mix(h, w);
  }
  std::uint64_t w = s.size();
  for (int b = 0; i < s.size(); ++i, ++b)
    w ^= std::uint64_t(std::uint8_t(s[i])) << (8 * b);
  return hash_mix(h, w);
}

} // namespace tv
