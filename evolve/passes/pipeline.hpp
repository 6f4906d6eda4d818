#pragma once
/// The pipeline: the passes after the search, in the order they run, and the loop that runs
/// them. Every run goes through the same list; a pass that does not apply to a run (no
/// kernel-run cap, a backend that times only its table's shapes, a pass it needs skipped) says
/// so in its report. EvolutionOptions::skip_passes (--skip-pass NAME) switches one off.
///
/// To add a pass: one file in this folder defining its class and its factory (the smallest,
/// threshold_placement.cpp, is the example), one line in the list in pipeline.cpp, a test.
#include "evolve/passes/pass.hpp"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace tv {

/// The passes, in the order they run.
const std::vector<std::unique_ptr<Pass>>& pipeline_passes();
/// The pass named `name`, or nullptr.
const Pass* find_pass(std::string_view name);
/// Every pass's name, in pipeline order.
std::vector<std::string> pass_names();
/// True for the name of a pass that was retired (race-completion): runs written
/// with it still resume, and it runs no more.
bool retired_pass(std::string_view name);
/// Throws InputError naming `name` unless it is a pass of the pipeline (or, with
/// `allow_retired`, a retired one, as a run's own options and checkpoint may name).
void check_pass_name(const std::string& name, bool allow_retired = false);

/// Runs the pipeline on `result`. `done` holds the reports of passes that already ran (a
/// resumed run's, restored with `result` as they left it): those are not run again. After each
/// pass, run or not, `after_pass(reports so far, result)` is called (events, checkpoints).
/// Returns every pass's report, in pipeline order.
std::vector<PassReport> run_pipeline(
    PassContext& ctx, ReturnedProgram& result, std::vector<PassReport> done,
    const std::function<void(const std::vector<PassReport>&, const ReturnedProgram&)>& after_pass);

} // namespace tv
