#include "evolve/measured_tree.hpp"

#include "eval/decision_tree.hpp"

#include <limits>
#include <optional>

namespace tv {

std::vector<ShapeFeedback> measured_feedback(const CascadeEvaluator& eval, const Problem& problem,
                                             const std::vector<Shape>& train_shapes) {
  std::vector<ShapeFeedback> feedback;
  for (std::size_t i = 0; i < problem.train_rows.size(); ++i) {
    ShapeFeedback f;
    f.shape = train_shapes[i];
    f.measured = eval.fastest(problem.train_rows[i], std::numeric_limits<std::size_t>::max());
    feedback.push_back(std::move(f));
  }
  return feedback;
}

Program measured_tree_of(const CascadeEvaluator& eval, const Problem& problem,
                         const std::vector<Shape>& train_shapes, int leaves, int lookahead,
                         const Gpu* model) {
  const std::vector<ShapeFeedback> feedback = measured_feedback(eval, problem, train_shapes);
  RefitChoice choice;
  choice.max_leaves = leaves;
  choice.lookahead = lookahead;
  choice.features = default_tree_features();
  choice.penalty = 1.25;
  choice.model = model;
  const std::optional<Program> tree = refit_program(feedback, choice);
  return tree ? *tree : problem.expert;
}

bool folds_by_size(const Problem& problem) {
  return problem.spec.split == "random-mnk" || problem.spec.split == "range";
}

} // namespace tv
