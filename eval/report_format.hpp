#pragma once
/// Shared rendering of scores and methods, as text rows and as JSON.
#include "eval/baselines.hpp"
#include "eval/problem.hpp"

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace tv {

/// {"valid", "speedup_vs_expert", "fraction_of_oracle", "shapes"[, "problem"]}.
nlohmann::json score_json(const SetScore& s);
/// A method with its train/test figures, kernel runs and program text.
nlohmann::json method_json(const MethodResult& m);
/// The problem's description: gpu, files, split, counts.
nlohmann::json problem_json(const Problem& p);
/// "1.234x" or "n/a".
std::string fmt_speedup(const SetScore& s);
/// "87.6%" or "n/a".
std::string fmt_fraction(const SetScore& s);
/// Text table of methods: train/test speedup and fraction of oracle, kernel runs.
std::string methods_table(const std::vector<MethodResult>& methods);
/// One-paragraph header naming the GPU, shapes and split.
std::string problem_header(const Problem& p);

} // namespace tv
