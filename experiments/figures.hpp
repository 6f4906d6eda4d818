#pragma once
/// The standard plots of an experiment, as SVG text: the best train score against programs
/// proposed (median and range over seeds), the per-shape speedup of each method over the
/// expert, and the cost of each method in kernel runs.
#include "eval/score.hpp"
#include "evolve/evolution.hpp"
#include "ir/program.hpp"

#include <string>
#include <utility>
#include <vector>

namespace tv {

/// The words of the standard plots, English by default (a report in another language passes
/// its own).
struct FigureWords {
  std::string programs_proposed = "programs proposed";
  std::string best_train_speedup = "best train speedup over the expert";
  /// A curve's legend over several seeds; fmt named arguments {name} and {seeds}.
  std::string median_band = "{name} (median; band: min-max of {seeds} seeds)";
  std::string speedup = "speedup over the expert";
  std::string expert = "expert";
  std::string oracle = "per-shape oracle";
  std::string kernel_runs_log = "kernel runs (log scale)";
  std::string kernel_runs = "kernel runs";
  std::string no_data = "no data";
};

/// Runs of one method, drawn as one curve with a band.
struct CurveGroup {
  std::string name;
  std::vector<const EvolutionResult*> runs;
};

/// Best train speedup over the expert against programs proposed (0..budget): per group the
/// median of its runs' best-so-far step functions with a min-max band, and dashed flat
/// lines for `references` (name, speedup), e.g. the per-M table and the oracle.
std::string score_curve_svg(const std::string& title, const std::vector<CurveGroup>& groups,
                            const std::vector<std::pair<std::string, double>>& references,
                            long long budget, const FigureWords& words = {});

/// Speedup over the expert on each shape of `scorer` for each named program (the expert
/// itself is 1) and for the per-shape oracle, as dots per shape.
std::string shape_speedup_svg(const std::string& title, const Scorer& scorer,
                              const std::vector<std::pair<std::string, Program>>& programs,
                              const FigureWords& words = {});

/// Kernel runs of each named method as bars on a log axis, with their values.
std::string cost_svg(const std::string& title,
                     const std::vector<std::pair<std::string, double>>& bars,
                     const FigureWords& words = {});

} // namespace tv
