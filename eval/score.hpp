#pragma once
/// Scores of programs on a subset of a time table, relative to an expert and to the oracle.
#include "ir/program.hpp"
#include "models/time_table.hpp"

#include <cstddef>
#include <string>
#include <vector>

namespace tv {

/// Figures of one program on one shape subset. The geometric means are weighted by each
/// shape's weight (its share of the workload); the plain ones count every shape once, and
/// the uplift compares the total weighted time, i.e. the end-to-end effect on the workload.
struct SetScore {
  bool valid = false;            ///< false when some shape has no time (problem says why)
  std::string problem;           ///< e.g. "llama3-8b:o:M1: 16x16x16 w8 s1 g1 is not in the table"
  double speedup_vs_expert = 0;  ///< weighted geomean of expert time / program time
  double fraction_of_oracle = 0; ///< weighted geomean of oracle time / program time (<= 1)
  double plain_speedup_vs_expert = 0;  ///< the same geomeans with every shape counted once
  double plain_fraction_of_oracle = 0; ///<
  double uplift = 0;     ///< sum of weight x expert time / sum of weight x program time
  bool weighted = false; ///< the shapes' weights are not all equal (weighted != plain figures)
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
  /// True when the rows' weights are not all equal.
  bool weighted() const { return weighted_; }

private:
  const TimeTable* table_;
  std::vector<std::size_t> rows_;
  std::vector<double> expert_, oracle_, weights_;
  double log_expert_ = 0, log_oracle_ = 0;     ///< weighted sums of log times
  double plain_expert_ = 0, plain_oracle_ = 0; ///< unweighted means of log times
  double expert_total_ = 0;                    ///< weighted sum of expert times
  bool weighted_ = false;
};

} // namespace tv
