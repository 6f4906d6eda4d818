#pragma once
/// The complexity front of a run: for each complexity (program_size: the number of
/// comparisons), the program with the best training speedup seen so far of exactly that size. Model
/// selection picks from it: a charge per rule, chosen by cross-validation (model_selection.hpp),
/// decides how many rules the training shapes support.
#include "evolve/database.hpp"

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace tv {

/// One point of the front.
struct FrontEntry {
  Candidate candidate; ///< candidate.score is the selection score the run ranked it by
  double speedup = 0;  ///< its plain training speedup over the expert
  std::string op;      ///< the operator that produced it ("seed" for the expert)
  std::string diff;    ///< the SEARCH/REPLACE edit that produced it (empty for the seed)
};

/// A program's complexity as model selection counts it: its comparisons (a rule of `M <= 16 and
/// N <= 4096` counts 2; the default alone counts 0). Conjunctions carve regions as much as rules
/// do, so they are charged alike.
std::size_t program_size(const Program& p);

/// Best program per size.
class ComplexityFront {
public:
  /// Keeps `e` when it beats the entry of its size (ties: the earlier stays).
  void offer(const FrontEntry& e);
  /// True when a program of this size and speedup would be kept by offer().
  bool improves(std::size_t size, double speedup) const;
  /// The entry maximising log(speedup) + size x log(1 - penalty) (ties: the smaller), or
  /// nullopt when empty. penalty in [0, 1).
  std::optional<FrontEntry> choose(double penalty) const;
  /// Entries by size.
  const std::map<std::size_t, FrontEntry>& entries() const { return by_size_; }
  bool empty() const { return by_size_.empty(); }
  /// For checkpoints; from_json(to_json()) gives the same front.
  nlohmann::json to_json() const;
  /// Throws InputError on a malformed value.
  static ComplexityFront from_json(const nlohmann::json& j);

private:
  std::map<std::size_t, FrontEntry> by_size_;
};

} // namespace tv
