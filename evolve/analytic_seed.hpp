#pragma once
/// The analytic seed: on recorded timings, a run starts from the expert and also from the
/// decision tree the analytic model of the GPU fits on the training shapes, a prior that
/// costs no kernel run to choose. Timing it costs at most one pair per training shape, and the
/// run races it against the expert (Evolution::seed_run), so where the model is a poor guide
/// to the table it is stopped after a few pairs.
#include "eval/problem.hpp"
#include "ir/program.hpp"

#include <optional>
#include <vector>

namespace tv {

/// True when a run on `problem` may take the analytic seed: its timings come from a complete
/// table (recorded AutoHeuristic data, a `table:` file) and not from the analytic model itself.
bool analytic_seed_applies(const Problem& problem);

/// The decision tree of at most `max_leaves` leaves (refit_program) fitted on the analytic
/// model's times of the table's configs on `train_shapes` (table rows problem.train_rows),
/// each shape's candidates being the configs the table can run there (never the vendor
/// library); nullopt when no shape has one.
std::optional<Program> analytic_seed_tree(const Problem& problem,
                                          const std::vector<Shape>& train_shapes, int max_leaves);

} // namespace tv
