#pragma once
/// The summary of a run, as JSON and as a text report, beside the baselines.
#include "eval/baselines.hpp"
#include "eval/problem.hpp"
#include "evolve/evolution.hpp"

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace tv {

/// One object: problem, best program (text and simplified), train/test figures, baselines in
/// the same form, counters (total and per operator), improvements, cost figures.
nlohmann::json summary_json(const Problem& problem, const EvolutionResult& r,
                            const std::vector<MethodResult>& baselines);
/// The decision tree fitted on the pairs the run timed (EvolutionResult::cost_matched_tree) as
/// a method row, key "tree_cost_matched".
MethodResult cost_matched_method(const Problem& problem, const EvolutionResult& r);
/// What the model prior did (EvolutionOptions::model_prior): the analytic model's agreement with
/// the run's timings and whether refits leaned on it; empty when the run timed no two configs
/// on one shape that the model can compare.
std::string model_prior_text(const EvolutionResult& r);
/// What the comparison on sampled sizes found; empty when it did not run.
std::string sampled_text(const EvolutionResult& r);
/// Test shapes listed each way (largest losses, largest gains) against the decision tree.
inline constexpr std::size_t kTestGapShapes = 3;
/// Where the result and the decision-tree baseline part on the test shapes (shape_gaps): how
/// many shapes choose differently, the points gained and lost, and the shapes that lose and
/// gain most; empty without test shapes of their own (split "none") or a tree with a valid
/// test score.
std::string test_gaps_text(const Problem& problem, const EvolutionResult& r,
                           const std::vector<MethodResult>& baselines);
/// How many test shapes lie outside the training range of the result (its simplified form, which
/// the exports ship); empty without test shapes of their own.
std::string training_range_summary(const Problem& problem, const EvolutionResult& r);
/// The full end-of-run account (summary.txt, `evolve --explain`): the table, the program and the
/// edit that made it, where it parts from the tree, what each pass did, the cost.
std::string summary_text(const Problem& problem, const EvolutionResult& r,
                         const std::vector<MethodResult>& baselines);
/// The end-of-run report a terminal shows by default: what ran, the table (fractions of the
/// oracle and kernel runs), the program, and one line on how it was chosen; at most 100 columns
/// but for the program's own lines.
std::string brief_summary_text(const Problem& problem, const EvolutionResult& r,
                               const std::vector<MethodResult>& baselines);
/// One line (wrapped at 100 columns): where the result came from and which passes changed it,
/// and what the floor found.
std::string chosen_line(const EvolutionResult& r);

} // namespace tv
