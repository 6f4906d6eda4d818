// The list of passes and the loop that runs them (pipeline.hpp).
#include "evolve/passes/pipeline.hpp"

#include "evolve/evolution_options.hpp"
#include "ir/error.hpp"

#include <algorithm>
#include <chrono>
#include <fmt/format.h>

namespace tv {

// Each pass's file defines its factory.
std::unique_ptr<Pass> sampled_sizes_pass();
std::unique_ptr<Pass> leaf_exploration_pass();
std::unique_ptr<Pass> leaf_polish_pass();
std::unique_ptr<Pass> refit_validation_pass();
std::unique_ptr<Pass> threshold_placement_pass();
std::unique_ptr<Pass> guard_validation_pass();
std::unique_ptr<Pass> wave_guards_pass();
std::unique_ptr<Pass> floor_pass();

const std::vector<std::unique_ptr<Pass>>& pipeline_passes() {
  // The order is the design: sampled sizes chooses among the database's programs before the
  // leaves are explored and polished; refit validation compares a tree refitted on the explored
  // measurements with the polished program;
  // thresholds are placed before the guards (guarded first, placement would move thresholds
  // around the guards, and unseen shapes fared worse), and guard validation judges the guards
  // wave-guards adds; the floor comes last, so that what it returns is returned as it is.
  static const std::vector<std::unique_ptr<Pass>> passes = [] {
    std::vector<std::unique_ptr<Pass>> p;
    for (auto make :
         {sampled_sizes_pass, leaf_exploration_pass, leaf_polish_pass, refit_validation_pass,
          threshold_placement_pass, guard_validation_pass, wave_guards_pass, floor_pass})
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

bool retired_pass(std::string_view name) {
  return name == "race-completion";
}

void check_pass_name(const std::string& name, bool allow_retired) {
  if (find_pass(name) || (allow_retired && retired_pass(name))) return;
  if (retired_pass(name))
    throw InputError(fmt::format("the pass '{}' was retired (it did not move the protocol "
                                 "panel; docs: the pipeline): there is nothing to skip",
                                 name));
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
