// leaf-exploration: what the search left of the kernel-run cap (without a cap,
// uncapped_explore_limit: 1% of exhaustive tuning of the training shapes, never past 4% for the
// run) is spent timing, on each leaf of trees refitted on the run's measurements, the leaf's
// config, the configs its shapes' measurements rank fastest and those the analytic model ranks
// first (evolve/leaf_explore.hpp), before polish and refit validation read the measurements. It
// does not change the program.
//
// Report summary: what it timed (empty when nothing was left to spend).
#include "evolve/passes/pass.hpp"

#include "evolve/evolution_options.hpp"
#include "evolve/leaf_explore.hpp"
#include "evolve/model_times.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace tv {

namespace {

/// Past this many (training shape, config) cells (64 MB of doubles) leaf exploration goes by
/// the measured winners alone.
constexpr std::size_t kMaxPriorCells = std::size_t(1) << 23;

/// The exploration's prior (ExploreHooks::prior): the analytic model's log slowdown of each
/// config of `space` (set to config_space) against the fastest of them, per training shape;
/// +infinity where model_times has none. `space` is left empty, and so is the result, past
/// kMaxPriorCells.
std::vector<std::vector<double>> analytic_prior(const Problem& problem,
                                                const std::vector<Shape>& train_shapes,
                                                std::vector<Config>& space) {
  space = config_space(problem);
  if (space.size() * train_shapes.size() > kMaxPriorCells) {
    space.clear();
    return {};
  }
  std::vector<std::vector<double>> prior = model_times(problem, train_shapes);
  for (std::vector<double>& p : prior) {
    if (p.empty()) continue;
    const double best = *std::min_element(p.begin(), p.end());
    for (double& v : p)
      v = std::isfinite(v) ? std::log(v / best) : std::numeric_limits<double>::infinity();
  }
  return prior;
}

class LeafExplorationPass final : public Pass {
public:
  const char* name() const override { return "leaf-exploration"; }
  const char* help() const override {
    return "spends what the search left of the cap timing likely configs on the leaves of "
           "refitted trees";
  }
  std::string not_for(const PassContext&) const override { return ""; }
  PassReport run(PassContext& ctx, ReturnedProgram&) const override {
    PassReport r;
    // Under a cap, what the search left of it; without one, an allowance of its own.
    const long long limit =
        ctx.ledger.left() >= 0
            ? ctx.ledger.left()
            : uncapped_explore_limit(ctx.eval.exhaustive_train_runs(), ctx.ledger.total());
    if (limit <= 0) return r; // nothing left of the cap, or no allowance
    const long long stop_at = ctx.ledger.total() + limit;
    const auto left = [&] { return std::max(0LL, stop_at - ctx.ledger.total()); };
    const Problem& problem = ctx.problem;
    const int leaves = ctx.refit_leaves();
    ExploreHooks hooks;
    hooks.fit = [&] { return ctx.measured_tree(leaves); };
    hooks.fastest = [&](std::size_t i, std::size_t k) {
      std::vector<Config> out;
      for (const auto& [secs, c] : ctx.eval.fastest(problem.train_rows[i], k))
        out.push_back(c);
      return out;
    };
    hooks.timed = [&](std::size_t i, const Config& c) {
      return ctx.eval.timed(problem.train_rows[i], c);
    };
    hooks.time = [&](const Config& c, const std::vector<std::size_t>& which) {
      return ctx.time_config(name(), c, which, left()).stage != Stage::over_budget;
    };
    const std::vector<std::vector<double>> prior =
        analytic_prior(problem, ctx.train_shapes, hooks.space);
    if (!hooks.space.empty()) hooks.prior = [&](std::size_t i) { return prior[i].data(); };
    r.summary = explore_leaves(ctx.train_shapes, hooks).summary();
    return r;
  }
};

} // namespace

std::unique_ptr<Pass> leaf_exploration_pass() {
  return std::make_unique<LeafExplorationPass>();
}

} // namespace tv
