#pragma once
/// The reference methods every heuristic is compared with: the expert, the best single
/// config, a per-M lookup table, the vendor library (when the backend recorded it), and the
/// per-shape oracle.
#include "eval/score.hpp"
#include "eval/timing_backend.hpp"
#include "ir/program.hpp"

#include <optional>
#include <string>
#include <vector>

namespace tv {

/// One method's figures on train and test, and what tuning it costs.
struct MethodResult {
  std::string key;                ///< "expert", "best_single", "per_m_table", "vendor", "oracle"
  std::string label;              ///< human name, e.g. "per-M table (6 rules)"
  std::optional<Program> program; ///< none for the oracle and the vendor (not programs)
  SetScore train, test;
  long long kernel_runs = 0; ///< timed (shape, config) runs needed to build it
  std::string cost_note;     ///< how kernel_runs was counted
};

/// The config with the best weighted geomean on `train` (first in table order on ties).
Program best_single_config(const Scorer& train);
/// `if M <= m: return best config for shapes with that M` for each training M but the
/// largest (which becomes the default), then simplified.
Program per_m_table(const Scorer& train);
/// Expert, best single config, per-M table and per-shape oracle, scored on train and test, in
/// that order; when `backend` has a vendor_time() for every train and test shape, also the
/// vendor library (key "vendor", just before the oracle). When the backend's table holds only
/// what was measured (complete_table() false), the searched methods' labels end in
/// "over N measured configs" (e.g. "oracle over 212 measured configs"). The decision tree
/// (key "tree", after the per-M table) has at most `tree_leaves` leaves.
std::vector<MethodResult> compute_baselines(const Scorer& train, const Scorer& test,
                                            const Program& expert,
                                            const TimingBackend* backend = nullptr,
                                            int tree_leaves = 8);
/// The vendor library's time on each row of `s` (rows() order), or nullopt when `backend` is
/// null or lacks a vendor time for some row.
std::optional<std::vector<double>> vendor_times(const Scorer& s, const TimingBackend* backend);
/// The vendor library as a method ("vendor library (" + the backend's vendor_label() + ")"),
/// or nullopt when vendor_times() is nullopt for train or test.
std::optional<MethodResult> vendor_method(const Scorer& train, const Scorer& test,
                                          const TimingBackend* backend);

} // namespace tv
