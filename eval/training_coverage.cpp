#include "eval/training_coverage.hpp"

namespace tv {

TrainingRange problem_training_range(const Problem& problem, const Program& program) {
  std::vector<Shape> shapes;
  shapes.reserve(problem.train_rows.size());
  for (const std::size_t r : problem.train_rows)
    shapes.push_back(problem.shape(r));
  return training_range(program, shapes);
}

TestCoverage test_coverage(const Problem& problem, const Program& program,
                           const TrainingRange& range) {
  TestCoverage c;
  for (const std::size_t r : problem.test_rows) {
    ++c.shapes;
    if (!range.contains(program, problem.shape(r))) ++c.outside;
  }
  return c;
}

} // namespace tv
