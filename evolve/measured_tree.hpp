#pragma once
/// What a run's own measurements say, for the refits after the search: per training shape the
/// configs it timed, and the decision tree fitted on those pairs alone (the tree a user with the
/// same kernel runs would get).
#include "eval/cascade.hpp"
#include "eval/problem.hpp"
#include "evolve/refit.hpp"

#include <vector>

namespace tv {

/// Per training shape (problem.train_rows order, `train_shapes` their shapes), the configs the
/// run measured on it, the fastest first.
std::vector<ShapeFeedback> measured_feedback(const CascadeEvaluator& eval, const Problem& problem,
                                             const std::vector<Shape>& train_shapes);

/// A decision tree of at most `leaves` leaves fitted only on the pairs the run timed (refit.hpp:
/// a pair it did not time counts as 1.25 x the shape's fastest timed one), grown with
/// `lookahead` (0: greedy); `model`: the device whose analytic model may weigh in
/// (RefitChoice::model), or nullptr. The expert when no tree can be fitted.
Program measured_tree_of(const CascadeEvaluator& eval, const Problem& problem,
                         const std::vector<Shape>& train_shapes, int leaves, int lookahead,
                         const Gpu* model);

/// Whether folds of the training shapes keep each (M, N, K)'s shapes together: they mirror the
/// split, and a split that holds out whole sizes (random-mnk, range) has unseen sizes in its
/// test half.
bool folds_by_size(const Problem& problem);

} // namespace tv
