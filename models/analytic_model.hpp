#pragma once
/// The analytic GPU timing model: a pure function time(shape, config, gpu).
///
/// A tiled GEMM launches ceil(M/BM)*ceil(N/BN) blocks. Each SM/CU runs up to `occupancy`
/// blocks at once (registers, shared memory, threads). One k-iteration of the resident blocks
/// costs the slowest of: tensor-core math (issue efficiency grows with resident warps and
/// warp-tile size), feeding operands from L2 (bigger tiles re-read less), and load latency
/// divided by the stages in flight (pipelining). Blocks run in rounds, so partial last rounds
/// show wave quantization. Separately, DRAM traffic counts how often A and B are re-read: a
/// GROUP_M swizzle keeps a band of rows sharing B in L2, and operands that fit in L2 (plus
/// Infinity Cache) are read once; too few bytes in flight show up as the latency term of the
/// compute path. Decode shapes are therefore bound by streaming the weights. The kernel time is a
/// smooth maximum of the compute path and the DRAM time, plus a launch overhead.
/// AMD knobs (waves_per_eu, matrix_instr_nonkdim, kpack) do not change the model's time.
#include "ir/config.hpp"
#include "ir/shape.hpp"
#include "models/gpu.hpp"

namespace tv {

/// The pieces of one prediction, in seconds (for reports and tests).
struct TimeBreakdown {
  double total = 0;        ///< predicted kernel time
  double compute_path = 0; ///< busiest SM/CU: rounds of k-iterations plus per-tile costs
  double dram = 0;         ///< DRAM bytes / achieved bandwidth
  double dram_bytes = 0;   ///< bytes moved to and from DRAM
  long long tiles = 0;     ///< blocks in the grid
  int occupancy = 0;       ///< blocks resident per SM/CU
  double waves = 0;        ///< tiles / (units * occupancy)
};

/// Predicted time and its parts; total is +infinity when the config cannot launch.
TimeBreakdown model_breakdown(const Shape& s, const Config& c, const Gpu& g);
/// As above with the occupancy already known (blocks_per_unit of launch.hpp; 0 = cannot launch),
/// for callers that time one config on many shapes.
TimeBreakdown model_breakdown(const Shape& s, const Config& c, const Gpu& g, int occupancy);
/// Predicted time in seconds (+infinity when the config cannot launch).
double model_time(const Shape& s, const Config& c, const Gpu& g);

} // namespace tv
