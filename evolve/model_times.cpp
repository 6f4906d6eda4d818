#include "evolve/model_times.hpp"

#include "eval/analytic_backend.hpp"
#include "models/analytic_model.hpp"
#include "models/launch.hpp"
#include "models/time_table.hpp"

#include <cmath>
#include <limits>

namespace tv {

std::vector<Config> config_space(const Problem& problem) {
  return problem.backend->complete_table() ? problem.table->configs()
                                           : model_configs(problem.gpu, problem.dtypes());
}

std::vector<std::vector<double>> model_times(const Problem& problem,
                                             const std::vector<Shape>& train_shapes) {
  const std::vector<Config> space = config_space(problem);
  constexpr double inf = std::numeric_limits<double>::infinity();
  const bool table = problem.backend->complete_table();
  // On the analytic backend the table is the model's times: read, not computed again.
  const bool modelled = table && is_analytic(problem.backend.get());
  std::vector<std::vector<double>> out(std::min(train_shapes.size(), problem.train_rows.size()));
  for (std::size_t i = 0; i < out.size(); ++i) {
    out[i].assign(space.size(), inf);
    if (modelled) {
      for (std::size_t k = 0; k < space.size(); ++k)
        if (const double t = problem.table->time(problem.train_rows[i], k);
            t > 0 && std::isfinite(t))
          out[i][k] = t;
      continue;
    }
    for (std::size_t k = 0; k < space.size(); ++k) {
      const bool runs = table ? std::isfinite(problem.table->time(problem.train_rows[i], k))
                              : !launch_problem(space[k], problem.gpu, train_shapes[i].dtype);
      if (!runs) continue;
      const double t = model_time(train_shapes[i], space[k], problem.gpu);
      if (t > 0 && std::isfinite(t)) out[i][k] = t;
    }
  }
  return out;
}

} // namespace tv
