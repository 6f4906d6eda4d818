#pragma once
/// A problem's shapes against a program's training range (ir/training_range.hpp): the range
/// over the problem's training shapes, and which test shapes lie outside it, for the run's
/// summary, its per-shape view and its exports.
#include "eval/problem.hpp"
#include "ir/training_range.hpp"

#include <cstddef>
#include <vector>

namespace tv {

/// The training range of `program` over the training shapes of `problem`.
TrainingRange problem_training_range(const Problem& problem, const Program& program);

/// How many test shapes of `problem` lie outside `range` of `program`.
struct TestCoverage {
  std::size_t shapes = 0;  ///< test shapes (table rows)
  std::size_t outside = 0; ///< of them outside the training range
};

/// The test shapes of `problem` against `range` (computed for `program`).
TestCoverage test_coverage(const Problem& problem, const Program& program,
                           const TrainingRange& range);

} // namespace tv
