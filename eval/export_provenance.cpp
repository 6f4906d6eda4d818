#include "eval/export_provenance.hpp"

#include <fmt/format.h>

namespace tv {

std::optional<ExportScores> export_scores(const SetScore& s) {
  if (!s.valid) return std::nullopt;
  ExportScores e;
  e.fraction_of_oracle = s.fraction_of_oracle;
  e.speedup_vs_expert = s.speedup_vs_expert;
  if (s.weighted) e.uplift = s.uplift;
  e.shapes = s.shapes;
  e.weighted = s.weighted;
  return e;
}

ExportInfo export_info(const Problem& problem, const SetScore& train, const SetScore& test,
                       std::string tool, std::string source) {
  ExportInfo info;
  info.tool = std::move(tool);
  info.source = std::move(source);
  info.gpu = problem.gpu.full_name.empty()
                 ? problem.gpu.name
                 : fmt::format("{} ({})", problem.gpu.name, problem.gpu.full_name);
  info.backend = problem.backend->name();
  info.train = export_scores(train);
  info.test = export_scores(test);
  info.scores_note =
      fmt::format("Scored against the expert {} on the shapes of {}; {}.", problem.expert_path,
                  problem.shapes_path, problem.split_description);
  if (!train.valid) info.notes.push_back("Train score not available: " + train.problem);
  if (!test.valid) info.notes.push_back("Test score not available: " + test.problem);
  return info;
}

} // namespace tv
