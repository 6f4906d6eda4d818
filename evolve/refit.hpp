#pragma once
/// Refitting a program from what a run has measured: a small decision tree over the training
/// shapes whose leaves are configs, chosen from the configs timed on those shapes so far (as a
/// kernel engineer reading a table of measurements would regroup the shapes). A pair that was
/// never timed is assumed `penalty` times slower than the fastest time seen for its shape, so
/// the fit prefers what was measured and the evaluation of the child measures the rest.
#include "evolve/mutator.hpp"
#include "ir/condition.hpp"
#include "ir/program.hpp"

#include <optional>
#include <vector>

namespace tv {

/// The knobs of one refit (the mock draws them per proposal).
struct RefitChoice {
  int max_leaves = 8;
  int min_leaf_shapes = 1;
  std::vector<Comparison> features; ///< what the tree may split on (ops and values ignored)
  double penalty = 1.25;            ///< assumed slowdown of an unmeasured pair (> 1)
  std::vector<bool> use;            ///< which feedback shapes take part (empty = all)
  int units = 0;     ///< the GPU's SM/CU count: thresholds at round values (see TreeOptions)
  int lookahead = 0; ///< TreeOptions::lookahead (0: greedy)
};

/// The refitted program, or nullopt when the feedback holds no measurement to fit.
std::optional<Program> refit_program(const std::vector<ShapeFeedback>& feedback,
                                     const RefitChoice& choice);
/// The refitted programs of 1, 2, ..., choice.max_leaves leaves from one fit (element L - 1 is
/// refit_program with max_leaves L); empty when the feedback holds no measurement to fit.
std::vector<Program> refit_sequence(const std::vector<ShapeFeedback>& feedback,
                                    const RefitChoice& choice);
} // namespace tv
