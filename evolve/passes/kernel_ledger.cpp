#include "evolve/passes/kernel_ledger.hpp"

#include <algorithm>

namespace tv {

long long KernelLedger::left() const {
  return cap_ > 0 ? std::max(0LL, cap_ - *total_) : -1;
}

void KernelLedger::charge(const std::string& pass, long long runs) {
  if (runs <= 0) return;
  *total_ += runs;
  per_pass_[pass] += runs;
}

long long KernelLedger::of(const std::string& pass) const {
  const auto it = per_pass_.find(pass);
  return it == per_pass_.end() ? 0 : it->second;
}

} // namespace tv
