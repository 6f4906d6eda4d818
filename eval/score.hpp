#pragma once
/// Scores of programs on a subset of a time table, relative to an expert and to the oracle.
#include "ir/program.hpp"
#include "models/time_table.hpp"

#include <cstddef>
#include <string>
#include <vector>

namespace tv {

/// Figures of one program on one shape subset; geometric means weighted by shape weight.
struct SetScore {
  bool valid = false;            ///< false when some shape has no time (problem says why)
  std::string problem;           ///< e.g. "llama3-8b:o:M1: 16x16x16 w8 s1 g1 is not in the table"
  double speedup_vs_expert = 0;  ///< geomean of expert time / program time
  double fraction_of_oracle = 0; ///< geomean of oracle time / program time (<= 1)
  std::size_t shapes = 0;
};

/// Scores programs on the rows `rows` of a table against an expert program.
class Scorer {
public:
  /// Throws InputError when the expert has no finite time on some row.
  Scorer(const TimeTable& table, std::vector<std::size_t> rows, const Program& expert);

  /// Figures of `p` from table lookups (fast path used in evolution).
  SetScore score(const Program& p) const;
  /// Figures from explicit times, one per row in rows() order (+inf = missing).
  SetScore score_times(const std::vector<double>& times) const;
  /// Time of `p` on each row (+inf where its config is not in the table).
  std::vector<double> program_times(const Program& p) const;
  /// Figures of the per-shape oracle itself.
  SetScore oracle() const { return score_times(oracle_); }

  const TimeTable& table() const { return *table_; }
  const std::vector<std::size_t>& rows() const { return rows_; }
  const std::vector<double>& expert_times() const { return expert_; }
  const std::vector<double>& oracle_times() const { return oracle_; }
  /// Shape weights of the rows, normalised to sum to 1.
  const std::vector<double>& weights() const { return weights_; }

private:
  const TimeTable* table_;
  std::vector<std::size_t> rows_;
  std::vector<double> expert_, oracle_, weights_;
  double log_expert_ = 0, log_oracle_ = 0; ///< weighted sums of log times
};

} // namespace tv
