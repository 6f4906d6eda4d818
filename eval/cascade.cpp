#include "eval/cascade.hpp"

#include "ir/error.hpp"
#include "ir/hash.hpp"
#include "ir/text.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <map>
#include <set>

namespace tv {

namespace {

constexpr std::pair<Stage, std::string_view> kStages[] = {
    {Stage::mutator_failed, "mutator_failed"}, {Stage::diff_failed, "diff_failed"},
    {Stage::parse_failed, "parse_failed"},     {Stage::noop, "noop"},
    {Stage::static_reject, "static_reject"},   {Stage::probe_reject, "probe_reject"},
    {Stage::race_reject, "race_reject"},       {Stage::timing_failed, "timing_failed"},
    {Stage::over_budget, "over_budget"},       {Stage::full, "full"}};

/// Picks `count` training rows spanning log M from smallest to largest, preferring at each
/// step the (N, K) pair used least so far, so probes cover decode, mid and prefill and
/// different layers. Deterministic.
std::vector<std::size_t> choose_probes(const Problem& p, int count) {
  std::vector<std::size_t> rows = p.train_rows;
  if ((int)rows.size() <= count) return rows;
  double lo = 1e300, hi = -1e300;
  for (auto r : rows) {
    lo = std::min(lo, std::log(double(p.shape(r).M)));
    hi = std::max(hi, std::log(double(p.shape(r).M)));
  }
  std::vector<std::size_t> out;
  std::map<std::pair<std::int64_t, std::int64_t>, int> nk_used;
  for (int i = 0; i < count; ++i) {
    const double target = count == 1 ? lo : lo + (hi - lo) * i / (count - 1);
    std::size_t best = rows.front();
    double best_cost = 1e300;
    for (auto r : rows) {
      if (std::find(out.begin(), out.end(), r) != out.end()) continue;
      const Shape& s = p.shape(r);
      const double cost = std::abs(std::log(double(s.M)) - target) +
                          0.5 * nk_used[{s.N, s.K}]; // diversity of layers
      if (cost < best_cost) {
        best_cost = cost;
        best = r;
      }
    }
    out.push_back(best);
    nk_used[{p.shape(best).N, p.shape(best).K}]++;
  }
  return out;
}

} // namespace

std::string_view stage_name(Stage s) {
  for (const auto& [st, name] : kStages)
    if (st == s) return name;
  return "full";
}

bool parse_stage(std::string_view text, Stage& out) {
  for (const auto& [st, name] : kStages)
    if (name == text) {
      out = st;
      return true;
    }
  return false;
}

std::size_t CascadeEvaluator::KeyHash::operator()(const Key& k) const {
  // Only the cache's buckets depend on it (nothing iterates the cache), so a cheap mix of the
  // fields is enough: one finalizer, not one per field as hash_value(Config) does.
  const Config& c = k.config;
  auto opt = [](const std::optional<int>& o) {
    return o ? std::uint64_t(std::uint32_t(*o)) + 1 : 0;
  };
  std::uint64_t h = k.row;
  for (std::uint64_t v :
       {std::uint64_t(std::uint32_t(c.BM)), std::uint64_t(std::uint32_t(c.BN)),
        std::uint64_t(std::uint32_t(c.BK)), std::uint64_t(std::uint32_t(c.warps)),
        std::uint64_t(std::uint32_t(c.stages)), std::uint64_t(std::uint32_t(c.group)),
        opt(c.waves_per_eu), opt(c.matrix_instr_nonkdim), opt(c.kpack), std::uint64_t(c.vendor)})
    h = h * 0x100000001b3ULL + v;
  return std::size_t(hash_mix(h, 0));
}

CascadeEvaluator::CascadeEvaluator(const Problem& problem, CascadeOptions options)
    : problem_(&problem), options_(std::move(options)) {
  if (!options_.probe_shapes.empty()) {
    for (const auto& name : options_.probe_shapes) {
      const int r = problem.table->shape_index(name);
      if (r < 0 || std::find(problem.train_rows.begin(), problem.train_rows.end(),
                             std::size_t(r)) == problem.train_rows.end())
        throw InputError(fmt::format("probe shape '{}' is not a training shape", name));
      probe_rows_.push_back(std::size_t(r));
    }
  } else {
    probe_rows_ = choose_probes(problem, std::max(1, options_.probe_count));
  }
  if (options_.analytic_probes) {
    std::vector<Shape> shapes;
    std::vector<std::size_t> rows;
    for (auto r : probe_rows_) {
      rows.push_back(shapes.size());
      shapes.push_back(problem.shape(r));
    }
    probe_table_ = std::make_unique<TimeTable>(build_model_table(shapes, problem.gpu));
    probe_scorer_ = std::make_unique<Scorer>(*probe_table_, rows, problem.expert);
  } else {
    probe_scorer_ = std::make_unique<Scorer>(*problem.table, probe_rows_, problem.expert);
  }
}

CascadeEvaluator::~CascadeEvaluator() = default;

long long CascadeEvaluator::exhaustive_train_runs() const {
  // A table of what was measured holds only some configs; tuning would try them all.
  const long long configs =
      problem_->backend->complete_table()
          ? (long long)problem_->table->configs().size()
          : (long long)model_configs(problem_->gpu, problem_->dtypes()).size();
  return configs * (long long)problem_->train_rows.size();
}

std::string CascadeEvaluator::reason_category(const std::string& reason) {
  if (reason.find("registers per") != std::string::npos) return "registers";
  if (reason.find("shared memory") != std::string::npos || reason.find("LDS") != std::string::npos)
    return "shared memory";
  if (reason.find("threads per block") != std::string::npos) return "threads";
  if (reason.find("output elements") != std::string::npos ||
      reason.find("matrix instruction") != std::string::npos)
    return "tile split";
  if (reason.find("config space") != std::string::npos ||
      reason.find("AMD option") != std::string::npos)
    return "config space";
  return "backend";
}

bool CascadeEvaluator::time_rows(const Program& p, const std::vector<std::size_t>& rows,
                                 std::vector<double>& times, Evaluation& ev, std::string& reason) {
  times.assign(rows.size(), 0.0);
  std::vector<TimingRequest> batch;
  std::vector<Key> batch_keys;
  // Each row's cached measurement (null while it waits for the batch). Pointers to the
  // values of an unordered_map stay valid when it grows.
  std::vector<const Measurement*> found(rows.size(), nullptr);
  std::vector<std::size_t> pending; // positions in rows waiting for the batch
  for (std::size_t i = 0; i < rows.size(); ++i) {
    Key k{rows[i], p.choose(problem_->shape(rows[i]))};
    if (auto it = cache_.find(k); it != cache_.end()) {
      ++ev.cache_hits;
      found[i] = &it->second;
      continue;
    }
    // Two rows never share a key, so each missing pair is timed once per batch.
    batch.push_back({problem_->shape(rows[i]), k.config});
    batch_keys.push_back(std::move(k));
    pending.push_back(i);
  }
  if (!batch.empty()) {
    std::vector<Measurement> got = problem_->backend->time(batch);
    ev.kernel_runs += (long long)batch.size();
    for (std::size_t j = 0; j < batch.size(); ++j) {
      const auto it = cache_.emplace(batch_keys[j], got[j]).first;
      found[pending[j]] = &it->second;
      cache_order_.push_back(batch_keys[j]);
      remember(batch_keys[j], got[j]);
    }
  }
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const Measurement& m = *found[i];
    if (!m.ok()) {
      reason = fmt::format("{} with {}: {}{}", problem_->shape(rows[i]).label(),
                           p.choose(problem_->shape(rows[i])).brief(), status_name(m.status),
                           m.detail.empty() ? "" : " (" + m.detail + ")");
      return false;
    }
    times[i] = m.seconds;
  }
  return true;
}

