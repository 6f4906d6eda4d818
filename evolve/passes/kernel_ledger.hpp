#pragma once
/// The run's kernel-run ledger: the cap (pairs a run may time, 0 = none), the run's total, and
/// the pairs each pass timed, by name. The search's own kernel runs count in the total; a pass
/// asks the ledger what is left and charges what it timed.
#include <map>
#include <string>

namespace tv {

/// Kernel runs against the cap, per pass.
class KernelLedger {
public:
  /// `total` is the run's count (Counters::kernel_runs), kept where the run keeps it; `cap` in
  /// pairs, 0 for none.
  KernelLedger(long long& total, long long cap) : total_(&total), cap_(cap) {}
  /// The cap in pairs (0: none).
  long long cap() const { return cap_; }
  /// Sets the cap (0: none), once the run has worked it out.
  void set_cap(long long cap) { cap_ = cap; }
  /// The run's kernel runs so far, every pass's included.
  long long total() const { return *total_; }
  /// Pairs left under the cap (-1: no cap).
  long long left() const;
  /// Counts `runs` pairs timed by `pass` (adds them to the total too).
  void charge(const std::string& pass, long long runs);
  /// Pairs `pass` timed (0 when it timed none).
  long long of(const std::string& pass) const;
  /// Every pass that timed pairs, with its count.
  const std::map<std::string, long long>& per_pass() const { return per_pass_; }
  /// Restores a count (a checkpoint's), without adding it to the total.
  void restore(const std::string& pass, long long runs) { per_pass_[pass] = runs; }

private:
  long long* total_;
  long long cap_ = 0;
  std::map<std::string, long long> per_pass_;
};

} // namespace tv
