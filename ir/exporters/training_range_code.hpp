#pragma once
/// The training-range signal in the code exports: `in_training_range(M, N, K)` beside `choose`,
/// true where the rule that decides (M, N, K) decided training shapes and (M, N, K) lies in their
/// box (ir/training_range.hpp), so that a deployment can fall back to autotuning elsewhere:
///
///     meta = choose(M, N, K) if in_training_range(M, N, K) else autotuned(M, N, K)
///
/// The function repeats the program's conditions, each branch returning whether (M, N, K) lies in
/// that branch's training box; without known training shapes it returns false everywhere.
#include "ir/exporters/export_info.hpp"
#include "ir/program.hpp"

#include <string>

namespace tv {

/// Python: a comment, TRAINING_SHAPES and `def in_training_range(M, N, K)` (after the helpers
/// python_export::helpers writes for `p`).
std::string python_training_range(const Program& p, const ExportInfo& info);

/// C++17: kTrainingShapes and `constexpr bool in_training_range(M, N, K) noexcept`, for the
/// namespace of the C++ export (after its detail helpers).
std::string cpp_training_range(const Program& p, const ExportInfo& info);

} // namespace tv