long long CascadeEvaluator::uncached(const Program& p, const std::vector<std::size_t>& rows) const {
  long long n = 0; // rows are distinct, so their keys are
  for (std::size_t r : rows)
    n += cache_.count(Key{r, p.choose(problem_->shape(r))}) == 0 ? 1 : 0;
  return n;
}

bool CascadeEvaluator::fits(const Program& p, const std::vector<std::size_t>& rows,
                            long long max_new_pairs, const char* what, Evaluation& ev) const {
  if (max_new_pairs < 0) return true;
  const long long need = uncached(p, rows);
  const long long left = std::max(0LL, max_new_pairs - ev.kernel_runs);
  if (need <= left) return true;
  ev.stage = Stage::over_budget;
  ev.reason =
      fmt::format("its {} need {} new kernel runs and the run has {} left", what, need, left);
  return false;
}

Evaluation CascadeEvaluator::evaluate(const Program& p, double reference_probe,
                                      long long max_new_pairs, const Program* parent,
                                      long long race_from_new_pairs) {
  Evaluation ev;
  // Stage 0: static check, no timing.
  if (auto issues = problem_->static_issues(p); !issues.empty()) {
    ev.stage = Stage::static_reject;
    ev.reason = format_static_issues({issues.front()});
    if (!ev.reason.empty() && ev.reason.back() == '\n') ev.reason.pop_back();
    return ev;
  }
  std::vector<double> times;
  std::string why;
  // Stage 1: probe shapes.
  if (options_.enabled && options_.analytic_probes) {
    ev.probe = probe_scorer_->score(p);
    if (!ev.probe.valid) {
      ev.stage = Stage::timing_failed;
      ev.reason = "analytic probe: " + ev.probe.problem;
      return ev;
    }
    if (reference_probe > 0 &&
        ev.probe.speedup_vs_expert < (1.0 - options_.probe_margin) * reference_probe) {
      ev.stage = Stage::probe_reject;
      ev.reason =
          fmt::format("analytic probe speedup {:.3f} < {:.3f} x parent's {:.3f}",
                      ev.probe.speedup_vs_expert, 1.0 - options_.probe_margin, reference_probe);
      return ev;
    }
  } else if (options_.enabled) {
    if (!fits(p, probe_rows_, max_new_pairs, "probe shapes", ev)) return ev;
    if (!time_rows(p, probe_rows_, times, ev, why)) {
      ev.stage = Stage::timing_failed;
      ev.reason = why;
      return ev;
    }
    ev.probe = probe_scorer_->score_times(times);
    if (reference_probe > 0 &&
        ev.probe.speedup_vs_expert < (1.0 - options_.probe_margin) * reference_probe) {
      ev.stage = Stage::probe_reject;
      ev.reason =
          fmt::format("probe speedup {:.3f} < {:.3f} x parent's {:.3f}", ev.probe.speedup_vs_expert,
                      1.0 - options_.probe_margin, reference_probe);
      return ev;
    }
  }
  // Stage 2: all training shapes, raced against the parent first.
  if (!fits(p, problem_->train_rows, max_new_pairs, "training shapes", ev)) return ev;
  const long long before_race = ev.kernel_runs;
  if (parent && options_.enabled && options_.race_batch > 0 &&
      !race(p, *parent, ev, race_from_new_pairs))
    return ev;
  const long long raced = ev.kernel_runs - before_race; // timed by the race, not hits below
  if (!time_rows(p, problem_->train_rows, ev.train_times, ev, why)) {
    ev.stage = Stage::timing_failed;
    ev.reason = why;
    ev.train_times.clear();
    return ev;
  }
  ev.cache_hits -= raced;
  ev.train = problem_->train->score_times(ev.train_times);
  if (!options_.enabled) ev.probe = cached_probe_score(p);
  ev.stage = Stage::full;
  return ev;
}

