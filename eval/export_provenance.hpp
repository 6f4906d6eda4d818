#pragma once
/// The provenance of an export from a problem: GPU, backend, split and the program's scores,
/// in the plain struct the IR's exporters print (ir/exporters/export_info.hpp).
#include "eval/problem.hpp"
#include "eval/score.hpp"
#include "ir/exporters/export_info.hpp"

#include <optional>
#include <string>

namespace tv {

/// The figures an export states for `s`; nullopt when the score is not valid.
std::optional<ExportScores> export_scores(const SetScore& s);

/// GPU ("mi300x (AMD Instinct MI300X 192GB)"), backend and the scores of `train` and `test`
/// on `problem`; `tool` and `source` as given, scores_note naming the split and the shapes.
ExportInfo export_info(const Problem& problem, const SetScore& train, const SetScore& test,
                       std::string tool, std::string source);

} // namespace tv
