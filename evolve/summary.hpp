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
/// The end-of-run report for a terminal.
std::string summary_text(const Problem& problem, const EvolutionResult& r,
                         const std::vector<MethodResult>& baselines);

} // namespace tv
