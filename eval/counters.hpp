#pragma once
/// Cost and outcome counters of evaluation, kept per run and per mutation operator.
#include <map>
#include <nlohmann/json.hpp>
#include <string>

namespace tv {

/// How far each proposed program got, and what it cost.
struct Counters {
  long long proposed = 0;       ///< replies received from the mutator
  long long mutator_failed = 0; ///< no reply (transport error, bad parent)
  long long diff_failed = 0;    ///< no block applied (or some block failed)
  long long parse_failed = 0;   ///< the edited text is not a valid program
  long long noop = 0;           ///< child equal to its parent (or a known program): no evaluation
  long long static_reject = 0;  ///< stage 0: some reachable branch cannot launch / be timed
  long long probe_reject = 0;   ///< stage 1: lost clearly to its parent on the probe shapes
  long long race_reject = 0;    ///< stage 2: lost surely to its parent on a sample of its pairs
  long long timing_failed = 0;  ///< a pair did not time (wrong result, timeout, unmeasured)
  long long over_budget = 0;    ///< not timed: its new pairs would pass the kernel-run cap
  long long full = 0;           ///< stage 2: scored on all training shapes
  long long improved = 0;       ///< full and better than its parent
  long long new_best = 0;       ///< full and better than every program before it
  long long kernel_runs = 0;    ///< (shape, config) pairs sent to the timing backend
  long long cache_hits = 0;     ///< pairs answered from the run's measurement cache
  std::map<std::string, long long> static_reasons; ///< first words of each static reason

  /// Adds every field of `o` into this.
  void add(const Counters& o);
  /// All fields as a JSON object.
  nlohmann::json to_json() const;
  /// Reads an object written by to_json; throws InputError on a missing or mistyped field.
  static Counters from_json(const nlohmann::json& j);
};

} // namespace tv
