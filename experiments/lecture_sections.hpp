#pragma once
/// The four sections of the lecture's report, built from a computed LectureResult and the
/// sentences of one language (experiments/catalogue.hpp); no figure is computed here that the
/// result does not hold, and every sentence comes from the catalogue.
#include "eval/problem.hpp"
#include "experiments/catalogue.hpp"
#include "experiments/lecture.hpp"
#include "experiments/report.hpp"

#include <string>

namespace tv {

/// Demo 1: the shapes, per-shape oracle configs, the expert and the baselines.
Section lecture_problem_section(const LectureResult& r, const Problem& p, const Catalogue& cat);
/// Demo 2: one evolution run, its improvements, operators and best program.
Section lecture_run_section(const LectureResult& r, const Problem& p, const Catalogue& cat);
/// Demo 3: generalization over two splits and seeds.
Section lecture_generalization_section(const LectureResult& r, const Catalogue& cat);
/// Demo 4: the cost accounting of demo 2's run.
Section lecture_cost_section(const LectureResult& r, const Catalogue& cat);

/// A baseline's name in the catalogue's language ("method.KEY", with its config, rules or
/// leaves); the method's own label when the catalogue has no sentence for its key.
std::string method_name(const Catalogue& cat, const MethodResult& m);
/// How a baseline's kernel runs are counted ("cost.KEY"), for a problem of `configs` configs
/// and `train_shapes` training shapes; the method's own note when the catalogue has none.
std::string method_cost_note(const Catalogue& cat, const MethodResult& m, std::size_t configs,
                             std::size_t train_shapes);
/// A split's short name ("split.random.label", "split.model.label").
std::string split_name(const Catalogue& cat, const std::string& spec);
/// A split's description with its counts ("split.random.description", ...); `fallback` for a
/// split kind the catalogue does not describe.
std::string split_description(const Catalogue& cat, const std::string& spec, std::uint64_t seed,
                              std::size_t train, std::size_t test, const std::string& fallback);
/// A share of exhaustive tuning: two decimals below 10% (1,772 of 184,096 is "0.96%").
std::string format_share(double fraction);

} // namespace tv
