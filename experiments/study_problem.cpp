#include "experiments/study_problem.hpp"

#include <stdexcept>

namespace tv {

const MethodResult& find_baseline(const std::vector<MethodResult>& methods,
                                  const std::string& key) {
  for (const auto& m : methods)
    if (m.key == key) return m;
  throw std::out_of_range("no baseline '" + key + "'");
}

const MethodResult& StudyProblem::baseline(const std::string& key) const {
  return find_baseline(baselines, key);
}

StudyProblem load_study_problem(const std::string& gpu, const std::string& split,
                                std::uint64_t split_seed) {
  ProblemSpec spec;
  spec.gpu = gpu;
  spec.split = split;
  spec.seed = split_seed;
  return load_study_problem(spec);
}

StudyProblem study_problem(std::unique_ptr<Problem> problem) {
  StudyProblem s;
  s.problem = std::move(problem);
  s.baselines = compute_baselines(*s.problem->train, *s.problem->test, s.problem->expert,
                                  s.problem->backend.get(), s.problem->spec.tree_leaves);
  return s;
}

StudyProblem load_study_problem(const ProblemSpec& spec) {
  return study_problem(load_problem(spec));
}

std::string split_label(const std::string& split) {
  if (split == "random") return "random half/half";
  if (split.rfind("model:", 0) == 0) return "train " + split.substr(6) + ", test the rest";
  return split;
}

} // namespace tv
