#include "models/analytic_model.hpp"
#include "models/launch.hpp"
#include "models/time_table.hpp"
#include "support/fixtures.hpp"

#include <cmath>
#include <doctest/doctest.h>

// In a namespace of its own: the test files are compiled several to a unit (unity build).
namespace analytic_model_test {

using namespace tv;
using tv::test::cfg;

namespace {
using tv::test::shape;
std::vector<Config> sample_configs(const Gpu& g) {
  std::vector<Config> out;
  const auto all = model_configs(g, {DType::bf16});
  for (std::size_t i = 0; i < all.size(); i += 37)
    out.push_back(all[i]);
  return out;
}
} // namespace

TEST_CASE("analytic_model: time grows with K, M and N for every sampled config") {
  for (const char* name : {"h100", "mi300x"}) {
    const Gpu& g = test::gpu(name);
    for (const Config& c : sample_configs(g))
      for (std::int64_t m : {1, 64, 1024})
        for (std::int64_t k : {512, 4096}) {
          const double t = model_time(shape(m, 4096, k), c, g);
          CHECK(std::isfinite(t));
          // Strictly more K is strictly slower; more tiles may run in parallel at equal time.
          CHECK(model_time(shape(m, 4096, 2 * k), c, g) > t);
          CHECK(model_time(shape(m, 8192, k), c, g) >= t * (1 - 1e-9));
          CHECK(model_time(shape(2 * m, 4096, k), c, g) >= t * (1 - 1e-9));
        }
  }
}

TEST_CASE("analytic_model: more bandwidth or more compute never slows a kernel") {
  const Gpu& base = test::gpu("h100");
  Gpu more_bw = base, more_flops = base, more_l2 = base;
  more_bw.hbm_bytes_per_s *= 1.5;
  for (auto& [k, v] : more_flops.peak_flops)
    v *= 1.5;
  more_l2.l2_bytes_per_s *= 1.5;
  for (const auto& s : test::lecture_shapes())
    for (const Config& c : sample_configs(base)) {
      const double t = model_time(s, c, base);
      CHECK(model_time(s, c, more_bw) <= t);
      CHECK(model_time(s, c, more_flops) <= t);
      CHECK(model_time(s, c, more_l2) <= t);
    }
  // And H200 (same die, faster HBM) is never slower than H100 on the lecture shapes.
  const Gpu& h200 = test::gpu("h200");
  for (const auto& s : test::lecture_shapes())
    CHECK(model_time(s, cfg(128, 128, 64, 4, 3, 8), h200) <=
          model_time(s, cfg(128, 128, 64, 4, 3, 8), base));
}

TEST_CASE("analytic_model: unlaunchable configs have infinite time") {
  CHECK(
      std::isinf(model_time(shape(128, 128, 128), cfg(256, 128, 64, 4, 3, 8), test::gpu("h100"))));
}

TEST_CASE("analytic_model: decode shapes are bound by streaming the weights") {
  const Gpu& g = test::gpu("h100");
  for (const auto& s : test::lecture_shapes()) {
    if (s.M > 16 || s.name.rfind("llama3-8b:", 0) != 0) continue;
    const TimeBreakdown b = model_breakdown(s, cfg(16, 64, 128, 4, 4, 1), g);
    const double weights = double(s.N) * s.K * 2;
    CHECK(b.dram_bytes >= weights);
    CHECK(b.dram_bytes < 1.05 * weights + double(s.M) * s.K * 2 + double(s.M) * s.N * 2);
    // Streaming the weights at full HBM bandwidth explains most of the time.
    INFO(s.label());
    CHECK(weights / g.hbm_bytes_per_s > 0.75 * b.total);
  }
}

TEST_CASE("analytic_model: GROUP_M swizzle cuts DRAM traffic on a large grid") {
  const Gpu& g = test::gpu("h100");
  const Shape s = shape(8192, 28672, 4096);
  const TimeBreakdown g1 = model_breakdown(s, cfg(128, 256, 64, 8, 4, 1), g);
  const TimeBreakdown g8 = model_breakdown(s, cfg(128, 256, 64, 8, 4, 8), g);
  CHECK(g8.dram_bytes < 0.5 * g1.dram_bytes);
  CHECK(g8.total < g1.total);
}

TEST_CASE("analytic_model: pipelining needs stages unless other resident blocks hide the loads") {
  const Gpu& g = test::gpu("h100");
  const Shape s = shape(4096, 4096, 4096);
  // One 128x256 block per SM: nothing else runs while it waits, so one stage is far slower.
  const double b1 = model_time(s, cfg(128, 256, 64, 8, 1, 8), g);
  const double b2 = model_time(s, cfg(128, 256, 64, 8, 2, 8), g);
  const double b4 = model_time(s, cfg(128, 256, 64, 8, 4, 8), g);
  CHECK(b1 > 1.2 * b2);
  CHECK(b2 > b4);
  // 128x128x32 blocks fit several to an SM: while one waits another computes, so the loss
  // without pipelining is smaller, though one stage is still the slowest.
  const double s1 = model_time(s, cfg(128, 128, 32, 4, 1, 8), g);
  const double s2 = model_time(s, cfg(128, 128, 32, 4, 2, 8), g);
  const double s4 = model_time(s, cfg(128, 128, 32, 4, 4, 8), g);
  CHECK(s1 > s2);
  CHECK(s2 > s4);
  CHECK(s1 / s2 < b1 / b2);
}

TEST_CASE("analytic_model: wave quantization - one tile more than the SMs costs a second round") {
  const Gpu& g = test::gpu("h100");
  // 256x128 tiles, 8 warps: one block per SM. 132 tiles fill one wave, 136 need two rounds.
  const Config c = cfg(256, 128, 64, 8, 4, 8);
  REQUIRE(blocks_per_unit(c, g, DType::bf16) == 1);
  const double full = model_time(shape(256 * 11, 128 * 12, 4096), c, g); // 132 tiles
  const double spill = model_time(shape(256 * 17, 128 * 8, 4096), c, g); // 136 tiles
  CHECK(spill > 1.6 * full);
}

TEST_CASE("analytic_model: the lecture's structure on H100") {
  const Problem& p = test::lecture_problem("h100");
  const TimeTable& t = *p.table;
  int big = 0, large_m = 0, expert_15 = 0, intermediate_2x = 0;
  std::vector<double> large_m_slowdowns;
  for (std::size_t r = 0; r < t.shapes().size(); ++r) {
    const Shape& s = t.shapes()[r];
    const int ec = t.config_index(p.expert.choose(s));
    REQUIRE(ec >= 0);
    const double slow = t.time(r, std::size_t(ec)) / t.oracle_time(r);
    const Config& o = t.configs()[std::size_t(t.oracle_config(r))];
    if (s.M <= 16 && s.name.rfind("llama3-8b:", 0) == 0) {
      INFO(s.label());
      CHECK(slow <= 1.02); // decode: the expert is already (near) optimal
    }
    if (s.M >= 4096) {
      ++large_m;
      const bool big_tile = ((o.BM == 256 && o.BN == 128) || (o.BM == 128 && o.BN == 256)) &&
                            o.warps == 8 && o.stages >= 3;
      if (big_tile) ++big;
      if (slow >= 1.15) ++expert_15;
      large_m_slowdowns.push_back(slow);
    }
    if (s.M > 16 && s.M < 4096 && slow >= 2.0) ++intermediate_2x;
  }
  CHECK(big * 4 >= large_m * 3);       // most large-M oracles: big tiles, 8 warps, >= 3 stages
  CHECK(expert_15 * 4 >= large_m * 3); // and on most of them the expert is >= 15% slower
  double logsum = 0;
  for (double x : large_m_slowdowns)
    logsum += std::log(x);
  CHECK(std::exp(logsum / double(large_m_slowdowns.size())) >= 1.15);
  CHECK(intermediate_2x >= 1);
}

} // namespace analytic_model_test
