#pragma once
/// Where a program's training shapes were: the signal a deployed heuristic gives for the shapes
/// nobody tuned it on, as aiter's getter reports `is_tuned` and PyTorch's AutoHeuristic trees
/// can answer "unsure".
///
/// Definition. Each branch of a program (a rule, or the default) decides some of the training
/// shapes (first matching rule wins); its training box is the smallest box
/// [min M, max M] x [min N, max N] x [min K, max K] that holds them, and a branch that decides no
/// training shape has none. A shape is *in the training range* when the branch that decides it
/// has a training box and the shape lies inside it. Every training shape is in range; every
/// shape in range lies in the box of all the training shapes (the coarser signal), and the
/// region is smaller where a rule's own shapes span less: a rule fitted on decode shapes of one
/// model is out of range where it also fires for a far larger N or K.
#include "ir/program.hpp"

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

namespace tv {

/// The training shapes one branch of a program decides.
struct BranchRange {
  std::size_t shapes = 0; ///< training shapes it decides; 0 = it has no training box
  Box box;                ///< their box in (M, N, K) (only when shapes > 0)
  friend bool operator==(const BranchRange&, const BranchRange&) = default;
};

/// The training range of a program (see the file comment).
struct TrainingRange {
  std::size_t shapes = 0; ///< training shapes
  Box box;                ///< the box of all of them
  /// One per rule, then the default (p.rules.size() + 1 entries for the program it belongs to).
  std::vector<BranchRange> branches;

  /// True when this range was computed for a program with as many rules as `p`.
  bool fits(const Program& p) const { return branches.size() == p.rules.size() + 1; }
  /// True when `s` is in the training range of `p` (which this range must fit).
  bool contains(const Program& p, const Shape& s) const;
  friend bool operator==(const TrainingRange&, const TrainingRange&) = default;
};

/// The training range of `p` over `train` (shapes with M, N, K of at least 1).
TrainingRange training_range(const Program& p, const std::vector<Shape>& train);

/// The coarser range for `p` when only the box of all training shapes is known (the program
/// was edited after its run): every branch gets that box.
TrainingRange box_only_range(const TrainingRange& t, const Program& p);

/// One sentence for a provenance: the number of training shapes and their M, N and K ranges.
std::string training_range_text(const TrainingRange& t);

/// {"definition", "shapes", "M": [lo, hi], "N", "K", "branches": [{"rule": 1-based index or
/// "default", "shapes", and "M", "N", "K" when it has training shapes}]}.
nlohmann::ordered_json training_range_json(const TrainingRange& t);

/// The inverse of training_range_json for a file the tool wrote (a run's summary.json), which is
/// still read as untrusted: throws InputError naming `source` for anything malformed.
TrainingRange training_range_from_json(const nlohmann::json& j, const std::string& source);

/// The M values (as inclusive ranges, in increasing order) in [1, m_max] whose shape (M, N, K) is
/// in the training range of `p`.
std::vector<std::pair<std::int64_t, std::int64_t>> training_m_ranges(const TrainingRange& t,
                                                                     const Program& p,
                                                                     std::int64_t N, std::int64_t K,
                                                                     std::int64_t m_max = kDimMax);

/// One sentence for an export at one (N, K): the M values whose shapes are in the training range
/// of `p` there, or that there are none (the program extrapolates for every M).
std::string training_m_text(const TrainingRange& t, const Program& p, std::int64_t N,
                            std::int64_t K);

} // namespace tv