Evaluation CascadeEvaluator::time_config(const Config& config, const std::vector<std::size_t>& rows,
                                         long long max_new_pairs) {
  Evaluation ev;
  Program p;
  p.default_config = config;
  if (auto issues = problem_->static_issues(p); !issues.empty()) {
    ev.stage = Stage::static_reject;
    ev.reason = format_static_issues({issues.front()});
    return ev;
  }
  if (!fits(p, rows, max_new_pairs, "shapes", ev)) return ev;
  std::string why;
  if (!time_rows(p, rows, ev.train_times, ev, why)) {
    ev.stage = Stage::timing_failed;
    ev.reason = why;
    ev.train_times.clear();
    return ev;
  }
  ev.stage = Stage::full;
  return ev;
}

std::vector<double> CascadeEvaluator::cached_times(const Program& p,
                                                   const std::vector<std::size_t>& rows) const {
  std::vector<double> times;
  times.reserve(rows.size());
  for (auto r : rows)
    times.push_back(cached_time(r, p.choose(problem_->shape(r))));
  return times;
}

double CascadeEvaluator::cached_time(std::size_t row, const Config& config) const {
  auto it = cache_.find(Key{row, config});
  return it != cache_.end() && it->second.ok() ? it->second.seconds
                                               : std::numeric_limits<double>::infinity();
}

bool CascadeEvaluator::timed(std::size_t row, const Config& config) const {
  return cache_.count(Key{row, config}) > 0;
}

SetScore CascadeEvaluator::cached_probe_score(const Program& p) const {
  if (options_.analytic_probes) return probe_scorer_->score(p);
  return probe_scorer_->score_times(cached_times(p, probe_rows_));
}

Evaluation CascadeEvaluator::confirm(const Program& p, const std::vector<double>& first,
                                     int samples) {
  Evaluation ev;
  const std::vector<std::size_t>& rows = problem_->train_rows;
  std::vector<TimingRequest> batch;
  for (int k = 1; k <= samples; ++k)
    for (auto r : rows)
      batch.push_back({problem_->shape(r), p.choose(problem_->shape(r)), k});
  const std::vector<Measurement> got = problem_->backend->time(batch);
  ev.kernel_runs = (long long)batch.size();
  std::vector<std::vector<double>> per_row(rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i)
    per_row[i].push_back(first.at(i));
  for (std::size_t j = 0; j < got.size(); ++j) {
    const std::size_t i = j % rows.size();
    if (!got[j].ok()) {
      ev.stage = Stage::timing_failed;
      ev.reason = fmt::format("{} with {}, sample {}: {}{}", batch[j].shape.label(),
                              batch[j].config.brief(), batch[j].sample, status_name(got[j].status),
                              got[j].detail.empty() ? "" : " (" + got[j].detail + ")");
      return ev;
    }
    per_row[i].push_back(got[j].seconds);
  }
  ev.train_times.resize(rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    std::vector<double>& v = per_row[i];
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    ev.train_times[i] = n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
  }
  ev.train = problem_->train->score_times(ev.train_times);
  ev.stage = Stage::full;
  return ev;
}

