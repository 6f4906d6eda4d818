#pragma once
/// A cap on how many (shape, config) pairs one evolution run may time: the cost a kernel
/// engineer pays on a real GPU, and the research protocols' "share of exhaustive tuning".
#include <nlohmann/json.hpp>

#include <string>
#include <string_view>

namespace tv {

/// At most `runs` kernel runs, or at most `share` of exhaustive tuning of the training shapes
/// (every config of the space on every training shape); 0 = no cap of that kind. The run
/// checks it before each program it evaluates, so the last one may go over by what it times.
struct KernelRunBudget {
  long long runs = 0;
  double share = 0;
  /// Not given: the run takes its backend's default (with_backend_defaults in evolution.hpp).
  /// No cap until then; never written to JSON (a run writes its options once resolved).
  bool backend_default = false;

  /// The "not given" value.
  static KernelRunBudget from_backend() {
    KernelRunBudget b;
    b.backend_default = true;
    return b;
  }

  /// True when either cap is set.
  bool any() const { return runs > 0 || share > 0; }
  /// The cap in kernel runs for a run whose exhaustive tuning costs `exhaustive` (0 = none).
  long long cap(long long exhaustive) const;
  /// "2000", "30%" or "" (none): the form parse reads.
  std::string text() const;
  /// For reports: "at most 2000 kernel runs", "at most 30% of the kernel runs of exhaustive
  /// tuning of the training shapes", or "" (none).
  std::string describe() const;
  /// Reads "N" (kernel runs, N >= 1), "P%" (0 < P <= 100) or "none" (no cap); throws
  /// InputError otherwise.
  static KernelRunBudget parse(std::string_view text);
  /// Adds its fields to an options object (nothing when no cap is set, as older runs wrote).
  void to_json(nlohmann::json& options) const;
  /// Reads the fields to_json wrote (absent = no cap); throws InputError on bad values.
  static KernelRunBudget from_json(const nlohmann::json& options);

  bool operator==(const KernelRunBudget&) const = default;
};

} // namespace tv
