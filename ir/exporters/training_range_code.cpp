#include "ir/exporters/training_range_code.hpp"

#include "ir/exporters/cpp_exporter.hpp"
#include "ir/exporters/python_exporter.hpp"

#include <fmt/format.h>

namespace tv {

namespace {

/// "rule 2: 6 training shapes", "default: no training shape".
std::string branch_comment(const Program& p, const TrainingRange& t, std::size_t i) {
  const std::string name = i < p.rules.size() ? fmt::format("rule {}", i + 1) : "default";
  const std::size_t n = t.branches[i].shapes;
  return n == 0 ? name + ": no training shape"
                : fmt::format("{}: {} training shape{}", name, n, n == 1 ? "" : "s");
}

constexpr const char* kPythonDoc =
    "True where the heuristic was fitted: the rule deciding (M, N, K) decided training shapes "
    "and (M, N, K) lies in their box; elsewhere it extrapolates.";

} // namespace

std::string python_training_range(const Program& p, const ExportInfo& info) {
  const std::optional<TrainingRange> t = export_training_range(p, info);
  std::string out =
      "# in_training_range(M, N, K) is True where choose() decides from training shapes like "
      "(M, N, K):\n"
      "# the rule that decides it decided training shapes, and M, N and K each lie between the\n"
      "# smallest and the largest of theirs. Elsewhere the heuristic extrapolates; to fall back "
      "to\n"
      "# autotuning there: meta = choose(M, N, K) if in_training_range(M, N, K) else "
      "autotune(M, N, K).\n";
  out += fmt::format("TRAINING_SHAPES = {}  # training shapes behind the heuristic (0: not "
                     "known)\n\n\n",
                     t ? t->shapes : 0);
  if (!t)
    return out + fmt::format("def in_training_range(M, N, K):\n    \"\"\"{}\"\"\"\n    return "
                             "False  # the training shapes are not known\n",
                             kPythonDoc);
  return out + python_export::branch_function(
                   p, "in_training_range", kPythonDoc,
                   [&](std::size_t i) -> std::string {
                     const BranchRange& b = t->branches[i];
                     if (b.shapes == 0) return "False";
                     return fmt::format("{} <= M <= {} and {} <= N <= {} and {} <= K <= {}",
                                        b.box.dim[0].lo, b.box.dim[0].hi, b.box.dim[1].lo,
                                        b.box.dim[1].hi, b.box.dim[2].lo, b.box.dim[2].hi);
                   },
                   [&](std::size_t i) { return branch_comment(p, *t, i); });
}

std::string cpp_training_range(const Program& p, const ExportInfo& info) {
  const std::optional<TrainingRange> t = export_training_range(p, info);
  std::string out = fmt::format(
      "/// Training shapes behind the heuristic (0: not known).\n"
      "inline constexpr std::int64_t kTrainingShapes = {};\n\n"
      "/// True where the heuristic was fitted: the rule that decides (M, N, K) decided training\n"
      "/// shapes, and M, N and K each lie between the smallest and the largest of theirs.\n"
      "/// Elsewhere it extrapolates; to fall back to autotuning there:\n"
      "///   if (!in_training_range(M, N, K)) {{ /* autotune */ }}\n"
      "constexpr bool in_training_range([[maybe_unused]] std::int64_t M,\n"
      "                                 [[maybe_unused]] std::int64_t N,\n"
      "                                 [[maybe_unused]] std::int64_t K) noexcept {{\n",
      t ? t->shapes : 0);
  if (!t) return out + "  return false; // the training shapes are not known\n}\n\n";
  const auto value = [&](std::size_t i) -> std::string {
    const BranchRange& b = t->branches[i];
    if (b.shapes == 0) return "false";
    return fmt::format("M >= {}LL && M <= {}LL && N >= {}LL && N <= {}LL && K >= {}LL && K <= {}LL",
                       b.box.dim[0].lo, b.box.dim[0].hi, b.box.dim[1].lo, b.box.dim[1].hi,
                       b.box.dim[2].lo, b.box.dim[2].hi);
  };
  for (std::size_t i = 0; i < p.rules.size(); ++i)
    out += fmt::format("  if ({}) return {}; // {}\n", cpp_export::condition(p.rules[i].condition),
                       value(i), branch_comment(p, *t, i));
  out += fmt::format("  return {}; // {}\n}}\n\n", value(p.rules.size()),
                     branch_comment(p, *t, p.rules.size()));
  return out;
}

} // namespace tv
