#pragma once
/// The reference methods every heuristic is compared with: the expert, the best single
/// config, a per-M lookup table, and the per-shape oracle.
#include "eval/score.hpp"
#include "ir/program.hpp"

#include <optional>
#include <string>
#include <vector>

namespace tv {

/// One method's figures on train and test, and what tuning it costs.
struct MethodResult {
  std::string key;                ///< "expert", "best_single", "per_m_table", "oracle"
  std::string label;              ///< human name, e.g. "per-M table (6 rules)"
  std::optional<Program> program; ///< none for the oracle (it is a table, not a program)
  SetScore train, test;
  long long kernel_runs = 0;      ///< timed (shape, config) runs needed to build it
  std::string cost_note;          ///< how kernel_runs was counted
};

/// The config with the best weighted geomean on `train` (first in table order on ties).
Program best_single_config(const Scorer& train);
/// `if M <= m: return best config for shapes with that M` for each training M but the
/// largest (which becomes the default), then simplified.
Program per_m_table(const Scorer& train);
/// Expert, best single config, per-M table and per-shape oracle, scored on train and test.
std::vector<MethodResult> compute_baselines(const Scorer& train, const Scorer& test,
                                            const Program& expert);

} // namespace tv
