#include "models/time_table.hpp"

#include "ir/error.hpp"
#include "models/analytic_model.hpp"
#include "models/launch.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <limits>
#include <set>

namespace tv {

namespace {
Config strip_knobs(Config c) {
  c.waves_per_eu.reset();
  c.matrix_instr_nonkdim.reset();
  c.kpack.reset();
  return c;
}
} // namespace

TimeTable::TimeTable(std::vector<Shape> shapes, std::vector<Config> configs,
                     xt::xtensor<double, 2> times, bool ignore_amd_knobs)
    : shapes_(std::move(shapes)), configs_(std::move(configs)), times_(std::move(times)),
      ignore_knobs_(ignore_amd_knobs) {
  if (times_.shape()[0] != shapes_.size() || times_.shape()[1] != configs_.size())
    throw std::invalid_argument("TimeTable: times array does not match shapes x configs");
  config_index_.reserve(configs_.size() * 2);
  for (std::size_t i = 0; i < configs_.size(); ++i)
    config_index_.emplace(configs_[i], int(i));
  for (std::size_t i = 0; i < shapes_.size(); ++i) {
    auto [it, fresh] = shape_index_.emplace(shapes_[i].label(), int(i));
    if (!fresh) throw InputError(fmt::format("duplicate shape '{}' in one shape set", it->first));
  }
  oracle_.assign(shapes_.size(), -1);
  for (std::size_t s = 0; s < shapes_.size(); ++s) {
    double best = std::numeric_limits<double>::infinity();
    for (std::size_t c = 0; c < configs_.size(); ++c)
      if (times_(s, c) < best) {
        best = times_(s, c);
        oracle_[s] = int(c);
      }
  }
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
  return oracle_[s] < 0 ? std::numeric_limits<double>::infinity() : times_(s, oracle_[s]);
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

TimeTable build_model_table(const std::vector<Shape>& shapes, const Gpu& g) {
  std::vector<DType> dtypes;
  for (const auto& s : shapes)
    if (std::find(dtypes.begin(), dtypes.end(), s.dtype) == dtypes.end()) dtypes.push_back(s.dtype);
  std::vector<Config> configs = model_configs(g, dtypes);
  xt::xtensor<double, 2> times({shapes.size(), configs.size()});
  const long long ns = (long long)shapes.size(), nc = (long long)configs.size();
  // Occupancy depends on the config and dtype only: compute it once per pair.
  std::vector<int> occupancy(std::size_t(nc) * dtypes.size());
#pragma omp parallel for schedule(static)
  for (long long i = 0; i < nc * (long long)dtypes.size(); ++i)
    occupancy[std::size_t(i)] =
        blocks_per_unit(configs[std::size_t(i % nc)], g, dtypes[std::size_t(i / nc)]);
  std::vector<std::size_t> dtype_of(shapes.size());
  for (std::size_t s = 0; s < shapes.size(); ++s)
    dtype_of[s] =
        std::size_t(std::find(dtypes.begin(), dtypes.end(), shapes[s].dtype) - dtypes.begin());
#pragma omp parallel for schedule(static)
  for (long long i = 0; i < ns * nc; ++i) {
    const auto s = std::size_t(i / nc), c = std::size_t(i % nc);
    times(s, c) =
        model_breakdown(shapes[s], configs[c], g, occupancy[dtype_of[s] * std::size_t(nc) + c])
            .total;
  }
  return TimeTable(shapes, std::move(configs), std::move(times), true);
}

} // namespace tv
