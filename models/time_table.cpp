#include "models/time_table.hpp"

#include "ir/error.hpp"
#include "models/analytic_model.hpp"
#include "models/launch.hpp"
#include "models/progress.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <fmt/format.h>
#include <limits>
#include <mutex>
#include <omp.h>
#include <set>

namespace tv {

namespace {

Config strip_knobs(Config c) {
  c.waves_per_eu.reset();
  c.matrix_instr_nonkdim.reset();
  c.kpack.reset();
  return c;
}

/// Runs body(row) for every row in parallel (static schedule, so the work split does not
/// matter: every row is computed the same way), reporting progress as `what` when the table
/// is large enough for it to take a while.
template <class Body>
void for_each_row(std::size_t rows, std::size_t cells_per_row, std::string_view what, Body body) {
  const bool report = rows * cells_per_row >= (std::size_t(1) << 22);
  std::atomic<std::size_t> done{0};
  const long long n = (long long)rows;
#pragma omp parallel for schedule(static)
  for (long long r = 0; r < n; ++r) {
    body(std::size_t(r));
    const std::size_t d = done.fetch_add(1, std::memory_order_relaxed) + 1;
    if (report && omp_get_thread_num() == 0 && d % 256 == 0) report_progress(what, d, rows);
  }
  if (report) report_progress(what, rows, rows);
}

} // namespace

/// The state of a computed table: the cell function and the columns kept so far. Lookups run
/// in parallel (baselines cost columns on all threads), so a column is computed outside any
/// lock and only published under it.
struct TimeTable::Columns {
  CellTime cell;
  std::size_t cache_bytes = 0;
  std::atomic<std::size_t> used_bytes{0}; ///< reserved by kept (or being computed) columns
  std::atomic<bool> full{false};          ///< the cache is full: no more columns are kept
  std::mutex mutex;                       ///< guards `storage` and publishing a column
  std::unique_ptr<std::atomic<const double*>[]> column; ///< kept columns (null = not kept)
  std::vector<std::unique_ptr<double[]>> storage;

