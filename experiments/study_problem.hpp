#pragma once
/// A problem loaded for an experiment (the lecture shapes on one GPU, one split), with its
/// baselines computed once.
#include "eval/baselines.hpp"
#include "eval/problem.hpp"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace tv {

/// The problem and its baselines (expert, best single config, per-M table, oracle).
struct StudyProblem {
  std::unique_ptr<Problem> problem;
  std::vector<MethodResult> baselines;
  /// The baseline with this key ("expert", "best_single", "per_m_table", "oracle"); throws
  /// std::out_of_range when there is none.
  const MethodResult& baseline(const std::string& key) const;
};

/// The method with this key in `methods`; throws std::out_of_range when there is none.
const MethodResult& find_baseline(const std::vector<MethodResult>& methods, const std::string& key);

/// Loads the default lecture shapes and expert on `gpu` with `split` ("random" with
/// `split_seed`, or "model:NAME"); throws InputError for an unknown GPU or a bad split.
StudyProblem load_study_problem(const std::string& gpu, const std::string& split,
                                std::uint64_t split_seed = 0);

/// Loads `spec` and computes its baselines (with the vendor library when the backend has
/// recorded vendor times); throws InputError for bad input.
StudyProblem load_study_problem(const ProblemSpec& spec);

/// The study problem of an already loaded problem: its baselines computed.
StudyProblem study_problem(std::unique_ptr<Problem> problem);

/// A short human name of a split spec: "random half/half", "train NAME, test the rest".
std::string split_label(const std::string& split);

} // namespace tv
