#pragma once
/// The lookup vLLM and SGLang do in a per-M config file:
///
///     config = configs[min(configs.keys(), key=lambda x: abs(x - M))]
///
/// (vLLM fused_moe.py try_get_optimal_moe_config and the w8a8 block kernels; SGLang
/// fused_moe_triton_config.py). The key nearest to M wins; of two keys at the same distance
/// (M exactly halfway between neighbours) Python's min() keeps the first one it meets, and a
/// dict built by json.load iterates in the file's order, so the key earlier in the file wins.
#include <cstdint>
#include <vector>

namespace tv {

/// One key of a per-M table and the integers M the lookup sends to it.
struct KeyRange {
  std::int64_t key = 0;
  std::int64_t lo = 0, hi = 0; ///< inclusive; the first range starts at INT64_MIN, the last
                               ///< ends at kDimMax
  std::size_t position = 0;    ///< index of the key in file order
};

/// The ranges of every key, in increasing key order, covering every M up to kDimMax. Keys must
/// be distinct and in [0, kDimMax] (checked by the importer); `keys` is in file order.
std::vector<KeyRange> nearest_key_ranges(const std::vector<std::int64_t>& keys);

/// The key the lookup picks for `M` (a direct transcription of the Python expression, for
/// tests and checks); `keys` non-empty, in file order.
std::int64_t nearest_key(const std::vector<std::int64_t>& keys, std::int64_t M);

} // namespace tv
