#include "evolve/analytic_seed.hpp"

#include "eval/analytic_backend.hpp"
#include "eval/decision_tree.hpp"
#include "evolve/model_times.hpp"
#include "evolve/refit.hpp"
#include "models/analytic_model.hpp"

#include <algorithm>
#include <cmath>

namespace tv {

bool analytic_seed_applies(const Problem& problem) {
  return problem.backend && problem.table && problem.backend->complete_table() &&
         !is_analytic(problem.backend.get());
}

std::optional<Program> analytic_seed_tree(const Problem& problem,
                                          const std::vector<Shape>& train_shapes, int max_leaves) {
  const std::vector<Config> space = config_space(problem); // the table's: it is complete
  const std::vector<std::vector<double>> times = model_times(problem, train_shapes);
  std::vector<ShapeFeedback> feedback;
  for (std::size_t i = 0; i < times.size(); ++i) {
    ShapeFeedback f;
    f.shape = train_shapes[i];
    std::vector<MeasuredConfigs::Entry> predicted;
    // The model knows nothing of the vendor library (model_times prices a stand-in).
    for (std::size_t k = 0; k < space.size(); ++k)
      if (!space[k].vendor && std::isfinite(times[i][k]))
        predicted.emplace_back(times[i][k], space[k]);
    if (predicted.empty()) continue; // nothing the table runs here: the tree ignores the shape
    std::stable_sort(predicted.begin(), predicted.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    f.config = predicted.front().second;
    f.seconds = f.best_seconds = predicted.front().first;
    f.best_config = predicted.front().second;
    // The refit scores leaves by log speedup over this time; any positive reference will do,
    // the model's time of the expert's choice where it has one.
    const double expert = model_time(f.shape, problem.expert.choose(f.shape), problem.gpu);
    f.expert_seconds = expert > 0 && std::isfinite(expert) ? expert : predicted.back().first;
    f.measured = std::move(predicted);
    feedback.push_back(std::move(f));
  }
  if (feedback.empty()) return std::nullopt;
  RefitChoice choice;
  choice.max_leaves = std::max(1, max_leaves);
  choice.features = default_tree_features();
  choice.units = problem.gpu.units;
  return refit_program(feedback, choice);
}

} // namespace tv
