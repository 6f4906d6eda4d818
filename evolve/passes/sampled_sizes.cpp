// sampled-sizes: among the database's programs whose training figure is within kSampledTieShare
// of the searched best (at most kSampledCandidates), the one fastest on sizes drawn inside the
// training shapes' range (evolve/sampled_sizes.hpp) becomes the returned program: programs that
// fit the training shapes alike can part between them. Each is judged as the run would return
// it (thresholds placed and rules guarded, where those passes run). Only where the backend
// times any size (the analytic model); under a cap the sizes are timed while their pairs fit.
//
// Report data (when there was a choice): "sizes", "candidates" (database ids, the searched best
// first), "figures" (per candidate, its geometric-mean share of the fastest's speed), "chosen"
// (index into candidates), "kernel_runs", "range" (where the sizes were drawn).
#include "evolve/passes/pass.hpp"

#include "evolve/evolution_options.hpp"
#include "evolve/sampled_sizes.hpp"
#include "ir/rng.hpp"
#include "ir/threshold_placement.hpp"
#include "ir/wave_guards.hpp"

#include <algorithm>

namespace tv {

namespace {

/// The sampled sizes' random stream, apart from the search's.
constexpr std::uint64_t kSampledStream = 0x5a3d;

class SampledSizesPass final : public Pass {
public:
  const char* name() const override { return "sampled-sizes"; }
  const char* help() const override {
    return "of the programs that fit the training shapes alike, returns the one fastest on sizes "
           "drawn between them";
  }
  std::string not_for(const PassContext& ctx) const override {
    return ctx.options.sampled_sizes > 0
               ? ""
               : "no sampled sizes (the backend times only the shapes of its table)";
  }
  PassReport run(PassContext& ctx, ReturnedProgram& result) const override {
    const EvolutionOptions& o = ctx.options;
    // The searched best first, then the database's programs that fit the training shapes alike,
    // the best first (ties: the earliest).
    std::vector<Candidate> held = ctx.db.held();
    std::stable_sort(held.begin(), held.end(),
                     [](const Candidate& a, const Candidate& b) { return a.score > b.score; });
    std::vector<Candidate> candidates{result.best};
    for (const Candidate& c : held) {
      if (candidates.size() >= kSampledCandidates ||
          c.score < result.best.score * (1 - kSampledTieShare))
        break;
      if (std::none_of(candidates.begin(), candidates.end(),
                       [&](const Candidate& other) { return other.program == c.program; }))
        candidates.push_back(c);
    }
    PassReport r;
    if (candidates.size() < 2) return r; // nothing to choose among, nothing timed
    // Each as the run would return it: thresholds placed, rules guarded (every guard:
    // validating them is a pass of the result's own).
    const int units = ctx.problem.gpu.units;
    std::vector<Program> forms;
    for (const Candidate& c : candidates) {
      Program f = c.program;
      if (!o.skips("threshold-placement")) f = place_thresholds(f, ctx.train_shapes, units).program;
      if (!o.skips("wave-guards"))
        f = guard_waves(f, ctx.train_shapes, units,
                        {.with_floors = o.wave_floors, .returns = o.guard_returns})
                .program;
      forms.push_back(std::move(f));
    }
    const std::vector<Shape> sizes =
        sample_sizes(ctx.train_shapes, o.sampled_sizes, Rng(o.seed).fork(kSampledStream).next());
    // Under a cap, the sizes are timed while their pairs fit; from the first that does not, none.
    const long long cap_left = ctx.ledger.left();
    long long used = 0;
    bool spent = false;
    const TimeBatch time = [&](const std::vector<TimingRequest>& batch) {
      spent = spent || (cap_left >= 0 && used + (long long)batch.size() > cap_left);
      if (spent) return std::vector<Measurement>(batch.size());
      used += (long long)batch.size();
      return ctx.problem.backend->time(batch);
    };
    SampledChoice choice = choose_on_sampled_sizes(forms, sizes, time);
    choice.range = sampled_range(ctx.train_shapes);
    ctx.ledger.charge(name(), choice.kernel_runs);
    std::vector<std::uint64_t> ids;
    for (const Candidate& c : candidates)
      ids.push_back(c.id);
    r.data = {{"sizes", choice.sizes},
              {"candidates", ids},
              {"figures", choice.figures},
              {"chosen", choice.chosen},
              {"kernel_runs", choice.kernel_runs},
              {"range", choice.range}};
    if (choice.chosen == 0) return r;
    result.best = candidates[choice.chosen];
    result.reply.clear();
    result.diff.clear();
    const std::optional<LineageNode> node = ctx.lineage.node(result.best.id);
    result.op = node ? node->op : "";
    result.selected_from = "sampled sizes";
    return r;
  }
};

} // namespace

std::unique_ptr<Pass> sampled_sizes_pass() {
  return std::make_unique<SampledSizesPass>();
}

} // namespace tv
