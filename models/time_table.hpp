#pragma once
/// The time table: the time of every (shape, config) pair of a problem, computed once.
#include "ir/config.hpp"
#include "ir/shape.hpp"
#include "models/gpu.hpp"

#include <cstddef>
#include <string>
#include <unordered_map>
#include <vector>
#include <xtensor/xtensor.hpp>

namespace tv {

/// Times in seconds, shapes x configs; +infinity marks a pair that cannot run.
class TimeTable {
public:
  /// Takes ownership of the data; `times` must be shapes.size() x configs.size().
  /// With `ignore_amd_knobs`, lookups strip waves_per_eu / matrix_instr_nonkdim / kpack
  /// (for backends whose timing does not depend on them) and `configs` must have none set.
  TimeTable(std::vector<Shape> shapes, std::vector<Config> configs, xt::xtensor<double, 2> times,
            bool ignore_amd_knobs);

  /// The shapes, in row order.
  const std::vector<Shape>& shapes() const { return shapes_; }
  /// The configs, in column order.
  const std::vector<Config>& configs() const { return configs_; }
  /// The raw array (shapes x configs).
  const xt::xtensor<double, 2>& times() const { return times_; }
  /// Time of shape row `s` with config column `c`.
  double time(std::size_t s, std::size_t c) const { return times_(s, c); }
  /// Column of `c` (after stripping ignored knobs), or -1 when the table has no such config.
  int config_index(const Config& c) const;
  /// Row of the shape with this label (name), or -1.
  int shape_index(const std::string& label) const;
  /// Column of the fastest config for row `s` (first in column order on ties; -1 if none runs).
  int oracle_config(std::size_t s) const { return oracle_[s]; }
  /// Fastest time for row `s` (+infinity if nothing runs).
  double oracle_time(std::size_t s) const;
  /// True when lookups ignore the AMD knobs.
  bool ignores_amd_knobs() const { return ignore_knobs_; }

private:
  std::vector<Shape> shapes_;
  std::vector<Config> configs_;
  xt::xtensor<double, 2> times_;
  bool ignore_knobs_;
  std::unordered_map<Config, int> config_index_;
  std::unordered_map<std::string, int> shape_index_;
  std::vector<int> oracle_;
};

/// Configs of the GPU's space that launch for at least one of `dtypes`, AMD knobs unset
/// (the analytic model ignores them), in all_configs order.
std::vector<Config> model_configs(const Gpu& g, const std::vector<DType>& dtypes);
/// Builds the analytic-model table for `shapes` on `g` in parallel (OpenMP); the result is
/// identical for any thread count. Shape labels must be unique (InputError otherwise).
TimeTable build_model_table(const std::vector<Shape>& shapes, const Gpu& g);

} // namespace tv
