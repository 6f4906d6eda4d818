#pragma once
/// The C++ export: a self-contained C++17 header with a constexpr function that returns a plain
/// struct, for a kernel library written in C++.
///
///     #include "best.hpp"
///     constexpr auto c = tilevolve_heuristic::choose(M, N, K);
///     if (c.vendor) { /* call cuBLAS / hipBLASLt */ } else { /* launch with c.block_m ... */ }
///
/// The function decides exactly as the IR does for every 64-bit M, N, K, derived features
/// included: M * N and tile counts are computed with M and N below 1 counted as 1 and saturate
/// at kDimMax, like Comparison::value_of. Beside it, `constexpr bool in_training_range(M, N, K)`
/// and `kTrainingShapes` (training_range_code.hpp).
#include "ir/exporters/export_info.hpp"
#include "ir/program.hpp"

#include <string>

namespace tv {

/// Options of the C++ export.
struct CppExportOptions {
  /// Namespace of the struct and the function; `a::b` nests. Must be C++ identifiers.
  std::string name_space = "tilevolve_heuristic";
};

/// The header text; throws InputError when the namespace is not a valid C++ name.
std::string export_cpp(const Program& p, const ExportInfo& info, const CppExportOptions& o = {});

/// Pieces shared with the training range's code.
namespace cpp_export {

/// A rule condition as a C++ expression over M, N, K ("true" for the empty conjunction); derived
/// features call detail::output_size and detail::tiles, which the header defines when used.
std::string condition(const Condition& c);

} // namespace cpp_export

} // namespace tv
