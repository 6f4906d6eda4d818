#include "models/launch.hpp"
#include "models/static_check.hpp"
#include "support/fixtures.hpp"

#include <doctest/doctest.h>

// In a namespace of its own: the test files are compiled several to a unit (unity build).
namespace launch_test {

using namespace tv;
using tv::test::cfg;

TEST_CASE("launch: 256x128 on 4 warps needs 296 registers and is rejected, 8 warps launch") {
  const Gpu& h100 = test::gpu("h100");
  CHECK(registers_per_thread(cfg(256, 128, 64, 4, 3, 8), h100) == 296);
  auto why = launch_problem(cfg(256, 128, 64, 4, 3, 8), h100, DType::bf16);
  REQUIRE(why);
  CHECK(*why == "BM=256 BN=128 warps=4: 296 registers per thread > 255");
  CHECK_FALSE(launch_problem(cfg(256, 128, 64, 8, 3, 8), h100, DType::bf16));
}

TEST_CASE("launch: shared memory, threads, tile split and config space reasons") {
  const Gpu& h100 = test::gpu("h100");
  auto smem = launch_problem(cfg(128, 256, 128, 8, 4, 8), h100, DType::bf16);
  REQUIRE(smem);
  CHECK(smem->find("bytes of shared memory > 232448") != std::string::npos);
  CHECK(shared_memory_bytes(cfg(128, 128, 64, 4, 3, 8), h100, DType::bf16) == 3 * 256 * 64 * 2);

  auto split = launch_problem(cfg(16, 32, 64, 4, 3, 1), h100, DType::bf16);
  REQUIRE(split);
  CHECK(split->find("fewer than 256 output elements") != std::string::npos);

  auto space = launch_problem(cfg(48, 128, 64, 4, 3, 8), h100, DType::bf16);
  REQUIRE(space);
  CHECK(space->find("BM=48 is not in the h100 config space") != std::string::npos);

  Config amd = cfg(128, 128, 64, 4, 2, 8);
  amd.kpack = 2;
  auto knob = launch_problem(amd, h100, DType::bf16);
  REQUIRE(knob);
  CHECK(knob->find("kpack=2 is an AMD option") != std::string::npos);
}

TEST_CASE("launch: AMD LDS limits differ between MI300X (64 KiB) and MI355X (160 KiB)") {
  const Gpu& mi300x = test::gpu("mi300x");
  const Gpu& mi355x = test::gpu("mi355x");
  // Two LDS buffers of (256+256)*64*2 bytes = 128 KiB: too big for MI300X, fits MI355X.
  const Config big = cfg(256, 256, 64, 8, 3, 8);
  CHECK(shared_memory_bytes(big, mi300x, DType::bf16) == 2 * 512 * 64 * 2);
  auto why = launch_problem(big, mi300x, DType::bf16);
  REQUIRE(why);
  CHECK(why->find("LDS") != std::string::npos);
  CHECK_FALSE(launch_problem(big, mi355x, DType::bf16));
  // AMD knobs are legal there, and checked against the profile's lists.
  Config k = cfg(128, 128, 64, 4, 2, 8);
  k.matrix_instr_nonkdim = 16;
  k.kpack = 2;
  CHECK_FALSE(launch_problem(k, mi300x, DType::bf16));
  k.kpack = 3;
  CHECK(launch_problem(k, mi300x, DType::bf16));
}

TEST_CASE("launch: A100 keeps stages-1 tiles in its 163 KiB per block, H100 keeps stages") {
  const Gpu& a100 = test::gpu("a100");
  const Gpu& h100 = test::gpu("h100");
  // 64x128x128 with 4 stages: 3 x (64+128) x 128 x 2 B = 144 KiB on A100, where the
  // AutoHeuristic A100 tables time it at full size; H100's count is 4 buffers, 192 KiB.
  const Config four = cfg(64, 128, 128, 4, 4, 8);
  CHECK(shared_memory_bytes(four, a100, DType::f16) == 3 * 192 * 128 * 2);
  CHECK(shared_memory_bytes(four, h100, DType::f16) == 4 * 192 * 128 * 2);
  CHECK_FALSE(launch_problem(four, a100, DType::f16));
  // 128x256x64 with 5 stages: 4 x 384 x 64 x 2 B = 192 KiB > 163 KiB on A100, and
  // 5 x 384 x 64 x 2 B = 240 KiB > 227 KiB on H100; with 4 stages both fit.
  const Config five = cfg(128, 256, 64, 8, 5, 8);
  auto why = launch_problem(five, a100, DType::f16);
  REQUIRE(why);
  CHECK(why->find("196608 bytes of shared memory > 166912") != std::string::npos);
  why = launch_problem(five, h100, DType::f16);
  REQUIRE(why);
  CHECK(why->find("245760 bytes of shared memory > 232448") != std::string::npos);
  CHECK_FALSE(launch_problem(cfg(128, 256, 64, 8, 4, 8), a100, DType::f16));
  CHECK_FALSE(launch_problem(cfg(128, 256, 64, 8, 4, 8), h100, DType::f16));
  CHECK(blocks_per_unit(cfg(128, 128, 32, 4, 2, 8), a100, DType::f16) > 0);
}

TEST_CASE("launch: occupancy is limited by registers and shared memory") {
  const Gpu& h100 = test::gpu("h100");
  // 128x128x64, 4 warps, 3 stages: 96 KiB of shared memory -> 2 blocks per SM.
  CHECK(blocks_per_unit(cfg(128, 128, 64, 4, 3, 8), h100, DType::bf16) == 2);
  // Fewer stages free shared memory; registers (168 x 128 threads) then allow 3.
  CHECK(blocks_per_unit(cfg(128, 128, 32, 4, 2, 8), h100, DType::bf16) == 3);
  CHECK(blocks_per_unit(cfg(256, 128, 64, 4, 3, 8), h100, DType::bf16) == 0);
}

TEST_CASE("static_check: reports each unlaunchable reachable branch with its reason") {
  const Gpu& h100 = test::gpu("h100");
  Program p = parse_program_or_throw("def choose(M, N, K):\n"
                                     "    if M <= 16:\n"
                                     "        return Config(BM=256, BN=128, BK=64, warps=4, "
                                     "stages=3, group=8)\n"
                                     "    if M <= 8:\n"
                                     "        return Config(BM=48, BN=128, BK=64, warps=4, "
                                     "stages=3, group=8)\n"
                                     "    return Config(BM=128, BN=128, BK=64, warps=4, stages=3, "
                                     "group=8)\n",
                                     "test");
  auto issues = static_check(p, h100, {DType::bf16});
  // Rule 2 is dead (covered by rule 1), so only rule 1 is reported.
  REQUIRE(issues.size() == 1);
  CHECK(issues[0].rule == 0);
  CHECK(issues[0].reason.find("296 registers per thread > 255") != std::string::npos);
  CHECK(format_static_issues(issues).rfind("rule 1 (256x128x64 w4 s3 g8): ", 0) == 0);
  CHECK(static_check(load_program_file(data_path("experts/lecture.py")), h100, {DType::bf16})
            .empty());
}

TEST_CASE("launch: large config values from a profile do not overflow") {
  // Issue 13: BM * BN, warps * warp_size and (BM + BN) * BK * stages were int products; with
  // a profile allowing 65536 they wrapped (UBSan: signed overflow) and gave false reasons.
  Gpu g = test::gpu("h100");
  g.space.BM = g.space.BN = g.space.BK = g.space.stages = g.space.group = {kMaxConfigValue};
  g.space.warps = {kMaxConfigValue};
  const Config big = cfg(kMaxConfigValue, kMaxConfigValue, kMaxConfigValue, kMaxConfigValue,
                         kMaxConfigValue, kMaxConfigValue);
  CHECK(big.threads(g.warp_size) == 2097152LL);
  CHECK(registers_per_thread(big, g) == 2048 + 40); // 2^32 accumulators / 2^21 threads
  CHECK(shared_memory_bytes(big, g, DType::bf16) == 65536LL * 131072 * 65536 * 2);
  CHECK(*launch_problem(big, g, DType::bf16) == "warps=65536: 2097152 threads per block > 1024");
  Config one_warp = big;
  one_warp.warps = 1;
  g.space.warps = {1};
  CHECK(registers_per_thread(one_warp, g) == 134217728 + 40);
  CHECK(*launch_problem(one_warp, g, DType::bf16) ==
        "BM=65536 BN=65536 warps=1: 134217768 registers per thread > 255");
  CHECK(blocks_per_unit(one_warp, g, DType::bf16) == 0);
}

} // namespace launch_test
