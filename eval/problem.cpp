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
#include <set>
#include <unordered_map>

namespace tv {

std::vector<StaticIssue> Problem::static_issues(const Program& prog) const {
  const auto& ds = dtypes_;
  std::vector<StaticIssue> issues = static_check(prog, gpu, ds);
  if (!issues.empty()) return issues;
  for (const Config& c : reachable_configs(prog))
    for (DType d : ds)
      if (auto why = backend->cannot_time(c, d)) {
        issues.push_back({-1, c, *why});
        break;
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
  p->backend = make_backend(spec.backend, p->gpu, spec.workers, spec.cache);
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
    for (std::size_t i = 0; i < got.size(); ++i)
      if (!got[i].ok())
        throw InputError(fmt::format("{}: the expert program does not time on {} with {}: {}{}",
                                     p->expert_path, batch[i].shape.label(),
                                     batch[i].config.brief(), status_name(got[i].status),
                                     got[i].detail.empty() ? "" : " (" + got[i].detail + ")"));
  }
  p->table = std::make_unique<TimeTable>(p->backend->table(rows));

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
  auto table = std::make_unique<TimeTable>(p.backend->table(rows));
  auto train = std::make_unique<Scorer>(*table, p.train_rows, p.expert);
  auto test = std::make_unique<Scorer>(*table, p.test_rows, p.expert);
  p.train = std::move(train);
  p.test = std::move(test);
  p.table = std::move(table);
}

long long full_table_pairs(const Problem& p) {
  return (long long)model_configs(p.gpu, p.dtypes()).size() * (long long)p.table->shapes().size();
}

} // namespace tv
