#pragma once
/// Reader for PyTorch Inductor AutoHeuristic matmul datasets (e.g. h100_mm.txt from
/// AlnisM/autoheuristic-datasets): line 1 a JSON object describing the device and features,
/// then a CSV of measured Triton mm configs and the vendor library ("extern_mm") per shape.
/// Also Inductor's rule that shrinks a config to a small shape before launching it, because
/// the dataset records every row under its shrunk config.
#include "ir/config.hpp"
#include "ir/shape.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tv {

/// GROUP_M of every Triton mm template Inductor launched for this data: its mm_options()
/// (torch/_inductor/kernel/mm_common.py) passes the constant GROUP_M=8, and the datasets
/// have no group column. Configs read from the data carry this value.
inline constexpr int kInductorGroupM = 8;

/// One measured row. The shape is C[M,N] = mat1[M,K] * mat2[K,N] (the file's m, n, k).
struct AutoHeuristicRow {
  int line = 0;                     ///< 1-based line in the file
  std::int64_t M = 1, N = 1, K = 1; ///< the file's m, n, k
  DType dtype = DType::bf16;        ///< of both operands (rows with mixed dtypes are skipped)
  bool tf32 = false;                ///< the using_tf32 column is "True" (only meaningful for f32)
  /// Operand layouts, one letter per operand (mat1 then mat2): 'N' row-major (stride_1 == 1),
  /// 'T' column-major (stride_0 == 1), 'S' any other stride pattern; e.g. "NN", "NT".
  std::string layout;
  /// The Triton config as recorded (already shrunk to the shape, group kInductorGroupM);
  /// nullopt for the vendor library row (choice "extern_mm").
  std::optional<Config> config;
  /// The measured time in seconds (the file holds milliseconds); nullopt when the row
  /// failed (feedback "inf").
  std::optional<double> seconds;
};

/// A parsed dataset: the device description of line 1 and the rows we can represent.
struct AutoHeuristicData {
  std::string name;                                     ///< the JSON "name", e.g. "mm"
  std::optional<long long> shared_memory;               ///< bytes per block, from the JSON
  std::optional<std::pair<int, int>> device_capability; ///< e.g. {9, 0}
  std::vector<AutoHeuristicRow> rows;                   ///< in file order
  std::size_t skipped_rows = 0; ///< rows with a dtype tilevolve has no name for (e.g. int8)
};

/// True when `first_line` looks like an AutoHeuristic dataset's first line (a JSON object).
bool looks_like_autoheuristic(std::string_view first_line);
/// Parses a dataset; throws InputError "<source>:<line>: what was expected" on a bad JSON
/// line, a missing column, a wrong field count, a bad number or size, an unknown choice, or a
/// negative, zero or NaN time. Blank lines are skipped.
AutoHeuristicData parse_autoheuristic(std::string_view text, std::string_view source);
/// Reads and parses a dataset file; throws InputError if it cannot be read.
AutoHeuristicData load_autoheuristic_file(const std::string& path);

/// The layout letter pair of one operand pair from its strides (see AutoHeuristicRow::layout);
/// `contig1`/`contig2` break the tie when both strides of an operand are 1.
std::string layout_of(std::int64_t s10, std::int64_t s11, bool contig1, std::int64_t s20,
                      std::int64_t s21, bool contig2);

/// The config Inductor actually launches for `c` on an M x N x K problem: each block size
/// becomes max(min(block, next_pow2(dim)), 16) (BM vs M, BN vs N, BK vs K) and warps become
/// min(warps, BM*BN/256) on the shrunk blocks (at least 1). Other fields are unchanged.
Config inductor_shrink(const Config& c, std::int64_t M, std::int64_t N, std::int64_t K);

} // namespace tv