nlohmann::json CascadeEvaluator::cache_to_json(std::size_t from, std::size_t to) const {
  // Compact form: each distinct config once, with the rows measured for it.
  std::vector<Config> configs;
  std::map<Config, std::size_t> index;
  std::vector<std::vector<std::size_t>> rows;
  to = std::min(to, cache_order_.size());
  for (std::size_t i = std::min(from, to); i < to; ++i) {
    const Key& k = cache_order_[i];
    auto [it, fresh] = index.emplace(k.config, configs.size());
    if (fresh) {
      configs.push_back(k.config);
      rows.emplace_back();
    }
    rows[it->second].push_back(k.row);
  }
  nlohmann::json out = nlohmann::json::array();
  for (std::size_t i = 0; i < configs.size(); ++i)
    out.push_back({{"config", print_config(configs[i])}, {"rows", rows[i]}});
  return out;
}

std::vector<CascadeEvaluator::Key> CascadeEvaluator::cache_keys(const nlohmann::json& j) const {
  if (!j.is_array()) throw InputError("checkpoint cache: expected an array");
  std::vector<Key> keys;
  for (const auto& e : j) {
    if (!e.is_object() || !e.contains("config") || !e["config"].is_string() ||
        !e.contains("rows") || !e["rows"].is_array())
      throw InputError("checkpoint cache: each entry needs 'config' (text) and 'rows' (array)");
    std::string why;
    const std::optional<Config> config = parse_config(e["config"].get<std::string>(), &why);
    if (!config)
      throw InputError(fmt::format("checkpoint cache: bad config '{}': {}",
                                   e["config"].get<std::string>(), why));
    for (const auto& r : e["rows"]) {
      if (!r.is_number_unsigned() || r.get<std::size_t>() >= problem_->table->shapes().size())
        throw InputError("checkpoint cache: row index out of range");
      keys.push_back(Key{r.get<std::size_t>(), *config});
    }
  }
  return keys;
}

void CascadeEvaluator::cache_from_json(const nlohmann::json& j, bool add) {
  const std::vector<Key> keys = cache_keys(j);
  std::vector<TimingRequest> batch;
  batch.reserve(keys.size());
  for (const Key& k : keys)
    batch.push_back({problem_->shape(k.row), k.config});
  const std::vector<Measurement> got = problem_->backend->time(batch);
  if (!add) {
    cache_.clear();
    cache_order_.clear();
    ok_by_row_.clear();
    lists_.clear();
  }
  for (std::size_t i = 0; i < keys.size(); ++i)
    if (cache_.emplace(keys[i], got[i]).second) {
      cache_order_.push_back(keys[i]);
      remember(keys[i], got[i]);
    }
}

void CascadeEvaluator::remember(const Key& k, const Measurement& m) {
  if (!m.ok()) return;
  if (ok_by_row_.size() <= k.row) ok_by_row_.resize(problem_->table->shapes().size());
  auto& v = ok_by_row_[k.row];
  if (k.row < lists_.size()) lists_[k.row] = {}; // the row's shared list is out of date
  const std::pair<double, Config> e{m.seconds, k.config};
  v.insert(std::upper_bound(v.begin(), v.end(), e), e); // kept sorted: fastest first
}

std::vector<std::pair<double, Config>> CascadeEvaluator::fastest(std::size_t row,
                                                                 std::size_t k) const {
  if (row >= ok_by_row_.size()) return {};
  const auto& v = ok_by_row_[row];
  return {v.begin(), v.begin() + std::ptrdiff_t(std::min(k, v.size()))};
}

MeasuredConfigs CascadeEvaluator::fastest_list(std::size_t row, std::size_t k) {
  if (k == 0) return {};
  if (lists_.size() <= row) lists_.resize(problem_->table->shapes().size());
  if (row >= lists_.size()) return MeasuredConfigs(fastest(row, k));
  auto& [made_for, list] = lists_[row];
  if (made_for != k) {
    list = fastest(row, k);
    made_for = k;
  }
  return list;
}

} // namespace tv
