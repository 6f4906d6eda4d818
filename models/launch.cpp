#include "models/launch.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <fmt/ranges.h>

namespace tv {

namespace {

/// Registers every thread needs besides its accumulators (pointers, indices, loop counters,
/// one A and one B fragment). Chosen so that a 256x128 tile on 4 NVIDIA warps needs 296.
constexpr int kRegisterOverhead = 40;
/// Elements of the output tile each warp must own at least (one 16x16 MMA tile).
constexpr int kMinElementsPerWarp = 256;

bool in(const std::vector<int>& values, int v) {
  return std::find(values.begin(), values.end(), v) != values.end();
}

std::optional<std::string> space_problem(const char* field, int v, const std::vector<int>& legal,
                                         const Gpu& g) {
  if (in(legal, v)) return std::nullopt;
  return fmt::format("{}={} is not in the {} config space {{{}}}", field, v, g.name,
                     fmt::join(legal, ", "));
}

std::optional<std::string> knob_problem(const char* field, const std::optional<int>& v,
                                        const std::vector<int>& legal, const Gpu& g) {
  if (!v) return std::nullopt;
  if (legal.empty())
    return fmt::format("{}={} is an AMD option; {} has no such knob", field, *v, g.name);
  return space_problem(field, *v, legal, g);
}

} // namespace

long long registers_per_thread(const Config& c, const Gpu& g) {
  const long long threads = std::max(1LL, c.threads(g.warp_size));
  return ((long long)c.BM * c.BN + threads - 1) / threads + kRegisterOverhead;
}

long long shared_memory_bytes(const Config& c, const Gpu& g, DType d) {
  const long long buffers = std::max(1LL, c.stages - (long long)g.buffers_below_stages);
  // At most 2^31 stages x 2^32 x 2^31 x 8 would overflow; the profile reader bounds the config
  // space (see kMaxConfigValue in gpu.hpp), which keeps this product far below 2^63.
  return buffers * ((long long)c.BM + c.BN) * c.BK * dtype_bytes(d);
}

int blocks_per_unit(const Config& c, const Gpu& g, DType d) {
  if (launch_problem(c, g, d)) return 0;
  const long long threads = c.threads(g.warp_size);
  const long long regs = registers_per_thread(c, g) * threads;
  const long long smem = shared_memory_bytes(c, g, d);
  long long n = g.max_blocks_per_unit;
  n = std::min<long long>(n, g.max_threads_per_unit / threads);
  n = std::min<long long>(n, g.registers_per_unit / regs);
  if (smem > 0) n = std::min<long long>(n, g.shared_per_unit / smem);
  return int(std::max<long long>(n, 0));
}

std::optional<std::string> launch_problem(const Config& c, const Gpu& g, DType d) {
  if (c.vendor) return std::nullopt; // the library launches its own kernels
  const ConfigSpace& s = g.space;
  for (auto p :
       {space_problem("BM", c.BM, s.BM, g), space_problem("BN", c.BN, s.BN, g),
        space_problem("BK", c.BK, s.BK, g), space_problem("warps", c.warps, s.warps, g),
        space_problem("stages", c.stages, s.stages, g), space_problem("group", c.group, s.group, g),
        knob_problem("waves_per_eu", c.waves_per_eu, s.waves_per_eu, g),
        knob_problem("matrix_instr_nonkdim", c.matrix_instr_nonkdim, s.matrix_instr_nonkdim, g),
        knob_problem("kpack", c.kpack, s.kpack, g)})
    if (p) return p;

  const long long threads = c.threads(g.warp_size);
  if (threads > g.max_threads_per_block)
    return fmt::format("warps={}: {} threads per block > {}", c.warps, threads,
                       g.max_threads_per_block);
  if ((long long)c.BM * c.BN < (long long)c.warps * kMinElementsPerWarp)
    return fmt::format("BM={} BN={} warps={}: a {}x{} tile gives each warp fewer than {} "
                       "output elements",
                       c.BM, c.BN, c.warps, c.BM, c.BN, kMinElementsPerWarp);
  if (c.matrix_instr_nonkdim && (c.BM % *c.matrix_instr_nonkdim || c.BN % *c.matrix_instr_nonkdim))
    return fmt::format("BM={} BN={} matrix_instr_nonkdim={}: the tile is not a multiple of the "
                       "matrix instruction",
                       c.BM, c.BN, *c.matrix_instr_nonkdim);
  const long long regs = registers_per_thread(c, g);
  if (regs > g.max_registers_per_thread)
    return fmt::format("BM={} BN={} warps={}: {} registers per thread > {}", c.BM, c.BN, c.warps,
                       regs, g.max_registers_per_thread);
  if (regs * threads > g.registers_per_unit)
    return fmt::format("BM={} BN={} warps={}: {} registers per block > {} per {}", c.BM, c.BN,
                       c.warps, regs * threads, g.registers_per_unit,
                       g.vendor == "amd" ? "CU" : "SM");
  const long long smem = shared_memory_bytes(c, g, d);
  if (smem > g.shared_per_block)
    return fmt::format("BM={} BN={} BK={} stages={}: {} bytes of {} > {}", c.BM, c.BN, c.BK,
                       c.stages, smem, g.vendor == "amd" ? "LDS" : "shared memory",
                       g.shared_per_block);
  return std::nullopt;
}

} // namespace tv
