#pragma once
/// A config's fields under the names Triton kernels, vLLM and SGLang use: BLOCK_SIZE_M,
/// BLOCK_SIZE_N, BLOCK_SIZE_K, GROUP_SIZE_M, num_warps, num_stages, and the AMD knobs
/// waves_per_eu, matrix_instr_nonkdim, kpack when set.
#include "ir/config.hpp"

#include <array>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

namespace tv {

/// The six fields every tile config has, in the order vLLM writes them.
inline constexpr std::array<std::string_view, 6> kTritonRequiredFields = {
    "BLOCK_SIZE_M", "BLOCK_SIZE_N", "BLOCK_SIZE_K", "GROUP_SIZE_M", "num_warps", "num_stages"};
/// The AMD knobs, written only when set.
inline constexpr std::array<std::string_view, 3> kTritonAmdFields = {
    "waves_per_eu", "matrix_instr_nonkdim", "kpack"};

/// The fields of a tile config `c` (not the vendor library) as (name, value), required fields
/// first, then the AMD knobs that are set.
std::vector<std::pair<std::string_view, int>> triton_meta(const Config& c);

/// Sets the field `name` of `c` to `value`; false when `name` is not a Triton field name.
bool set_triton_field(Config& c, std::string_view name, int value);

} // namespace tv
