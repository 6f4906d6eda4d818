#include "eval/replay_backend.hpp"

#include "eval/autoheuristic_data.hpp"
#include "eval/measurement_cache.hpp"
#include "ir/error.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <filesystem>
#include <fstream>
#include <limits>

namespace tv {

namespace {

/// A shape, a config and the sample (0 = first measurement).
using PairKey = std::tuple<ShapeKey, Config, int>;

/// The shape of a key (no name, weight 1); `with_layout` false leaves the layout unspecified.
Shape shape_of(const ShapeKey& k, bool with_layout) {
  Shape s;
  s.M = std::get<0>(k);
  s.N = std::get<1>(k);
  s.K = std::get<2>(k);
  s.dtype = std::get<3>(k);
  if (with_layout) s.layout = std::get<4>(k);
  return s;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/// Adds a recorded result to the pair's summary.
void add_sample(std::map<PairKey, MeasurementSummary>& pairs, const PairKey& k, MeasureStatus st,
                double seconds, const std::string& detail) {
  Measurement m;
  m.status = st;
  m.seconds = seconds;
  m.detail = detail;
  if (st == MeasureStatus::unmeasured) return; // a record that says "not measured" adds nothing
  pairs[k].add(m);
}

std::string first_line_of(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw InputError(fmt::format("{}: is a directory, not a replay file", path));
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(fmt::format("{}: cannot read the replay file", path));
  std::string line;
  std::getline(in, line);
  return line;
}

bool keeps(const std::vector<DType>& dtypes, DType d) {
  return std::find(dtypes.begin(), dtypes.end(), d) != dtypes.end();
}

std::string dtype_list(const std::vector<DType>& ds) {
  std::vector<std::string_view> names;
  for (DType d : ds)
    names.push_back(dtype_name(d));
  return fmt::format("{}", fmt::join(names, ", "));
}

/// Inductor's canonical form of a requested config: its GROUP_M and no AMD knobs.
Config inductor_canonical(Config c) {
  c.group = kInductorGroupM;
  c.waves_per_eu.reset();
  c.matrix_instr_nonkdim.reset();
  c.kpack.reset();
  return c;
}

std::int64_t next_pow2(std::int64_t x) {
  std::int64_t p = 1;
  while (p < x)
    p *= 2;
  return p;
}

/// Reading a file as a table: drops every config not recorded at every shape of its dtype
/// (every shape with a recorded config), and warns with the count. Throws InputError when no
/// config is left.
void keep_recorded_everywhere(std::map<PairKey, MeasurementSummary>& pairs,
                              const std::string& path) {
  std::map<DType, std::set<ShapeKey>> shapes;
  std::map<std::pair<DType, Config>, std::size_t> count; // shapes each config is recorded at
  for (const auto& [k, m] : pairs) {
    const DType d = std::get<3>(std::get<0>(k));
    shapes[d].insert(std::get<0>(k));
    ++count[{d, std::get<1>(k)}];
  }
  std::set<std::pair<DType, Config>> partial;
  for (const auto& [dc, n] : count)
    if (n < shapes[dc.first].size()) partial.insert(dc);
  if (partial.empty()) return;
  if (partial.size() == count.size())
    throw InputError(fmt::format(
        "{}: read as a table, no config is recorded at every shape of its dtype (the file "
        "holds what measured runs happened to time: replay it with --backend replay:{}, or "
        "time a fixed set with tilevolve measure --configs sample:N)",
        path, path));
  for (auto it = pairs.begin(); it != pairs.end();)
    it = partial.count({std::get<3>(std::get<0>(it->first)), std::get<1>(it->first)})
             ? pairs.erase(it)
             : std::next(it);
  fmt::print(stderr,
             "tilevolve: warning: {}: read as a table, {} of its {} configs (per dtype) are "
             "recorded at only some shapes and are left out\n",
             path, partial.size(), count.size());
}

/// "a+b" for the files a.txt and b.txt.
std::string stems_of(const std::vector<std::string>& files) {
  std::vector<std::string> stems;
  for (const std::string& f : files)
    stems.push_back(std::filesystem::path(f).stem().string());
  return fmt::format("{}", fmt::join(stems, "+"));
}

} // namespace

std::vector<std::string> replay_paths(const std::string& path) {
  std::error_code ec;
  if (path.find(',') == std::string::npos || std::filesystem::exists(path, ec)) return {path};
  std::vector<std::string> files;
  std::size_t from = 0;
  while (true) {
    const std::size_t comma = path.find(',', from);
    files.push_back(path.substr(from, comma == std::string::npos ? comma : comma - from));
    if (files.back().empty())
      throw InputError(fmt::format("replay file list '{}': an empty file name (expected "
                                   "FILE or FILE,FILE,...)",
                                   path));
    if (comma == std::string::npos) return files;
    from = comma + 1;
  }
}

ReplayBackend::ReplayBackend(const std::string& path, const ReplayFilter& filter, const Gpu& gpu)
    : path_(path), source_(stems_of(replay_paths(path))), gpu_(gpu), table_(filter.table) {
  const std::vector<std::string> files = replay_paths(path);
  const std::string first = first_line_of(files.front());
  for (const std::string& f : files)
    if (files.size() > 1 && !looks_like_autoheuristic(first_line_of(f)))
      throw InputError(fmt::format("{}: replaying several files at once takes AutoHeuristic "
                                   "datasets only (their JSON line first); replay this file on "
                                   "its own",
                                   f));
  std::map<PairKey, MeasurementSummary> pairs;
  std::set<ShapeKey> keys;
  std::set<ShapeKey> full_size; // keys where Inductor shrinks no recorded config

  if (is_measurement_cache(first)) {
    const MeasurementFile file = load_measurement_file(path);
    print_warnings_once(file);
    v2_ = file.version >= 2 && !filter.table;
    layouts_ = file.version >= 2;
    std::set<std::string> gpus;
    std::set<std::pair<std::string, std::string>> families;        // (device, worker) of kept rows
    std::map<std::pair<ShapeKey, int>, MeasurementSummary> vendor; // by shape and sample
    for (const auto& r : file.records) {
      gpus.insert(r.gpu);
      if (r.gpu != gpu.name) continue;
      if (!filter.dtypes.empty() && !keeps(filter.dtypes, r.shape.dtype)) continue;
      const ShapeKey k = shape_key(r.shape);
      families.insert({r.device, r.worker});
      keys.insert(k);
      full_size.insert(k);
      // A table answers every sample with the median of them all: they are kept as sample 0.
      const int sample = filter.table ? 0 : r.sample;
      if (r.vendor) {
        vendor[{k, sample}].add(r.result);
        continue;
      }
      add_sample(pairs, {k, r.config, sample}, r.result.status, r.result.seconds, r.result.detail);
    }
    if (pairs.empty())
      throw InputError(fmt::format(
          "{}: no measurements for gpu '{}'{} (the file has gpus: {})", path, gpu.name,
          filter.dtypes.empty() ? std::string()
                                : fmt::format(" and dtypes {}", dtype_list(filter.dtypes)),
          fmt::join(gpus, ", ")));
    if (families.size() > 1) {
      std::vector<std::string> names;
      for (const auto& [d, w] : families)
        names.push_back(fmt::format("'{}' with '{}'", d, w));
      throw InputError(fmt::format(
          "{}: the '{}' rows were measured on {} device/worker combinations ({}); replay "
          "reads one: keep the lines of one (e.g. with grep) in a file of their own",
          path, gpu.name, families.size(), fmt::join(names, ", ")));
    }
    if (layouts_) device_ = families.begin()->first;
    if (filter.table) keep_recorded_everywhere(pairs, path);
    for (const auto& [k, summary] : vendor)
      if (const Measurement m = summary.result(); m.ok()) {
        if (k.second == 0)
          vendor_[k.first] = m.seconds;
        else
          vendor_samples_[k] = m.seconds;
      }
  } else if (looks_like_autoheuristic(first)) {
    autoheuristic_ = true;
    layouts_ = true;
    const bool all_layouts = filter.layout == "all";
    if (!all_layouts && !is_shape_layout(filter.layout))
      throw InputError(
          fmt::format("replay layout must be all, NN, NT, TN or TT, got '{}'", filter.layout));
    const std::vector<DType> dtypes =
        filter.dtypes.empty() ? std::vector<DType>{DType::bf16, DType::f16} : filter.dtypes;
    std::map<ShapeKey, std::vector<double>> vendor;
    int max_bm = 0, max_bn = 0, max_bk = 0;
    for (const std::string& file : files) {
      const std::string stem = std::filesystem::path(file).stem().string();
      const AutoHeuristicData data = load_autoheuristic_file(file);
      if (data.shared_memory && *data.shared_memory != gpu.shared_per_block)
        throw InputError(fmt::format(
            "{}: measured on a device with {} bytes of shared memory per block{}; the '{}' "
            "profile has {} (use --gpu with a matching profile, e.g. h100)",
            file, *data.shared_memory,
            data.device_capability
                ? fmt::format(" (compute capability {}.{})", data.device_capability->first,
                              data.device_capability->second)
                : std::string(),
            gpu.name, gpu.shared_per_block));
      if (data.device_capability && gpu.vendor != "nvidia")
        throw InputError(
            fmt::format("{}: measured on an NVIDIA GPU; '{}' is {}", file, gpu.name, gpu.vendor));
      for (const auto& r : data.rows) {
        // Strided operands ('S') are no layout a shape can name: never kept.
        if (!is_shape_layout(r.layout)) continue;
        if (!all_layouts && r.layout != filter.layout) continue;
        if (!keeps(dtypes, r.dtype)) continue;
        if (r.dtype == DType::f32 && r.tf32 != filter.tf32) continue;
        const ShapeKey k{r.M, r.N, r.K, r.dtype, r.layout};
        keys.insert(k);
        if (!r.config) {
          if (r.seconds) vendor[k].push_back(*r.seconds);
          continue;
        }
        max_bm = std::max(max_bm, r.config->BM);
        max_bn = std::max(max_bn, r.config->BN);
        max_bk = std::max(max_bk, r.config->BK);
        if (r.seconds)
          add_sample(pairs, {k, *r.config, 0}, MeasureStatus::ok, *r.seconds, "");
        else
          add_sample(pairs, {k, *r.config, 0}, MeasureStatus::unlaunchable,
                     std::numeric_limits<double>::infinity(),
                     fmt::format("recorded as failed (inf) in {}, line {}", stem, r.line));
      }
    }
    if (pairs.empty())
      throw InputError(fmt::format(
          "{}: no Triton rows with dtype {} and {}", path, dtype_list(dtypes),
          all_layouts ? std::string("layout NN, NT, TN or TT") : "layout " + filter.layout));
    for (const auto& [k, v] : vendor)
      vendor_[k] = median(v);
    for (const ShapeKey& k : keys)
      if (next_pow2(std::get<0>(k)) >= max_bm && next_pow2(std::get<1>(k)) >= max_bn &&
          next_pow2(std::get<2>(k)) >= max_bk)
        full_size.insert(k);
    if (full_size.empty()) full_size = keys; // small files: every recorded config counts
  } else {
    throw InputError(fmt::format("{}:1: unknown replay file format (expected '{}' or an "
                                 "AutoHeuristic dataset's JSON line)",
                                 path, kMeasurementCacheVersionLine));
  }

  std::set<Config> space;
  for (const auto& [pk, samples] : pairs) {
    results_.emplace(pk, samples.result());
    if (std::get<2>(pk) == 0 && full_size.count(std::get<0>(pk))) space.insert(std::get<1>(pk));
  }
  space_.assign(space.begin(), space.end());
  // A space config can time dtype d when some shape of d has an ok time for it (as launched).
  for (const ShapeKey& k : keys) {
    const Shape s = shape_of(k, true);
    for (const Config& c : space_)
      if (lookup(s, c, 0).ok()) space_ok_[s.dtype].insert(c);
  }
}

std::string ReplayBackend::name() const {
  return fmt::format("{}:{} ({})", table_ ? "table" : "replay", path_, gpu_.name);
}

Config ReplayBackend::launched_config(const Config& c, const Shape& s) const {
  if (!autoheuristic_) return c;
  return inductor_shrink(inductor_canonical(c), s.M, s.N, s.K);
}

Measurement ReplayBackend::lookup(const Shape& s, const Config& c, int sample) const {
  if (c.vendor) {
    Measurement m;
    std::optional<double> t = vendor_time(s);
    if (v2_ && sample > 0) { // a version-2 file records re-measurements of the library too
      auto it = vendor_samples_.find({shape_key(s), sample});
      t = it == vendor_samples_.end() ? std::nullopt : std::optional<double>(it->second);
    }
    if (t) {
      m.status = MeasureStatus::ok;
      m.seconds = *t;
    } else {
      m.detail = fmt::format("no vendor-library time{} for {}x{}x{} {} in {}",
                             sample > 0 ? fmt::format(" (sample {})", sample) : std::string(), s.M,
                             s.N, s.K, dtype_name(s.dtype), source_);
    }
    return m;
  }
  const Config launched = launched_config(c, s);
  auto it = results_.find({shape_key(s), launched, sample});
  // Files without samples (version 1, AutoHeuristic) answer every sample with their one value.
  if (it == results_.end() && !v2_) it = results_.find({shape_key(s), launched, 0});
  if (it != results_.end()) return it->second;
  Measurement m;
  m.status = MeasureStatus::unmeasured;
  m.detail = fmt::format("{} has no measurement{} for {}x{}x{} {}{} in {}", c.brief(),
                         sample > 0 ? fmt::format(" (sample {})", sample) : std::string(), s.M, s.N,
                         s.K, dtype_name(s.dtype),
                         layouts_ ? " " + std::get<4>(shape_key(s)) : std::string(), source_);
  if (autoheuristic_ && !(launched == inductor_canonical(c)))
    m.detail += fmt::format(" (Inductor launches it as {} on this shape)", launched.brief());
  return m;
}

std::vector<Measurement> ReplayBackend::time(const std::vector<TimingRequest>& batch) {
  std::vector<Measurement> out;
  out.reserve(batch.size());
  for (const auto& r : batch)
    out.push_back(lookup(r.shape, r.config, r.sample));
  return out;
}

std::optional<std::string> ReplayBackend::cannot_time(const Config& c, DType d) const {
  // A version-2 file is the record of a measured run, which could try any config: a config
  // it never measured comes back unmeasured when timed, as it would have been measured then.
  if (v2_) return std::nullopt;
  if (c.vendor) {
    for (const auto& [k, t] : vendor_)
      if (std::get<3>(k) == d) return std::nullopt;
    return fmt::format("{} has no vendor-library rows for {}", source_, dtype_name(d));
  }
  const auto list_space = [&] {
    std::vector<std::string> briefs;
    for (const Config& s : space_)
      briefs.push_back(s.brief());
    return fmt::format("{}", fmt::join(briefs, ", "));
  };
  if (autoheuristic_ && c.group != kInductorGroupM)
    return fmt::format("group={}: {} was measured by Inductor, which always launches with "
                       "GROUP_M={}; use group={} (the group does not change the recorded time)",
                       c.group, source_, kInductorGroupM, kInductorGroupM);
  const Config canon = autoheuristic_ ? inductor_canonical(c) : c;
  if (!std::binary_search(space_.begin(), space_.end(), canon))
    return fmt::format("{} has no recorded measurements in {} (configs: {})", canon.brief(),
                       source_, list_space());
  auto it = space_ok_.find(d);
  if (it == space_ok_.end()) {
    std::vector<DType> have;
    for (const auto& [dt, cs] : space_ok_)
      have.push_back(dt);
    return fmt::format("{} has no successful {} measurements (it has: {})", source_, dtype_name(d),
                       have.empty() ? std::string("none") : dtype_list(have));
  }
  if (!it->second.count(canon))
    return fmt::format("{} has only failed measurements for {} in {}", canon.brief(), dtype_name(d),
                       source_);
  return std::nullopt;
}

TimeTable ReplayBackend::table(const std::vector<Shape>& shapes) {
  TimeMatrix times(shapes.size(), space_.size());
  for (std::size_t r = 0; r < shapes.size(); ++r)
    for (std::size_t c = 0; c < space_.size(); ++c) {
      const Measurement m = lookup(shapes[r], space_[c], 0);
      times(r, c) = m.ok() ? m.seconds : std::numeric_limits<double>::infinity();
    }
  return TimeTable(shapes, space_, std::move(times), autoheuristic_);
}

std::vector<Shape> ReplayBackend::shapes() const {
  std::set<ShapeKey> keys;
  for (const auto& [pk, m] : results_)
    keys.insert(std::get<0>(pk));
  std::vector<Shape> out;
  for (const ShapeKey& k : keys) {
    Shape s = shape_of(k, layouts_);
    s.name = fmt::format("{}:{}:{}M{}:N{}:K{}", gpu_.name, dtype_name(s.dtype),
                         s.layout.empty() ? std::string() : s.layout + ":", s.M, s.N, s.K);
    out.push_back(std::move(s));
  }
  std::stable_sort(out.begin(), out.end(), [](const Shape& a, const Shape& b) {
    return std::make_tuple(dtype_name(a.dtype), a.layout, a.M, a.N, a.K) <
           std::make_tuple(dtype_name(b.dtype), b.layout, b.M, b.N, b.K);
  });
  return out;
}

std::optional<double> ReplayBackend::vendor_time(const Shape& s) const {
  auto it = vendor_.find(shape_key(s));
  if (it == vendor_.end()) return std::nullopt;
  return it->second;
}

std::string ReplayBackend::vendor_label() const {
  return device_.empty() ? "cuBLAS, recorded"
                         : fmt::format("torch.matmul on {}, recorded", device_);
}

} // namespace tv
