#pragma once
/// Launchability of a config on a GPU: resources one block needs and whether it fits.
#include "ir/config.hpp"
#include "ir/shape.hpp"
#include "models/gpu.hpp"

#include <optional>
#include <string>

namespace tv {

/// Registers per thread the config needs: fp32 accumulators BM*BN/threads plus a fixed
/// overhead for addresses, loop state and operand fragments.
long long registers_per_thread(const Config& c, const Gpu& g);
/// Operand staging buffers in shared memory (LDS on AMD), in bytes: `stages` buffers, or
/// max(1, stages-1) where the profile says so (AMD's stream pipeliner keeps one in registers;
/// on Ampere, Triton's pipeliner keeps stages-1 tiles in flight: Gpu::buffers_below_stages).
long long shared_memory_bytes(const Config& c, const Gpu& g, DType d);
/// Blocks of this config that fit on one SM/CU at once (0 when it cannot launch).
int blocks_per_unit(const Config& c, const Gpu& g, DType d);
/// Why `c` cannot launch on `g` for dtype `d`, or nullopt when it can (always for the vendor
/// library, which picks its own kernels; whether a backend can time it is its own question); e.g.
/// "BM=256 BN=128 warps=4: 296 registers per thread > 255".
std::optional<std::string> launch_problem(const Config& c, const Gpu& g, DType d);

} // namespace tv
