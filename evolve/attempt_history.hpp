#pragma once
/// The last few children of each parent and how they ended: what the next prompt for that
/// parent reports ("block 1 (SEARCH `...`): not_found", "probe reject: ...", a score).
#include "eval/cascade.hpp"
#include "evolve/mutator.hpp"

#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace tv {

/// Per-parent history of attempts, bounded.
class AttemptHistory {
public:
  /// Keeps the last `per_parent` attempts of each parent.
  explicit AttemptHistory(std::size_t per_parent = 4) : per_parent_(per_parent) {}
  /// Appends an attempt of `parent` (dropping its oldest beyond the bound).
  void record(std::uint64_t parent, PreviousAttempt attempt);
  /// The kept attempts of `parent`, oldest first.
  std::vector<PreviousAttempt> of(std::uint64_t parent) const;
  /// {"parent id": [{"op", "stage", "outcome"}, ...], ...}
  nlohmann::json to_json() const;
  /// Reads to_json's form; throws InputError on a bad entry.
  static AttemptHistory from_json(const nlohmann::json& j, std::size_t per_parent = 4);

private:
  std::size_t per_parent_;
  std::map<std::uint64_t, std::deque<PreviousAttempt>> by_parent_;
};

/// The one-line outcome of a child for the next prompt: the reason it stopped, or its score
/// against the parent's.
std::string describe_attempt(Stage stage, const std::string& reason, double score,
                             double parent_score);

} // namespace tv
