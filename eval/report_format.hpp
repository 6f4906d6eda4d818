#pragma once
/// Shared rendering of scores and methods, as text rows and as JSON.
#include "eval/baselines.hpp"
#include "eval/problem.hpp"

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace tv {

/// {"valid", "shapes", "weighted", "speedup_vs_expert", "fraction_of_oracle" (weighted
/// geomeans), "plain_speedup_vs_expert", "plain_fraction_of_oracle" (every shape once),
/// "uplift" (total weighted expert time / method time)[, "problem"]}; figures null if invalid.
nlohmann::json score_json(const SetScore& s);
/// A method with its train/test figures, kernel runs and program text.
nlohmann::json method_json(const MethodResult& m);
/// The problem's description: gpu, files, split, counts, whether weights differ, notes.
nlohmann::json problem_json(const Problem& p);
/// "1.234x" or "n/a".
std::string fmt_speedup(const SetScore& s);
/// "87.6%" or "n/a".
std::string fmt_fraction(const SetScore& s);
/// The uplift, "1.234x", or "n/a".
std::string fmt_uplift(const SetScore& s);
/// Text table of methods: train/test speedup and fraction of oracle, kernel runs. When some
/// shape weights differ, the weighted figures with the train/test uplift, then a second table
/// of the plain figures.
std::string methods_table(const std::vector<MethodResult>& methods);
/// One-paragraph header naming the GPU, shapes and split, then the problem's notes indented.
std::string problem_header(const Problem& p);

} // namespace tv
