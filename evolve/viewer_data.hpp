#pragma once
/// What a run writes for viewers such as the dashboard (`tilevolve serve`), beyond what it
/// needs to resume: the held-out figures and the text of each new best (fields of its
/// new_best event), and per_shape.json, the time of the current best program on every shape
/// beside the baselines' times, and whether the shape lies in the training range of that program
/// (ir/training_range.hpp; of its simplified form, which the exports ship). The test figures are
/// for watching only; selection never reads them.
#include "eval/baselines.hpp"
#include "eval/problem.hpp"

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace tv {

/// Computes the baselines of a problem once and writes the viewer files of its run.
class ViewerData {
public:
  /// Keeps a reference to `problem` (which must outlive this).
  explicit ViewerData(const Problem& problem);
  /// With `baselines` given (compute_baselines on `problem`): a measured run's end passes those
  /// of its final table, which grew after the run (or its resume) computed its own.
  ViewerData(const Problem& problem, std::vector<MethodResult> baselines);
  /// Fields for the new_best event of `best`: "program" (its text), "test" (test speedup over
  /// the expert), "train_of_oracle" and "test_of_oracle" (null when a figure is invalid).
  nlohmann::json best_fields(const Program& best) const;
  /// The per_shape.json document for program `id` (see the README's run directory section).
  nlohmann::json per_shape(std::uint64_t id, const Program& best) const;
  /// Writes dir/per_shape.json atomically when `id` or `best` differs from the last one written
  /// (a run's result keeps the searched best's id when only its thresholds moved).
  void write_per_shape(const std::string& dir, std::uint64_t id, const Program& best);

private:
  const Problem* problem_;
  std::vector<MethodResult> baselines_;
  std::uint64_t written_id_ = 0;
  Program written_program_;
};

} // namespace tv
