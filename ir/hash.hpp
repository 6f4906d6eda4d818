#pragma once
/// Small deterministic hash combining (same value on every platform and run).
#include <cstddef>
#include <cstdint>

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

} // namespace tv
