#pragma once
/// Random programs for property tests (header-only, deterministic for a seed).
#include "ir/program.hpp"
#include "ir/rng.hpp"

#include <vector>

namespace tv::test {

/// A random config drawn from small value sets; AMD knobs set with probability 1/4 each.
inline Config random_config(Rng& rng) {
  static const std::vector<int> tiles{16, 32, 64, 128, 256}, warps{2, 4, 8}, stages{1, 2, 3, 4, 5},
      groups{1, 4, 8, 16};
  Config c;
  c.BM = rng.pick(tiles);
  c.BN = rng.pick(tiles);
  c.BK = rng.pick(std::vector<int>{16, 32, 64, 128});
  c.warps = rng.pick(warps);
  c.stages = rng.pick(stages);
  c.group = rng.pick(groups);
  if (rng.chance(0.25)) c.waves_per_eu = int(rng.uniform_int(0, 4));
  if (rng.chance(0.25)) c.matrix_instr_nonkdim = rng.chance(0.5) ? 16 : 32;
  if (rng.chance(0.25)) c.kpack = rng.chance(0.5) ? 1 : 2;
  return c;
}

/// A random comparison with thresholds near `scale` (small values make overlaps likely).
inline Comparison random_comparison(Rng& rng, std::int64_t scale = 64) {
  Comparison t;
  t.feature = Feature(rng.uniform_int(0, 2));
  t.op = CmpOp(rng.uniform_int(0, 4));
  t.value = rng.uniform_int(0, scale);
  return t;
}

/// A random program with up to `max_rules` rules of up to 3 comparisons; configs are drawn
/// from a pool of `config_pool` so that equal configs (redundant rules) are common.
inline Program random_program(Rng& rng, int max_rules = 6, std::int64_t scale = 64,
                              int config_pool = 3) {
  std::vector<Config> pool;
  for (int i = 0; i < config_pool; ++i)
    pool.push_back(random_config(rng));
  Program p;
  const int n = int(rng.uniform_int(0, max_rules));
  for (int i = 0; i < n; ++i) {
    Rule r;
    const int terms = int(rng.uniform_int(0, 3));
    for (int j = 0; j < terms; ++j)
      r.condition.terms.push_back(random_comparison(rng, scale));
    r.config = rng.pick(pool);
    p.rules.push_back(r);
  }
  p.default_config = rng.pick(pool);
  return p;
}

} // namespace tv::test
