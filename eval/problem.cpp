#include "eval/problem.hpp"

#include "eval/backend_factory.hpp"
#include "eval/replay_backend.hpp"
#include "eval/replay_device.hpp"
#include "ir/error.hpp"
#include "ir/simplify.hpp"
#include "ir/text.hpp"
#include "models/analytic_model.hpp"
#include "models/data_dir.hpp"
#include "models/json_text.hpp"
#include "models/launch.hpp"
#include "models/shape_file.hpp"
#include "models/split.hpp"
#include "models/static_check.hpp"
#include "models/time_table.hpp"
#include "models/workloads/keep_threshold.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <limits>
#include <set>
#include <stdexcept>
#include <unordered_map>
#include <unordered_set>

namespace tv {

namespace {

/// Configs tried in turn for the expert on a shape where its own config is a poison pair.
constexpr std::size_t kPoisonStandIns = 8;

/// The expert's config on `s` is a poison pair (it crashes its worker): the expert takes the
/// fastest of the profile's kPoisonStandIns best-modelled configs that times on `s` there (a
/// rule for exactly that M, N and K, first in its program) and says so on stderr. False when
/// none of them times: no config of the shape can be timed.
bool stand_in_for_poison(Problem& p, const Shape& s, const Measurement& poison) {
  const Config own = p.expert.choose(s);
  std::vector<std::pair<double, Config>> ranked;
  for (const Config& c : model_configs(p.gpu, {s.dtype}))
    if (!(c == own)) ranked.emplace_back(model_time(s, c, p.gpu), c);
  std::sort(ranked.begin(), ranked.end());
  std::vector<TimingRequest> batch;
  for (std::size_t i = 0; i < ranked.size() && batch.size() < kPoisonStandIns; ++i)
    if (std::isfinite(ranked[i].first)) batch.push_back({s, ranked[i].second});
  const std::vector<Measurement> got = p.backend->time(batch);
  std::size_t best = batch.size();
  for (std::size_t i = 0; i < got.size(); ++i)
    if (got[i].ok() && (best == batch.size() || got[i].seconds < got[best].seconds)) best = i;
  if (best == batch.size()) return false;
  Rule r;
  for (const auto& [f, v] : {std::pair{Feature::M, s.M}, {Feature::N, s.N}, {Feature::K, s.K}}) {
    Comparison c;
    c.feature = f;
    c.op = CmpOp::eq;
    c.value = v;
    r.condition.terms.push_back(c);
  }
  r.config = batch[best].config;
  p.expert.rules.insert(p.expert.rules.begin(), r);
  fmt::print(stderr,
             "tilevolve: warning: {}: the expert's config {} on {} is a poison pair ({}); the "
             "expert uses {} there instead, the fastest that timed of the {} configs the "
             "analytic model ranks best\n",
             p.expert_path, own.brief(), s.label(), poison.detail, r.config.brief(), batch.size());
  return true;
}

/// The config of `space` nearest to `c`: the least sum of |log2| ratios of BM, BN, BK, warps
/// and stages, then of group (AMD knobs ignored); the first in `space` among equals.
Config nearest_config(const Config& c, const std::vector<Config>& space) {
  const auto dist = [&](const Config& s) {
    const auto d = [](int a, int b) { return std::abs(std::log2(double(a) / double(b))); };
    return std::pair{d(c.BM, s.BM) + d(c.BN, s.BN) + d(c.BK, s.BK) + d(c.warps, s.warps) +
                         d(c.stages, s.stages),
                     d(c.group, s.group)};
  };
  const Config* best = &space.front();
  for (const Config& s : space)
    if (dist(s) < dist(*best)) best = &s;
  return *best;
}

/// `prog` with each config that is not in `space` replaced by the nearest one that is; the
/// moves ("A -> B") go to `moves`.
Program moved_into(Program prog, const std::vector<Config>& space,
                   std::vector<std::string>& moves) {
  const auto move = [&](Config& c) {
    if (c.vendor || std::find(space.begin(), space.end(), c) != space.end()) return;
    const Config to = nearest_config(c, space);
    moves.push_back(fmt::format("{} -> {}", c.brief(), to.brief()));
    c = to;
  };
  for (Rule& r : prog.rules)
    move(r.config);
  move(prog.default_config);
  return prog;
}

/// `t` with one more column: the vendor library's time on every row, from `backend`; throws
/// InputError naming the first shape it has no time for.
TimeTable with_vendor_column(const TimeTable& t, const TimingBackend& backend,
                             const std::string& source) {
  const std::size_t rows = t.shapes().size(), cols = t.configs().size();
  std::vector<double> vendor(rows); // checked first: no copy of a table that cannot have one
  for (std::size_t r = 0; r < rows; ++r) {
    const auto v = backend.vendor_time(t.shapes()[r]);
    if (!v)
      throw InputError(fmt::format("--vendor-dispatch: {} has no vendor-library time for shape {} "
                                   "({}x{}x{} {})",
                                   source, t.shapes()[r].label(), t.shapes()[r].M, t.shapes()[r].N,
                                   t.shapes()[r].K, dtype_name(t.shapes()[r].dtype)));
    vendor[r] = *v;
  }
  TimeMatrix times(rows, cols + 1);
  for (std::size_t r = 0; r < rows; ++r) {
    for (std::size_t c = 0; c < cols; ++c)
      times(r, c) = t.time(r, c);
    times(r, cols) = vendor[r];
  }
  std::vector<Config> configs = t.configs();
  configs.push_back(vendor_config());
  return TimeTable(t.shapes(), std::move(configs), std::move(times), t.ignores_amd_knobs());
}

/// The backend's table over `rows`, with the vendor column when programs may dispatch to the
/// vendor library (a measuring backend measures the library on every row first).
std::unique_ptr<TimeTable> build_table(const Problem& p, const std::vector<Shape>& rows) {
  auto table = std::make_unique<TimeTable>(p.backend->table(rows));
  if (!p.spec.vendor_dispatch) return table;
  if (!p.backend->complete_table()) p.backend->time_vendor(rows);
  return std::make_unique<TimeTable>(with_vendor_column(*table, *p.backend, p.backend->name()));
}

/// Scores weigh each shape by weight / (sum of the half's weights): the sum must be finite and
/// positive. Names the shape source and the half, since the user cannot see the split.
void check_weights(const std::vector<Shape>& half, std::string_view which,
                   const std::string& source, const std::string& split) {
  double sum = 0;
  for (const Shape& s : half)
    sum += s.weight;
  if (half.empty())
    throw InputError(
        fmt::format("{}: the {} half of the split ({}) has no shapes", source, which, split));
  if (!std::isfinite(sum))
    throw InputError(fmt::format("{}: the weights of the {} half ({}) sum to more than {:g} (the "
                                 "largest double); scale them down (only their ratios matter)",
                                 source, which, split, std::numeric_limits<double>::max()));
  if (!(sum > 0))
    throw InputError(fmt::format("{}: every shape of the {} half ({}) has weight 0, so no score "
                                 "can be weighted on it; give some of its {} shapes a positive "
                                 "weight, or choose another split",
                                 source, which, split, half.size()));
}

} // namespace

namespace {

/// True when `c` cannot launch on `p`'s GPU for some dtype, or `p`'s backend cannot time it
/// (or it is the vendor library and vendor dispatch is off): what static_issues reports for a
/// live branch.
bool config_has_issue(const Problem& p, const Config& c) {
  if (c.vendor && !p.spec.vendor_dispatch) return true;
  for (DType d : p.dtypes())
    if (launch_problem(c, p.gpu, d) || p.backend->cannot_time(c, d)) return true;
  return false;
}

} // namespace

std::vector<StaticIssue> Problem::static_issues(const Program& prog) const {
  const auto& ds = dtypes_;
  // Issues come only from configs that have one: when no config the program names has one
  // (the common case), no live branch has one either, and the box arithmetic of
  // live_branches is not needed.
  std::vector<const Config*> distinct;
  bool any_issue = false;
  auto consider = [&](const Config& c) {
    for (const Config* d : distinct)
      if (*d == c) return;
    distinct.push_back(&c);
    any_issue = any_issue || config_has_issue(*this, c);
  };
  for (const Rule& r : prog.rules)
    consider(r.config);
  consider(prog.default_config);
  if (!any_issue) return {};
  const LiveBranches live = live_branches(prog);
  std::vector<StaticIssue> issues = static_check(prog, live, gpu, ds);
  if (!issues.empty()) return issues;
  std::vector<Config> reachable; // distinct, in order of first appearance
  std::unordered_set<Config> seen;
  for (std::size_t r : live.rules)
    if (seen.insert(prog.rules[r].config).second) reachable.push_back(prog.rules[r].config);
  if (live.default_live && seen.insert(prog.default_config).second)
    reachable.push_back(prog.default_config);
  for (const Config& c : reachable) {
    if (c.vendor && !spec.vendor_dispatch) {
      issues.push_back({-1, c,
                        "vendor dispatch is off (--vendor-dispatch lets a program return "
                        "\"vendor\" where the backend times the vendor library)"});
      continue;
    }
    for (DType d : ds)
      if (auto why = backend->cannot_time(c, d)) {
        issues.push_back({-1, c, *why});
        break;
      }
  }
  // Name the rule of each backend issue (the first live rule returning that config).
  if (issues.empty()) return issues;
  std::unordered_map<Config, int> first_rule;
  for (std::size_t r : live.rules)
    first_rule.emplace(prog.rules[r].config, int(r));
  for (auto& i : issues)
    if (auto it = first_rule.find(i.config); it != first_rule.end()) i.rule = it->second;
  return issues;
}

WorkloadSpec ProblemSpec::workload() const {
  WorkloadSpec w;
  w.shapes = shapes;
  w.workload_log = workload_log;
  w.model = model;
  w.tp = tp;
  w.tokens = tokens;
  w.inline_shapes = inline_shapes;
  return w;
}

nlohmann::json problem_spec_json(const ProblemSpec& s) {
  nlohmann::json j{{"gpu", s.gpu},        {"shapes", s.shapes},   {"test_shapes", s.test_shapes},
                   {"split", s.split},    {"split_seed", s.seed}, {"expert", s.expert},
                   {"backend", s.backend}};
  if (!s.workload_log.empty()) j["workload_log"] = s.workload_log;
  if (!s.model.empty()) j["model"] = s.model;
  if (s.tp != 0) j["tp"] = s.tp;
  if (!s.tokens.empty()) j["tokens"] = s.tokens;
  if (!s.inline_shapes.empty()) j["inline"] = s.inline_shapes;
  if (s.keep) j["keep"] = *s.keep;
  if (s.vendor_dispatch) j["vendor_dispatch"] = true;
  if (s.tree_leaves != 8) j["tree_leaves"] = s.tree_leaves;
  return j;
}

ProblemSpec problem_spec_from_json(const nlohmann::json& j, const std::string& source) {
  if (!j.is_object())
    throw InputError(fmt::format("{}: bad problem description (expected an object)", source));
  // Each key, when present, must have exactly the type it is written with (a checked read:
  // nlohmann's value<T>() would cast 1e30 to an integer, undefined behaviour).
  const auto get = [&](const char* key, auto fallback) {
    using T = decltype(fallback);
    const auto it = j.find(key);
    if (it == j.end()) return fallback;
    if (const std::string why = json_type_problem<T>(*it); !why.empty())
      throw InputError(fmt::format("{}: bad problem description: '{}': {}", source, key, why));
    return it->template get<T>();
  };
  ProblemSpec s;
  s.gpu = get("gpu", std::string());
  s.shapes = get("shapes", std::string());
  s.test_shapes = get("test_shapes", std::string());
  s.split = get("split", std::string("random"));
  s.seed = get("split_seed", std::uint64_t(0));
  s.expert = get("expert", std::string());
  s.backend = get("backend", std::string("analytic"));
  s.workload_log = get("workload_log", std::string());
  s.model = get("model", std::string());
  s.tp = get("tp", 0);
  s.tokens = get("tokens", std::string());
  s.inline_shapes = get("inline", std::vector<std::string>{});
  if (j.contains("keep")) s.keep = get("keep", 0.0);
  s.vendor_dispatch = get("vendor_dispatch", false);
  s.tree_leaves = get("tree_leaves", 8);
  if (s.tree_leaves < 1 || s.tree_leaves > kMaxTreeLeaves)
    throw InputError(fmt::format("{}: bad problem description: 'tree_leaves' must be 1 to {}, "
                                 "got {}",
                                 source, kMaxTreeLeaves, s.tree_leaves));
  return s;
}

std::unique_ptr<Problem> load_problem(const ProblemSpec& spec) {
  auto p = std::make_unique<Problem>();
  p->spec = spec;
  // The GPU: as given, or the profile that fits the device a replay file was measured on.
  const std::optional<std::string> replay_file = replay_file_of(spec.backend);
  if (spec.gpu_is_default && replay_file && !replay_file->empty())
    if (const auto d = replay_device(*replay_file)) {
      p->spec.gpu = d->gpu;
      p->notes.push_back(d->note);
    }
  p->spec.gpu_is_default = false; // from here on the spec names the profile it used
  p->gpu = find_gpu(p->spec.gpu);
  p->backend = make_backend(spec.backend, p->gpu, spec.workers, spec.cache);
  // A replay of a complete recorded table brings its shapes and expert; a replay of a
  // measured run's file (complete_table() false) takes the measured run's defaults, so that
  // it repeats that run.
  const auto* replay = dynamic_cast<const ReplayBackend*>(p->backend.get());
  if (replay && !replay->complete_table()) replay = nullptr;

  // The shapes: the one source given, else a replay file's keys, else the lecture set.
  std::vector<Shape> shapes;
  if (auto w = load_workload(spec.workload())) {
    shapes = std::move(w->shapes);
    p->shapes_path = w->source;
    if (!w->note.empty()) p->notes.push_back(w->note);
  } else if (replay) {
    shapes = replay->shapes();
    p->shapes_path = "the keys of " + *replay_file;
    p->notes.push_back(fmt::format("shapes: the {} keys (M, N, K, dtype{}) recorded in {}",
                                   shapes.size(), replay->autoheuristic() ? ", layout" : "",
                                   *replay_file));
  } else {
    p->shapes_path = data_path("shapes/lecture.csv");
    shapes = load_shape_file(p->shapes_path);
  }
  if (spec.keep) {
    const KeepResult k = keep_time_share(shapes, estimated_seconds(shapes, p->gpu), *spec.keep);
    shapes = k.kept;
    p->notes.push_back(fmt::format("--keep {}: {} (estimated time: weight x the analytic {} "
                                   "model's fastest config)",
                                   *spec.keep, k.summary(), p->gpu.name));
  }

  // The expert: as given, or the lecture's, in the form that fits the GPU or the config space.
  if (!spec.expert.empty()) {
    p->expert_path = spec.expert;
  } else if (replay && replay->autoheuristic()) {
    p->expert_path = data_path("experts/h100_inductor.py");
    p->notes.push_back("expert: the lecture's expert in the config space of Inductor's mm "
                       "candidates (data/experts/h100_inductor.py), the default for "
                       "AutoHeuristic replay data");
  } else {
    p->expert_path = p->gpu.vendor == "amd" ? data_path("experts/lecture_amd.py")
                                            : data_path("experts/lecture.py");
  }
  p->expert = load_program_file(p->expert_path);
  // A table of our own format holds the configs someone chose to measure: the lecture's
  // expert takes the nearest of them where its own are not there.
  if (spec.expert.empty() && replay && !replay->autoheuristic() && !replay->configs().empty()) {
    std::vector<std::string> moves;
    p->expert = moved_into(p->expert, replay->configs(), moves);
    if (!moves.empty())
      p->notes.push_back(fmt::format("expert: {} with each config the table lacks replaced by "
                                     "its nearest of the table's {} ({}); --expert gives another",
                                     p->expert_path, replay->configs().size(),
                                     fmt::join(moves, ", ")));
  }

  std::vector<Shape> train, test;
  if (!spec.test_shapes.empty()) {
    p->test_shapes_path = spec.test_shapes;
    train = shapes;
    test = load_shape_file(spec.test_shapes);
    p->split_description = fmt::format("train on {} ({} shapes), test on {} ({} shapes)",
                                       p->shapes_path, train.size(), spec.test_shapes, test.size());
  } else {
    Split s = make_split(shapes, spec.split, spec.seed);
    train = std::move(s.train);
    test = std::move(s.test);
    p->split_description = s.description;
    p->source_shapes = shapes; // what resplit() splits again
  }

  check_weights(train, "training", p->shapes_path, p->split_description);
  check_weights(test, "test", p->test_shapes_path.empty() ? p->shapes_path : p->test_shapes_path,
                p->split_description);

  // One table row per distinct shape label; a split "none" shares rows between halves.
  std::vector<Shape> rows;
  std::unordered_map<std::string, std::size_t> by_label;
  auto row_of = [&](const Shape& s) -> std::size_t {
    auto [it, fresh] = by_label.emplace(s.label(), rows.size());
    if (fresh) {
      rows.push_back(s);
    } else if (!(rows[it->second] == s)) {
      throw InputError(fmt::format("shape name '{}' is used for two different shapes "
                                   "(train and test files must not reuse names)",
                                   s.label()));
    }
    return it->second;
  };
  for (const auto& s : train)
    p->train_rows.push_back(row_of(s));
  for (const auto& s : test)
    p->test_rows.push_back(row_of(s));

  for (const auto& s : rows)
    if (std::find(p->dtypes_.begin(), p->dtypes_.end(), s.dtype) == p->dtypes_.end())
      p->dtypes_.push_back(s.dtype);
  if (auto issues = p->static_issues(p->expert); !issues.empty())
    throw InputError(fmt::format("{}: the expert program cannot run on {} with backend {}:\n{}",
                                 p->expert_path, p->gpu.name, p->backend->name(),
                                 format_static_issues(issues)));
  if (!p->backend->complete_table()) {
    // Only what is measured is in the table: the expert, the reference of every score, first.
    std::vector<TimingRequest> batch;
    for (const Shape& s : rows)
      batch.push_back({s, p->expert.choose(s)});
    const std::vector<Measurement> got = p->backend->time(batch);
    for (std::size_t i = 0; i < got.size(); ++i) {
      if (got[i].ok()) continue;
      if (got[i].status == MeasureStatus::crash && stand_in_for_poison(*p, batch[i].shape, got[i]))
        continue;
      throw InputError(fmt::format(
          "{}: the expert program does not time on {} with {}: {}{}{}", p->expert_path,
          batch[i].shape.label(), batch[i].config.brief(), status_name(got[i].status),
          got[i].detail.empty() ? "" : " (" + got[i].detail + ")",
          got[i].status == MeasureStatus::unmeasured ? table_hint(spec.backend) : std::string()));
    }
  }
  p->table = build_table(*p, rows);

  p->train = std::make_unique<Scorer>(*p->table, p->train_rows, p->expert);
  p->test = std::make_unique<Scorer>(*p->table, p->test_rows, p->expert);
  return p;
}

void refresh_table(Problem& p, const std::vector<Program>& programs, bool full) {
  if (p.backend->complete_table()) return;
  const std::vector<Shape>& rows = p.table->shapes();
  std::vector<TimingRequest> batch;
  std::set<std::pair<std::size_t, Config>> seen;
  const auto add = [&](std::size_t r, const Config& c) {
    if (seen.insert({r, c}).second) batch.push_back({rows[r], c});
  };
  for (const Program& prog : programs)
    for (std::size_t r = 0; r < rows.size(); ++r)
      add(r, prog.choose(rows[r]));
  if (full)
    for (const Config& c : model_configs(p.gpu, p.dtypes()))
      for (std::size_t r = 0; r < rows.size(); ++r)
        add(r, c);
  if (!batch.empty()) p.backend->time(batch); // failures stay out of the table (+inf)
  auto table = build_table(p, rows);
  auto train = std::make_unique<Scorer>(*table, p.train_rows, p.expert);
  auto test = std::make_unique<Scorer>(*table, p.test_rows, p.expert);
  p.train = std::move(train);
  p.test = std::move(test);
  p.table = std::move(table);
}

namespace {

/// A problem on p's table, backend, GPU and expert, without rows or scorers yet.
std::unique_ptr<Problem> same_table(const Problem& p) {
  auto q = std::make_unique<Problem>();
  q->spec = p.spec;
  q->shapes_path = p.shapes_path;
  q->test_shapes_path = p.test_shapes_path;
  q->expert_path = p.expert_path;
  q->gpu = p.gpu;
  q->expert = p.expert;
  q->split_description = p.split_description;
  q->notes = p.notes;
  q->backend = p.backend;
  q->table = p.table;
  q->source_shapes = p.source_shapes;
  return q;
}

} // namespace

std::unique_ptr<Problem> sub_problem(const Problem& p, std::vector<std::size_t> train_rows,
                                     std::vector<std::size_t> test_rows) {
  if (train_rows.empty() || test_rows.empty())
    throw InputError("a sub-problem needs training and test shapes");
  for (const auto& rows : {train_rows, test_rows})
    for (std::size_t r : rows)
      if (r >= p.table->shapes().size())
        throw InputError(fmt::format("a sub-problem names row {} of a table of {} shapes", r,
                                     p.table->shapes().size()));
  auto q = same_table(p);
  q->train_rows = std::move(train_rows);
  q->test_rows = std::move(test_rows);
  q->train = std::make_unique<Scorer>(*q->table, q->train_rows, q->expert);
  q->test = std::make_unique<Scorer>(*q->table, q->test_rows, q->expert);
  q->dtypes_ = p.dtypes_;
  return q;
}

bool can_resplit(const Problem& p) {
  return p.test_shapes_path.empty() && !p.source_shapes.empty() && p.backend->complete_table();
}

std::unique_ptr<Problem> resplit(const Problem& p, const std::string& split, std::uint64_t seed) {
  if (!can_resplit(p))
    throw std::invalid_argument("resplit: the problem has a test file, or a backend whose table "
                                "holds only what it measured");
  auto q = same_table(p);
  q->spec.split = split;
  q->spec.seed = seed;
  Split s = make_split(p.source_shapes, split, seed);
  q->split_description = s.description;
  check_weights(s.train, "training", q->shapes_path, q->split_description);
  check_weights(s.test, "test", q->shapes_path, q->split_description);
  std::unordered_map<std::string, std::size_t> row_of;
  for (std::size_t r = 0; r < p.table->shapes().size(); ++r)
    row_of.emplace(p.table->shapes()[r].label(), r);
  for (auto [half, rows] : {std::pair{&s.train, &q->train_rows}, {&s.test, &q->test_rows}})
    for (const Shape& sh : *half)
      rows->push_back(row_of.at(sh.label())); // the same shapes: every label has its row
  // The dtypes in the order a fresh load finds them (training shapes first).
  for (const auto* half : {&s.train, &s.test})
    for (const Shape& sh : *half)
      if (std::find(q->dtypes_.begin(), q->dtypes_.end(), sh.dtype) == q->dtypes_.end())
        q->dtypes_.push_back(sh.dtype);
  q->train = std::make_unique<Scorer>(*q->table, q->train_rows, q->expert);
  q->test = std::make_unique<Scorer>(*q->table, q->test_rows, q->expert);
  return q;
}

long long full_table_pairs(const Problem& p) {
  return (long long)model_configs(p.gpu, p.dtypes()).size() * (long long)p.table->shapes().size();
}

} // namespace tv
