// The list of passes and the loop that runs them (pipeline.hpp).
#include "evolve/passes/pipeline.hpp"

#include "evolve/evolution_options.hpp"
#include "ir/error.hpp"

#include <algorithm>
#include <chrono>
#include <fmt/format.h>

namespace tv {

// Each pass's file defines its factory.
std::unique_ptr<Pass> race_completion_pass();
std::unique_ptr<Pass> sampled_sizes_pass();
std::unique_ptr<Pass> leaf_exploration_pass();
std::unique_ptr<Pass> leaf_polish_pass();
std::unique_ptr<Pass> refit_validation_pass();
std::unique_ptr<Pass> threshold_placement_pass();
std::unique_ptr<Pass> guard_validation_pass();
std::unique_ptr<Pass> wave_guards_pass();
std::unique_ptr<Pass> floor_pass();

const std::vector<std::unique_ptr<Pass>>& pipeline_passes() {
  // The order is the design: race completion first, before anything reads the run's
  // measurements; sampled sizes chooses among the database's programs before the leaves are
  // explored and polished; refit validation compares a refitted tree with the polished program;
  // thresholds are placed before the guards (guarded first, placement would move thresholds
  // around the guards, and unseen shapes fared worse), and guard validation judges the guards
  // wave-guards adds; the floor comes last, so that what it returns is returned as it is.
  static const std::vector<std::unique_ptr<Pass>> passes = [] {
    std::vector<std::unique_ptr<Pass>> p;
    for (auto make : {race_completion_pass, sampled_sizes_pass, leaf_exploration_pass,
                      leaf_polish_pass, refit_validation_pass, threshold_placement_pass,
                      guard_validation_pass, wave_guards_pass, floor_pass})
      p.push_back(make());
    return p;
  }();
  return passes;
}

const Pass* find_pass(std::string_view name) {
  for (const auto& p : pipeline_passes())
    if (name == p->name()) return p.get();
  return nullptr;
}

std::vector<std::string> pass_names() {
  std::vector<std::string> out;
  for (const auto& p : pipeline_passes())
    out.emplace_back(p->name());
  return out;
}

void check_pass_name(const std::string& name) {
  if (find_pass(name)) return;
  std::string names;
  for (const std::string& n : pass_names())
    names += (names.empty() ? "" : ", ") + n;
  throw InputError(fmt::format("no pass is named '{}' (the passes: {})", name, names));
}

std::vector<PassReport> run_pipeline(
    PassContext& ctx, ReturnedProgram& result, std::vector<PassReport> done,
    const std::function<void(const std::vector<PassReport>&, const ReturnedProgram&)>& after_pass) {
  ctx.done = &done;
  for (const auto& pass : pipeline_passes()) {
    const std::string name = pass->name();
    if (std::any_of(done.begin(), done.end(), [&](const PassReport& r) { return r.name == name; }))
      continue; // ran before the run was resumed
    PassReport report;
    std::string why = ctx.options.skips(name) ? "skipped (--skip-pass)" : pass->not_for(ctx);
    if (why.empty()) {
      const auto start = std::chrono::steady_clock::now();
      const long long runs_before = ctx.ledger.of(name);
      const Program before = result.best.program;
      report = pass->run(ctx, result);
      report.ran = true;
      report.kernel_runs = ctx.ledger.of(name) - runs_before;
      report.changed = result.best.program != before;
      report.seconds =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    } else {
      report.why = std::move(why);
    }
    report.name = name;
    done.push_back(std::move(report));
    if (after_pass) after_pass(done, result);
  }
  ctx.done = nullptr;
  return done;
}

} // namespace tv
