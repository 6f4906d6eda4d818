#pragma once
/// The Triton export: the program's configs as a `triton.Config` list ready for
/// `@triton.autotune`, and the heuristic to pick one of them without benchmarking:
///
///     from best_triton import CONFIGS, early_config_prune, launch_kwargs
///     @triton.autotune(configs=CONFIGS, key=["M", "N", "K"],
///                      prune_configs_by={"early_config_prune": early_config_prune})
///     @triton.jit
///     def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, ..., BLOCK_SIZE_M: tl.constexpr, ...): ...
///
/// Triton's Autotuner calls early_config_prune(configs, named_args, **kwargs) and launches the
/// single config it returns without benchmarking (triton/runtime/autotuner.py). For a direct
/// call without autotune: `matmul_kernel[grid](..., **launch_kwargs(M, N, K))`. In the vendor
/// region choose_config and launch_kwargs return VENDOR (None) and early_config_prune raises
/// ValueError: dispatch to the vendor library before launching the kernel. The module also
/// defines `in_training_range(M, N, K)` (training_range_code.hpp); with
/// `AUTOTUNE_OUTSIDE_TRAINING_RANGE = True`, early_config_prune keeps every config for a shape
/// outside the training range, so that @triton.autotune benchmarks them there.
#include "ir/exporters/export_info.hpp"
#include "ir/program.hpp"

#include <string>

namespace tv {

/// The module text (it imports triton, and nothing else).
std::string export_triton(const Program& p, const ExportInfo& info);

} // namespace tv
