#include "eval/problem.hpp"

#include "ir/error.hpp"
#include "ir/text.hpp"
#include "models/data_dir.hpp"
#include "models/shape_file.hpp"
#include "models/split.hpp"
#include "models/static_check.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <unordered_map>

namespace tv {

std::vector<DType> Problem::dtypes() const {
  std::vector<DType> out;
  for (const auto& s : table->shapes())
    if (std::find(out.begin(), out.end(), s.dtype) == out.end()) out.push_back(s.dtype);
  return out;
}

std::unique_ptr<Problem> load_problem(const ProblemSpec& spec) {
  auto p = std::make_unique<Problem>();
  p->spec = spec;
  p->gpu = find_gpu(spec.gpu);
  p->shapes_path = spec.shapes.empty() ? data_path("shapes/lecture.csv") : spec.shapes;
  // The lecture's expert, in its AMD form (2 stages) on AMD GPUs, unless one is given.
  p->expert_path = !spec.expert.empty()      ? spec.expert
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
  for (const auto& s : train) p->train_rows.push_back(row_of(s));
  for (const auto& s : test) p->test_rows.push_back(row_of(s));

  std::vector<DType> dtypes;
  for (const auto& s : rows)
    if (std::find(dtypes.begin(), dtypes.end(), s.dtype) == dtypes.end()) dtypes.push_back(s.dtype);
  if (auto issues = static_check(p->expert, p->gpu, dtypes); !issues.empty())
    throw InputError(fmt::format("{}: the expert program cannot launch on {}:\n{}", p->expert_path,
                                 p->gpu.name, format_static_issues(issues)));

  p->table = std::make_unique<TimeTable>(build_model_table(rows, p->gpu));
  p->train = std::make_unique<Scorer>(*p->table, p->train_rows, p->expert);
  p->test = std::make_unique<Scorer>(*p->table, p->test_rows, p->expert);
  return p;
}

} // namespace tv
