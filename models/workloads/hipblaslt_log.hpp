#pragma once
/// Reader for hipBLASLt profile logs, captured with `HIPBLASLT_LOG_MASK=64` (and
/// `HIPBLASLT_LOG_FILE=...`): one YAML flow map per line, e.g.
///
///   - {function: matmul, M: 4096, N: 128, K: 4096, lda: 4096, ..., transA: T, transB: N,
///      batch_count: 1, ..., a_type: bf16_r, b_type: bf16_r, c_type: bf16_r, d_type: bf16_r,
///      ..., compute_type: c_f32_r, ..., call_count: 96}
///
/// (on one line; hipBLASLt writes each distinct argument set once, with how often it was
/// called). Each line is parsed with yaml-cpp on its own, so errors name the line.
///
/// hipBLASLt is column-major: it computes D[M,N] = op(A)[M,K] * op(B)[K,N] on column-major
/// buffers. The same bytes read row-major hold the transposes, so the row-major problem a
/// tiling heuristic sees is C[N,M] = op(B)^T * op(A)^T: its M is the log's N, its N the log's M,
/// K stays, and its first operand is the log's B (row-major when transB is N), its second
/// the log's A (row-major when transA is N). As a table (tilevolve layouts, see Shape::layout):
///
///   transA transB   row-major (M, N, K)        layout
///   N      N        (log N, log M, log K)       NN
///   T      N        (log N, log M, log K)       NT   (nn.Linear's y = x @ W^T)
///   N      T        (log N, log M, log K)       TN
///   T      T        (log N, log M, log K)       TT
///
/// So a row-major y = x @ W^T with T tokens, hidden size H and output width O is logged as
/// `M: O, N: T, K: H, transA: T, transB: N` and becomes M = T, N = O, K = H, layout NT.
///
/// What is kept: `function: matmul` entries whose a_type and b_type are the same type
/// tilevolve times: bf16_r, f16_r, f32_r, or an fp8 type (f8_r, f8_fnuz_r, bf8_r,
/// bf8_fnuz_r: dtype fp8, as --inline and shape CSVs take it) (c_type, d_type and
/// compute_type do not change the tile decision and are not checked). Other functions, other
/// types (int8, f64, complex) and mixed-type GEMMs (f8_r x bf8_r too), and GEMMs with a zero
/// size, are skipped and counted by reason. Identical GEMMs (same row-major M, N, K, dtype and
/// layout) are merged; a GEMM's weight is the sum over its lines of call_count x batch_count
/// (a batched call runs batch_count GEMMs). call_count and batch_count default to 1 when
/// absent.
///
/// Untrusted input: a line longer than 16 KiB, nested deeper than one flow map, or with
/// any other shape than one map (optionally as a one-item `- ` sequence) is an error naming
/// the file and line, as is a key given twice, a missing or non-integer size, a
/// transA/transB other than N or T, or a count out of range. Blank lines and `#` comment
/// lines are skipped. Values quoted in skip reasons and messages are cut to 80 bytes.
#include "ir/shape.hpp"

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace tv {

/// A GEMM as a row-major tiling heuristic sees it.
struct RowMajorGemm {
  std::int64_t M = 1, N = 1, K = 1;
  std::string layout; ///< "NN", "NT", "TN" or "TT" (first letter: A, second: B)
  friend bool operator==(const RowMajorGemm&, const RowMajorGemm&) = default;
};

/// The row-major problem of a hipBLASLt call with sizes m, n, k and transA/transB 'N' or 'T'
/// (see the table above): {n, m, k, layout = transB then transA}.
RowMajorGemm row_major_of(std::int64_t m, std::int64_t n, std::int64_t k, char transA, char transB);

/// The GEMMs of a log and what was left out.
struct HipblasltLog {
  /// Merged GEMMs in order of first appearance, named
  /// "<prefix>:<dtype>:<layout>:M<m>:N<n>:K<k>", weight = sum of call_count x batch_count.
  std::vector<Shape> shapes;
  std::size_t entries = 0;    ///< lines holding an entry (kept or skipped)
  std::size_t kept_lines = 0; ///< entries that became (part of) a shape
  double kept_calls = 0;      ///< sum of call_count over the kept entries
  /// Skipped entries by reason (e.g. "a_type f8_r", "function matmul_grouped"): lines, calls.
  std::map<std::string, std::pair<std::size_t, double>> skipped;

  /// One line for reports, e.g. "12 entries -> 8 GEMMs (weight = call_count x batch_count);
  /// skipped 2 entries: 1 with a_type f8_r (40 calls), 1 with function foo (1 call)". It
  /// names the 8 most frequent reasons and counts the others together ("..., and 90 with 90
  /// other reasons (90 calls)"), so it stays short whatever the log holds.
  std::string summary() const;
};

/// Parses a log; `source` names it in errors ("log.yaml:7: ..."), `prefix` starts every shape
/// name. Throws InputError for a malformed line (see above) or a log without any kept GEMM.
HipblasltLog parse_hipblaslt_log(std::string_view text, std::string_view source,
                                 std::string_view prefix);
/// Reads and parses a log file; the prefix is the file's stem with characters other than
/// letters, digits, '.', '_' and '-' replaced by '_'. Throws InputError if it cannot be read.
HipblasltLog load_hipblaslt_log(const std::string& path);

} // namespace tv
