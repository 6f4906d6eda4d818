#pragma once
/// A tile configuration: what a heuristic returns for a shape.
#include <cstddef>
#include <optional>
#include <string>

namespace tv {

/// Tile sizes, warps, pipeline stages, GROUP_M swizzle, and the optional AMD knobs; or, with
/// `vendor` set, "call the vendor library (cuBLAS, hipBLASLt) instead of the tiled kernel".
struct Config {
  int BM = 128, BN = 128, BK = 64;
  int warps = 4;
  int stages = 3;
  int group = 8;
  std::optional<int> waves_per_eu;
  std::optional<int> matrix_instr_nonkdim;
  std::optional<int> kpack;
  /// The vendor library instead of a tile config; the other fields keep their defaults (see
  /// vendor_config()), so all vendor choices compare equal.
  bool vendor = false;

  /// Threads per block for a warp (or wave) of `warp_size` lanes (64-bit: a profile may allow
  /// large values, and the product must not overflow).
  long long threads(int warp_size) const { return (long long)warps * warp_size; }
  /// Compact human form "128x128x64 w4 s3 g8" (plus AMD knobs when set); "vendor" for the
  /// vendor library.
  std::string brief() const;
  friend bool operator==(const Config&, const Config&) = default;
  friend auto operator<=>(const Config&, const Config&) = default;
};

/// The one config that stands for the vendor library.
inline Config vendor_config() {
  Config c;
  c.vendor = true;
  return c;
}

/// Structural hash of a config (all fields, including unset AMD knobs).
std::size_t hash_value(const Config& c);

} // namespace tv

template <> struct std::hash<tv::Config> {
  std::size_t operator()(const tv::Config& c) const noexcept { return tv::hash_value(c); }
};
