#pragma once
/// Programs and shape grids for the export tests, and one line per decision that the IR, the
/// compiled C++ export and the Python exports all print the same way (header-only).
#include "temp_dir.hpp"

#include "ir/condition.hpp"
#include "ir/program.hpp"
#include "ir/rng.hpp"
#include "ir/text.hpp"

#include <algorithm>
#include <filesystem>
#include <fmt/format.h>
#include <set>
#include <string>
#include <tuple>
#include <unistd.h>
#include <vector>

namespace tv::test {

/// A hand-written program using every kind of feature, a vendor branch and the AMD knobs.
inline Program mixed_export_program() {
  return parse_program_or_throw(
      "def choose(M, N, K):\n"
      "    if M <= 16:\n"
      "        return Config(BM=16, BN=64, BK=128, warps=4, stages=4, group=1)\n"
      "    if cdiv(M, 128) * cdiv(N, 128) <= 132 and M * N >= 1048576:\n"
      "        return Config(BM=64, BN=64, BK=64, warps=4, stages=4, group=8)\n"
      "    if M * N >= 268435456 and K > 4096:\n"
      "        return \"vendor\"\n"
      "    if 64 < M < 512 and N >= 8192:\n"
      "        return Config(BM=64, BN=128, BK=64, warps=4, stages=3, group=8, waves_per_eu=2, "
      "matrix_instr_nonkdim=16, kpack=2)\n"
      "    if cdiv(M, 64) * cdiv(N, 256) == 96:\n"
      "        return Config(BM=32, BN=64, BK=32, warps=2, stages=2, group=4, waves_per_eu=0)\n"
      "    if N == 5120:\n"
      "        return \"vendor\"\n"
      "    return Config(BM=128, BN=128, BK=64, warps=4, stages=3, group=8)\n",
      "mixed_export_program");
}

/// A random config; AMD knobs set now and then.
inline Config random_export_config(Rng& rng) {
  static const std::vector<int> tiles{16, 32, 64, 128, 256};
  Config c;
  c.BM = rng.pick(tiles);
  c.BN = rng.pick(tiles);
  c.BK = rng.pick(std::vector<int>{16, 32, 64, 128});
  c.warps = rng.pick(std::vector<int>{2, 4, 8});
  c.stages = int(rng.uniform_int(1, 5));
  c.group = rng.pick(std::vector<int>{1, 4, 8, 16});
  if (rng.chance(0.2)) c.waves_per_eu = int(rng.uniform_int(0, 4));
  if (rng.chance(0.2)) c.matrix_instr_nonkdim = rng.chance(0.5) ? 16 : 32;
  if (rng.chance(0.2)) c.kpack = rng.chance(0.5) ? 1 : 2;
  return c;
}

/// A random program over all features (M, N, K, M * N, tile counts), vendor branches included
/// when `vendor`.
inline Program random_export_program(Rng& rng, bool vendor = true) {
  static const std::vector<int> tile_sizes{16, 64, 128, 256};
  std::vector<Config> pool;
  for (int i = 0; i < 4; ++i)
    pool.push_back(random_export_config(rng));
  if (vendor) pool.push_back(vendor_config());
  Program p;
  // At most 3 distinct tile-count features, so the program stays within kMaxDerivedFeatures.
  std::vector<std::pair<int, int>> tile_features;
  for (int i = 0; i < 3; ++i)
    tile_features.emplace_back(rng.pick(tile_sizes), rng.pick(tile_sizes));
  const int rules = int(rng.uniform_int(0, 7));
  for (int i = 0; i < rules; ++i) {
    Rule r;
    const int terms = int(rng.uniform_int(0, 3));
    for (int j = 0; j < terms; ++j) {
      Comparison t;
      t.feature = Feature(rng.uniform_int(0, 4));
      t.op = CmpOp(rng.uniform_int(0, 4));
      switch (t.feature) {
      case Feature::M:
        t.value =
            rng.chance(0.5) ? rng.uniform_int(1, 300) : (std::int64_t(1) << rng.uniform_int(0, 13));
        break;
      case Feature::N:
      case Feature::K:
        t.value = rng.pick(std::vector<std::int64_t>{1024, 4096, 5120});
        break;
      case Feature::MN:
        t.value = std::int64_t(1) << rng.uniform_int(10, 28);
        break;
      case Feature::tiles: {
        const auto tf = rng.pick(tile_features);
        t.tile_m = tf.first;
        t.tile_n = tf.second;
        t.value = rng.uniform_int(1, 400);
        break;
      }
      }
      r.condition.terms.push_back(t);
    }
    r.config = rng.pick(pool);
    p.rules.push_back(r);
  }
  p.default_config = rng.pick(pool);
  return p;
}

inline Shape grid_shape(std::int64_t M, std::int64_t N, std::int64_t K) {
  Shape s;
  s.M = M;
  s.N = N;
  s.K = K;
  return s;
}

/// A dense grid for `programs`: every M up to 64, powers of two and their neighbours up to
/// 2^20 and each M threshold with its neighbours, over N and K values that include the
/// programs' N and K thresholds and their neighbours; for M * N and tile counts, at each N of
/// the grid, the M where the feature crosses the value and its neighbours; plus huge shapes
/// where the derived features saturate, and M = 0.
inline std::vector<Shape> export_grid(const std::vector<Program>& programs) {
  std::set<std::int64_t> Ms, Ns{1, 127, 128, 129, 4096, 14336}, Ks{1, 4096};
  for (std::int64_t m = 0; m <= 64; ++m)
    Ms.insert(m);
  for (int b = 7; b <= 20; ++b)
    for (std::int64_t d : {-1, 0, 1})
      Ms.insert((std::int64_t(1) << b) + d);
  for (const auto& p : programs)
    for (const auto& r : p.rules)
      for (const auto& t : r.condition.terms)
        for (std::int64_t d : {-1, 0, 1}) {
          // t.value +- 1 without overflow (the tests export INT64_MIN and INT64_MAX too).
          std::int64_t v = t.value;
          if (__builtin_add_overflow(t.value, d, &v)) continue;
          if (t.feature == Feature::M) Ms.insert(v);
          if (t.feature == Feature::N) Ns.insert(std::max<std::int64_t>(1, v));
          if (t.feature == Feature::K) Ks.insert(std::max<std::int64_t>(1, v));
        }
  std::set<std::tuple<std::int64_t, std::int64_t, std::int64_t>> points;
  for (const std::int64_t m : Ms)
    for (const std::int64_t n : Ns)
      for (const std::int64_t k : Ks)
        points.emplace(m, n, k);
  for (const auto& p : programs)
    for (const auto& r : p.rules)
      for (const auto& t : r.condition.terms) {
        if (!is_derived(t.feature)) continue;
        for (const std::int64_t n : Ns) {
          // The first M where the feature reaches the value, and its neighbours.
          std::int64_t lo = 1, hi = std::int64_t(1) << 40;
          while (lo < hi) {
            const std::int64_t mid = lo + (hi - lo) / 2;
            if (t.value_of(grid_shape(mid, n, 1)) >= t.value)
              hi = mid;
            else
              lo = mid + 1;
          }
          for (std::int64_t d : {-1, 0, 1})
            for (const std::int64_t k : Ks)
              points.emplace(lo + d, n, k);
        }
      }
  std::vector<Shape> out;
  for (const auto& [m, n, k] : points)
    out.push_back(grid_shape(m, n, k));
  for (const std::int64_t big : {kDimMax, std::int64_t(1) << 40, std::int64_t(1) << 62})
    out.push_back(grid_shape(big, big, 3)), out.push_back(grid_shape(big, 5, big));
  return out;
}

/// "v" for the vendor library, else "BM BN BK group warps stages wpe mi kp" (-1 = unset).
inline std::string decision_line(const Config& c) {
  if (c.vendor) return "v";
  const auto k = [](const std::optional<int>& o) { return o ? *o : -1; };
  return fmt::format("{} {} {} {} {} {} {} {} {}", c.BM, c.BN, c.BK, c.group, c.warps, c.stages,
                     k(c.waves_per_eu), k(c.matrix_instr_nonkdim), k(c.kpack));
}

/// The expected output line of a driver for `s`: each program's decision, joined by " | ".
inline std::string expected_line(const std::vector<Program>& programs, const Shape& s) {
  std::string out;
  for (std::size_t i = 0; i < programs.size(); ++i)
    out += (i ? " | " : "") + decision_line(programs[i].choose(s));
  return out;
}

} // namespace tv::test
