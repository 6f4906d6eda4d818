#pragma once
/// The time table: the time of every (shape, config) pair of a problem, computed once.
#include "ir/config.hpp"
#include "ir/shape.hpp"
#include "models/gpu.hpp"
#include "models/time_matrix.hpp"

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace tv {

/// The time of one cell of a computed table: a shape (row) and a config column.
using CellTime = std::function<double(const Shape& shape, std::size_t column)>;

/// Tables with more cells than this are computed on lookup instead of stored (64 M cells are
/// 512 MB of doubles: 10,000 shapes x 4,184 configs are stored, and the baselines read them
/// without computing the model again; 100k shapes x 4k configs would be 3.3 GB).
inline constexpr std::size_t kDenseCellLimit = std::size_t(64) << 20;
/// A decision tree's cost table of more cells than this is held in floats (half the memory).
inline constexpr std::size_t kFloatCostCells = std::size_t(32) << 20;
/// How much of a computed table keeps the columns that were looked up.
inline constexpr std::size_t kColumnCacheBytes = std::size_t(256) << 20;

/// Times in seconds, shapes x configs; +infinity marks a pair that cannot run.
class TimeTable {
public:
  /// Takes ownership of the data; `times` must be shapes.size() x configs.size().
  /// With `ignore_amd_knobs`, lookups strip waves_per_eu / matrix_instr_nonkdim / kpack
  /// (for backends whose timing does not depend on them) and `configs` must have none set.
  TimeTable(std::vector<Shape> shapes, std::vector<Config> configs, TimeMatrix times,
            bool ignore_amd_knobs);
  /// A table whose cells `cell` computes when they are looked up, for problems too large to
  /// store. `cell` must be pure and thread-safe (the same cell always gives the same bits), so
  /// every figure is the same as with a stored table. The oracle of each row is computed here
  /// (in parallel, reporting progress); looked-up columns are kept up to `cache_bytes`, later
  /// ones are computed cell by cell.
  TimeTable(std::vector<Shape> shapes, std::vector<Config> configs, CellTime cell,
            bool ignore_amd_knobs, std::size_t cache_bytes = kColumnCacheBytes);

  /// The shapes, in row order.
  const std::vector<Shape>& shapes() const { return shapes_; }
  /// The configs, in column order.
  const std::vector<Config>& configs() const { return configs_; }
  /// True when every cell is stored; false for a computed table.
  bool dense() const { return columns_ == nullptr; }
  /// The raw array (shapes x configs) of a dense table (empty for a computed one).
  const TimeMatrix& times() const { return times_; }
  /// Time of shape row `s` with config column `c`.
  double time(std::size_t s, std::size_t c) const {
    return columns_ ? computed_time(s, c) : times_(s, c);
  }
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
  struct Columns;
  double computed_time(std::size_t s, std::size_t c) const;
  void index();

  std::vector<Shape> shapes_;
  std::vector<Config> configs_;
  TimeMatrix times_;
  bool ignore_knobs_;
  std::unordered_map<Config, int> config_index_;
  std::unordered_map<std::string, int> shape_index_;
  std::vector<int> oracle_;
  std::vector<double> oracle_time_;
  std::shared_ptr<Columns> columns_; ///< computed tables only (shared by copies: cells are pure)
};

/// Configs of the GPU's space that launch for at least one of `dtypes`, AMD knobs unset
/// (the analytic model ignores them), in all_configs order.
std::vector<Config> model_configs(const Gpu& g, const std::vector<DType>& dtypes);
/// Builds the analytic-model table for `shapes` on `g` in parallel (OpenMP); the result is
/// identical for any thread count. Stored when it has at most `dense_limit` cells, computed on
/// lookup otherwise (same figures either way). Shape labels must be unique (InputError
/// otherwise). Reports progress ("time table") for large tables.
TimeTable build_model_table(const std::vector<Shape>& shapes, const Gpu& g,
                            std::size_t dense_limit = kDenseCellLimit);

} // namespace tv
