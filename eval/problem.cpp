#include "eval/problem.hpp"

#include "eval/backend_factory.hpp"
#include "ir/error.hpp"
#include "ir/simplify.hpp"
#include "ir/text.hpp"
#include "models/data_dir.hpp"
#include "models/shape_file.hpp"
#include "models/split.hpp"
#include "models/static_check.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <unordered_map>

namespace tv {

namespace {

/// `t` with one more column: the vendor library's time on every row, from `backend`; throws
/// InputError naming the first shape it has no time for.
TimeTable with_vendor_column(const TimeTable& t, const TimingBackend& backend,
                             const std::string& source) {
  const std::size_t rows = t.shapes().size(), cols = t.configs().size();
  xt::xtensor<double, 2> times({rows, cols + 1});
  for (std::size_t r = 0; r < rows; ++r) {
    for (std::size_t c = 0; c < cols; ++c)
      times(r, c) = t.time(r, c);
    const auto v = backend.vendor_time(t.shapes()[r]);
    if (!v)
      throw InputError(fmt::format("--vendor-dispatch: {} has no vendor-library time for shape {} "
                                   "({}x{}x{} {})",
                                   source, t.shapes()[r].label(), t.shapes()[r].M, t.shapes()[r].N,
                                   t.shapes()[r].K, dtype_name(t.shapes()[r].dtype)));
    times(r, cols) = *v;
  }
  std::vector<Config> configs = t.configs();
  configs.push_back(vendor_config());
  return TimeTable(t.shapes(), std::move(configs), std::move(times), t.ignores_amd_knobs());
}

} // namespace

std::vector<StaticIssue> Problem::static_issues(const Program& prog) const {
  const auto& ds = dtypes_;
  std::vector<StaticIssue> issues = static_check(prog, gpu, ds);
  if (!issues.empty()) return issues;
  for (const Config& c : reachable_configs(prog)) {
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
  for (auto& i : issues)
    for (std::size_t r = 0; r < prog.rules.size(); ++r)
      if (prog.rules[r].config == i.config && !effective_region(prog, r).empty()) {
        i.rule = int(r);
        break;
      }
  return issues;
}

std::unique_ptr<Problem> load_problem(const ProblemSpec& spec) {
  auto p = std::make_unique<Problem>();
  p->spec = spec;
  p->gpu = find_gpu(spec.gpu);
  p->backend = make_backend(spec.backend, p->gpu);
  p->shapes_path = spec.shapes.empty() ? data_path("shapes/lecture.csv") : spec.shapes;
  // The lecture's expert, in its AMD form (2 stages) on AMD GPUs, unless one is given.
  p->expert_path = !spec.expert.empty()     ? spec.expert
                   : p->gpu.vendor == "amd" ? data_path("experts/lecture_amd.py")
                                            : data_path("experts/lecture.py");
  p->expert = load_program_file(p->expert_path);

  const std::vector<Shape> shapes = load_shape_file(p->shapes_path);
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
  }

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

  p->table = std::make_unique<TimeTable>(p->backend->table(rows));
  if (spec.vendor_dispatch)
    p->table =
        std::make_unique<TimeTable>(with_vendor_column(*p->table, *p->backend, p->backend->name()));
  for (const auto& s : rows)
    if (std::find(p->dtypes_.begin(), p->dtypes_.end(), s.dtype) == p->dtypes_.end())
      p->dtypes_.push_back(s.dtype);
  if (auto issues = p->static_issues(p->expert); !issues.empty())
    throw InputError(fmt::format("{}: the expert program cannot run on {} with backend {}:\n{}",
                                 p->expert_path, p->gpu.name, p->backend->name(),
                                 format_static_issues(issues)));

  p->train = std::make_unique<Scorer>(*p->table, p->train_rows, p->expert);
  p->test = std::make_unique<Scorer>(*p->table, p->test_rows, p->expert);
  return p;
}

} // namespace tv
