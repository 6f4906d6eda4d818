#pragma once
/// Configs the mock LLM writes: distances and near neighbours in a closed config space,
/// launchability-aware repair and design, one-field tweaks, and the words for a change.
#include "evolve/mutators/mock/context.hpp"
#include "ir/condition.hpp"
#include "ir/config.hpp"
#include "models/gpu.hpp"

#include <algorithm>
#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace tv::mock {

/// "BM 64 -> 128, warps 4 -> 8".
std::string describe_change(const Config& a, const Config& b);

/// How far apart two configs look to an engineer: octaves of each block size and of warps,
/// half a point per pipeline stage, a quarter per octave of group, half per differing AMD knob.
double config_distance(const Config& a, const Config& b);

/// Up to `n` allowed configs other than `avoid` that `keep` accepts, nearest to `target`
/// first (space order on ties).
template <class Keep>
std::vector<Config> nearest_configs(const Ctx& x, const Config& target, const Config* avoid,
                                    std::size_t n, Keep keep) {
  std::vector<std::pair<double, std::size_t>> order;
  for (std::size_t i = 0; i < x.space.size(); ++i)
    if ((!avoid || !(x.space[i] == *avoid)) && keep(x.space[i]))
      order.emplace_back(config_distance(x.space[i], target), i);
  std::stable_sort(order.begin(), order.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<Config> out;
  for (std::size_t i = 0; i < order.size() && i < n; ++i)
    out.push_back(x.space[order[i].second]);
  return out;
}

/// One of the allowed configs nearest to `target` (other than `avoid`): usually the nearest,
/// sometimes the second or third, as an engineer choosing from a short list would; nullopt
/// when there is none.
std::optional<Config> near_in_space(const Ctx& x, const Config& target,
                                    const Config* avoid = nullptr);

/// A neighbour of `c` in the allowed space: one field (drawn with its direction) moved up or
/// down, at one of the two nearest allowed configs that move it that way; with
/// one_field_only, only allowed configs equal to `c` in every other field count. A `c` outside
/// the space with no such move snaps to a near allowed config. nullopt when nothing moves.
std::optional<Config> tweak_in_space(Ctx& x, const Config& c);

/// Makes the tile a multiple of matrix_instr_nonkdim (largest legal divisor, else unset).
void fix_nonkdim(const Gpu& g, Config& c);

/// The nearest launchable config to `c`: warps raised (then lowered) until registers and
/// threads fit, then stages (or, with keep_stages, BK) lowered until shared memory fits, and
/// the tile shrunk as a last resort. Every field ends up in the GPU's space; nullopt when
/// nothing launches. With a closed space: one of the nearest allowed configs other than
/// `avoid` (near_in_space).
std::optional<Config> repair(const Ctx& x, Config c, bool keep_stages,
                             const Config* avoid = nullptr);

/// A config an engineer would write for the shapes in `region` (mostly guided by its M range),
/// keeping `base`'s AMD knobs; launchable or nullopt.
std::optional<Config> design(Ctx& x, const Box& region, const Config& base);

/// One field of `c` moved to a neighbouring legal value (in a closed space: a neighbouring
/// allowed config); nullopt when no field can move.
std::optional<Config> tweak_config(Ctx& x, const Config& c);

} // namespace tv::mock