  /// Column `c` computed and kept (or nullptr when the cache is full).
  const double* keep(std::size_t c, const std::vector<Shape>& shapes) {
    if (full.load(std::memory_order_relaxed)) return nullptr;
    const std::size_t bytes = shapes.size() * sizeof(double);
    if (used_bytes.fetch_add(bytes) + bytes > cache_bytes) { // reserve first: never overshoot
      used_bytes.fetch_sub(bytes);
      full.store(true, std::memory_order_relaxed);
      return nullptr;
    }
    auto data = std::make_unique<double[]>(shapes.size());
    for (std::size_t s = 0; s < shapes.size(); ++s)
      data[s] = cell(shapes[s], c);
    std::lock_guard<std::mutex> lock(mutex);
    if (const double* p = column[c].load(std::memory_order_acquire)) { // another thread won
      used_bytes.fetch_sub(bytes);
      return p;
    }
    const double* p = data.get();
    storage.push_back(std::move(data));
    column[c].store(p, std::memory_order_release);
    return p;
  }
};

TimeTable::TimeTable(std::vector<Shape> shapes, std::vector<Config> configs, TimeMatrix times,
                     bool ignore_amd_knobs)
    : shapes_(std::move(shapes)), configs_(std::move(configs)), times_(std::move(times)),
      ignore_knobs_(ignore_amd_knobs) {
  if (times_.rows() != shapes_.size() || times_.columns() != configs_.size())
    throw std::invalid_argument("TimeTable: times array does not match shapes x configs");
  index();
  oracle_.assign(shapes_.size(), -1);
  oracle_time_.assign(shapes_.size(), std::numeric_limits<double>::infinity());
  for (std::size_t s = 0; s < shapes_.size(); ++s)
    for (std::size_t c = 0; c < configs_.size(); ++c)
      if (times_(s, c) < oracle_time_[s]) {
        oracle_time_[s] = times_(s, c);
        oracle_[s] = int(c);
      }
}

TimeTable::TimeTable(std::vector<Shape> shapes, std::vector<Config> configs, CellTime cell,
                     bool ignore_amd_knobs, std::size_t cache_bytes)
    : shapes_(std::move(shapes)), configs_(std::move(configs)), ignore_knobs_(ignore_amd_knobs),
      columns_(std::make_shared<Columns>()) {
  index();
  columns_->cell = std::move(cell);
  columns_->cache_bytes = cache_bytes;
  columns_->column = std::make_unique<std::atomic<const double*>[]>(configs_.size());
  for (std::size_t c = 0; c < configs_.size(); ++c)
    columns_->column[c].store(nullptr, std::memory_order_relaxed);
  oracle_.assign(shapes_.size(), -1);
  oracle_time_.assign(shapes_.size(), std::numeric_limits<double>::infinity());
  const CellTime& f = columns_->cell;
  // The same scan as for a stored table: first column in order wins ties.
  for_each_row(shapes_.size(), configs_.size(), "time table (oracle per shape)",
               [&](std::size_t s) {
                 for (std::size_t c = 0; c < configs_.size(); ++c) {
                   const double t = f(shapes_[s], c);
                   if (t < oracle_time_[s]) {
                     oracle_time_[s] = t;
                     oracle_[s] = int(c);
                   }
                 }
               });
}

void TimeTable::index() {
  config_index_.reserve(configs_.size() * 2);
  for (std::size_t i = 0; i < configs_.size(); ++i)
    config_index_.emplace(configs_[i], int(i));
  shape_index_.reserve(shapes_.size() * 2);
  for (std::size_t i = 0; i < shapes_.size(); ++i) {
    auto [it, fresh] = shape_index_.emplace(shapes_[i].label(), int(i));
    if (!fresh) throw InputError(fmt::format("duplicate shape '{}' in one shape set", it->first));
  }
}

double TimeTable::computed_time(std::size_t s, std::size_t c) const {
  const double* col = columns_->column[c].load(std::memory_order_acquire);
  if (!col) col = columns_->keep(c, shapes_);
  return col ? col[s] : columns_->cell(shapes_[s], c);
}

int TimeTable::config_index(const Config& c) const {
  auto it = config_index_.find(ignore_knobs_ ? strip_knobs(c) : c);
  return it == config_index_.end() ? -1 : it->second;
}

int TimeTable::shape_index(const std::string& label) const {
  auto it = shape_index_.find(label);
  return it == shape_index_.end() ? -1 : it->second;
}

double TimeTable::oracle_time(std::size_t s) const {
  return oracle_time_[s];
}

std::vector<Config> model_configs(const Gpu& g, const std::vector<DType>& dtypes) {
  std::vector<Config> out;
  std::set<Config> seen;
  for (const Config& c0 : all_configs(g)) {
    Config c = strip_knobs(c0);
    if (seen.count(c)) continue;
    seen.insert(c);
    for (DType d : dtypes)
      if (!launch_problem(c, g, d)) {
        out.push_back(c);
        break;
      }
  }
  return out;
}

TimeTable build_model_table(const std::vector<Shape>& shapes, const Gpu& g,
                            std::size_t dense_limit) {
  std::vector<DType> dtypes;
  for (const auto& s : shapes)
    if (std::find(dtypes.begin(), dtypes.end(), s.dtype) == dtypes.end()) dtypes.push_back(s.dtype);
  std::vector<Config> configs = model_configs(g, dtypes);
  const std::size_t nc = configs.size();
  // Occupancy depends on the config and dtype only: compute it once per pair.
  auto occupancy = std::make_shared<std::vector<int>>(nc * dtypes.size());
  const long long pairs = (long long)(nc * dtypes.size());
#pragma omp parallel for schedule(static)
  for (long long i = 0; i < pairs; ++i)
    (*occupancy)[std::size_t(i)] =
        blocks_per_unit(configs[std::size_t(i) % nc], g, dtypes[std::size_t(i) / nc]);
  // One cell: the model's time with the precomputed occupancy of (dtype, config).
  auto cfgs = std::make_shared<const std::vector<Config>>(configs);
  auto gpu = std::make_shared<const Gpu>(g);
  CellTime cell = [cfgs, gpu, occupancy, dtypes](const Shape& s, std::size_t c) {
    const std::size_t d =
        std::size_t(std::find(dtypes.begin(), dtypes.end(), s.dtype) - dtypes.begin());
    return model_breakdown(s, (*cfgs)[c], *gpu, (*occupancy)[d * cfgs->size() + c]).total;
  };
  // A model table computed on lookup keeps 64 MiB of columns, not kColumnCacheBytes: the
  // baselines look up every column in order, so the cache ends up holding the first columns
  // whatever its size, while the decision tree's cost table needs the memory (100k shapes:
  // the peak stays under 1 GB, bench_large_problem).
  constexpr std::size_t kModelColumnCacheBytes = std::size_t(64) << 20;
  if (shapes.size() * nc > dense_limit)
    return TimeTable(shapes, std::move(configs), std::move(cell), true, kModelColumnCacheBytes);
  TimeMatrix times(shapes.size(), nc);
  for_each_row(shapes.size(), nc, "time table", [&](std::size_t s) {
    for (std::size_t c = 0; c < nc; ++c)
      times(s, c) = cell(shapes[s], c);
  });
  return TimeTable(shapes, std::move(configs), std::move(times), true);
}

} // namespace tv
