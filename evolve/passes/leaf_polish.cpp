// leaf-polish: each leaf config of the returned program (every rule's, then the default's) is
// replaced by a config one field away that is faster on the training shapes the leaf decides,
// while one is (evolve/leaf_polish.hpp); conditions never change. It times at most kPolishShare
// of what the run timed before it, and never past the cap.
//
// Report lines: one per replaced config.
#include "evolve/passes/pass.hpp"

#include "evolve/evolution_options.hpp"
#include "evolve/leaf_polish.hpp"
#include "evolve/model_times.hpp"

#include <algorithm>
#include <cmath>

namespace tv {

namespace {

class LeafPolishPass final : public Pass {
public:
  const char* name() const override { return "leaf-polish"; }
  const char* help() const override {
    return "replaces each leaf config by a one-field neighbour faster on the leaf's training "
           "shapes";
  }
  std::string not_for(const PassContext&) const override { return ""; }
  PassReport run(PassContext& ctx, ReturnedProgram& result) const override {
    const std::vector<Config> space = config_space(ctx.problem);
    // At most a share of what the run timed before it, and never past the cap.
    const long long allowance = (long long)(kPolishShare * double(ctx.ledger.total()));
    long long polished = 0;
    const LeafCost cost = [&](const std::vector<std::size_t>& which,
                              const Config& c) -> std::optional<double> {
      long long limit = allowance - polished;
      if (const long long left = ctx.ledger.left(); left >= 0) limit = std::min(limit, left);
      const Evaluation ev = ctx.time_config(name(), c, which, std::max(0LL, limit));
      polished += ev.kernel_runs;
      if (ev.stage != Stage::full) return std::nullopt;
      double sum = 0;
      for (std::size_t k = 0; k < which.size(); ++k)
        sum += std::max(0.0, ctx.train_shapes[which[k]].weight) * std::log(ev.train_times[k]);
      return sum;
    };
    PolishedLeaves p = polish_leaves(result.best.program, space, ctx.train_shapes, cost,
                                     1.0 + ctx.options.noise_threshold);
    PassReport r;
    if (p.changes.empty()) return r;
    result.best.program = std::move(p.program);
    r.lines = std::move(p.changes);
    r.summary = std::to_string(r.lines.size()) + " leaf configs replaced";
    return r;
  }
};

} // namespace

std::unique_ptr<Pass> leaf_polish_pass() {
  return std::make_unique<LeafPolishPass>();
}

} // namespace tv
