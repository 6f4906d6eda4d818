#include "ir/error.hpp"
#include "models/data_dir.hpp"
#include "models/workloads/hipblaslt_log.hpp"

#include <doctest/doctest.h>

#include <fmt/format.h>
#include <string>
#include <vector>

// In a namespace of its own: the test files are compiled several to a unit (unity build).
namespace hipblaslt_log_test {

using namespace tv;

namespace {

/// One log line as hipBLASLt writes it (the GEKO README's field list), with the fields that
/// matter given and the rest at typical values.
std::string entry(std::int64_t m, std::int64_t n, std::int64_t k, char ta, char tb,
                  std::int64_t batch, const std::string& type, std::int64_t calls,
                  const std::string& function = "matmul") {
  return fmt::format(
      "- {{function: {}, M: {}, N: {}, K: {}, lda: {}, ldb: {}, ldc: {}, ldd: {}, stride_a: 0, "
      "stride_b: 0, stride_c: 0, stride_d: 0, alpha: 1.0, beta: 0.0, transA: {}, transB: {}, "
      "batch_count: {}, scaleA: 0, scaleB: 0, scaleAlpha_vector: false, gradient: false, "
      "use_e: false, bias_vector: false, bias_source: d, a_type: {}, b_type: {}, c_type: {}, "
      "d_type: {}, scale_type: f32_r, bias_type: f32_r, compute_type: c_f32_r, "
      "activation_type: none, flush: false, rotating: 512, cold_iters: 0, iters: 0, "
      "call_count: {}}}\n",
      function, m, n, k, ta == 'T' ? k : m, tb == 'T' ? n : k, m, m, ta, tb, batch, type, type,
      type == "f8_r" ? "bf16_r" : type, type == "f8_r" ? "bf16_r" : type, calls);
}

std::string error_of(const std::string& text) {
  try {
    parse_hipblaslt_log(text, "w.yaml", "w");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

/// Column-major D = op(A) * op(B) as BLAS defines it: A is M x K (transA N, lda >= M) or
/// K x M (transA T, lda >= K), B is K x N or N x K, D is M x N with ldd = M.
std::vector<double> blas_gemm(char ta, char tb, int M, int N, int K, const std::vector<double>& A,
                              int lda, const std::vector<double>& B, int ldb) {
  std::vector<double> D(std::size_t(M) * N, 0.0);
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      double s = 0;
      for (int p = 0; p < K; ++p) {
        const double a = ta == 'N' ? A[std::size_t(i + p * lda)] : A[std::size_t(p + i * lda)];
        const double b = tb == 'N' ? B[std::size_t(p + j * ldb)] : B[std::size_t(j + p * ldb)];
        s += a * b;
      }
      D[std::size_t(i + j * M)] = s;
    }
  return D;
}

/// Row-major C[M,N] = A[M,K] * B[K,N] where layout letter 'N' means the operand is stored
/// row-major in its buffer (element (r, c) at r * cols + c) and 'T' column-major (at
/// c * rows + r), with the leading dimensions of the buffers as hipBLASLt gave them.
std::vector<double> row_major_gemm(const RowMajorGemm& g, const std::vector<double>& A, int lda,
                                   const std::vector<double>& B, int ldb) {
  std::vector<double> C(std::size_t(g.M * g.N), 0.0);
  for (int i = 0; i < g.M; ++i)
    for (int j = 0; j < g.N; ++j) {
      double s = 0;
      for (int p = 0; p < g.K; ++p) {
        const double a =
            g.layout[0] == 'N' ? A[std::size_t(i * lda + p)] : A[std::size_t(p * lda + i)];
        const double b =
            g.layout[1] == 'N' ? B[std::size_t(p * ldb + j)] : B[std::size_t(j * ldb + p)];
        s += a * b;
      }
      C[std::size_t(i * g.N + j)] = s;
    }
  return C;
}

} // namespace

TEST_CASE("hipblaslt_log: the transA/transB mapping is the row-major problem on the same bytes") {
  // For each combination, compute the column-major BLAS GEMM of the log, then the row-major
  // GEMM the mapping claims, reading the log's B buffer as the row-major first operand and
  // A's as the second: the output buffers must hold the same numbers (row-major C[N,M] is
  // column-major D[M,N]).
  const int m = 5, n = 3, k = 4;
  for (char ta : {'N', 'T'})
    for (char tb : {'N', 'T'}) {
      INFO("transA " << ta << " transB " << tb);
      const int lda = ta == 'N' ? m + 1 : k + 2; // padded leading dimensions
      const int ldb = tb == 'N' ? k + 1 : n + 3;
      std::vector<double> A(std::size_t(lda) * (ta == 'N' ? k : m));
      std::vector<double> B(std::size_t(ldb) * (tb == 'N' ? n : k));
      for (std::size_t i = 0; i < A.size(); ++i)
        A[i] = double((i * 7) % 11) - 5;
      for (std::size_t i = 0; i < B.size(); ++i)
        B[i] = double((i * 5) % 13) - 6;
      const std::vector<double> D = blas_gemm(ta, tb, m, n, k, A, lda, B, ldb);
      const RowMajorGemm g = row_major_of(m, n, k, ta, tb);
      CHECK(g.M == n);
      CHECK(g.N == m);
      CHECK(g.K == k);
      CHECK(row_major_gemm(g, B, ldb, A, lda) == D);
    }
  // The table of the documentation, and nn.Linear's y = x @ W^T.
  CHECK(row_major_of(4096, 128, 8192, 'T', 'N') == RowMajorGemm{128, 4096, 8192, "NT"});
  CHECK(row_major_of(7, 3, 5, 'N', 'N').layout == "NN");
  CHECK(row_major_of(7, 3, 5, 'N', 'T').layout == "TN");
  CHECK(row_major_of(7, 3, 5, 'T', 'T').layout == "TT");
}

TEST_CASE("hipblaslt_log: duplicates merge, batches weigh, fp8 is kept, other types are counted, "
          "bad lines are named") {
  // y = x @ W^T with 128 tokens, hidden 4096, output 6144 (logged M: 6144, N: 128), twice;
  // the same GEMM with transposes swapped is a different layout; a batched GEMM; fp8 GEMMs
  // (f8_r and f8_fnuz_r, kept as fp8 like --inline's; f8_r x bf16_r, mixed); a function that
  // is not matmul.
  std::string log = "# captured with HIPBLASLT_LOG_MASK=64\n";
  log += entry(6144, 128, 4096, 'T', 'N', 1, "bf16_r", 96);
  log += entry(6144, 128, 4096, 'T', 'N', 1, "bf16_r", 32); // duplicate of line 2
  log += "\n";
  log += entry(6144, 128, 4096, 'N', 'N', 1, "bf16_r", 5); // same sizes, layout NN
  log += entry(64, 512, 128, 'N', 'T', 40, "f16_r", 3);    // batched: 3 calls x 40 GEMMs
  log += entry(6144, 128, 4096, 'T', 'N', 1, "f8_r", 7);
  log += "- {function: matmul, M: 1, N: 2, K: 3, transA: N, transB: N, a_type: f8_r, "
         "b_type: bf16_r, call_count: 6}\n";
  log += "- {function: matmul, M: 1, N: 2, K: 3, transA: N, transB: N, a_type: f8_fnuz_r, "
         "b_type: f8_fnuz_r, call_count: 11}\n";
  log += "- {function: matmul_grouped, groups: 4, call_count: 2}\n";
  log += "{function: matmul, M: 64, N: 512, K: 128, transA: N, transB: T, batch_count: 40, "
         "a_type: f16_r, b_type: f16_r}\n"; // bare map, no call_count: 1 call

  const HipblasltLog r = parse_hipblaslt_log(log, "w.yaml", "w");
  REQUIRE(r.shapes.size() == 5);
  CHECK(r.shapes[0].name == "w:bf16:NT:M128:N6144:K4096");
  CHECK(r.shapes[0].M == 128);
  CHECK(r.shapes[0].N == 6144);
  CHECK(r.shapes[0].K == 4096);
  CHECK(r.shapes[0].layout == "NT");
  CHECK(r.shapes[0].dtype == DType::bf16);
  CHECK(r.shapes[0].weight == 128);
  CHECK(r.shapes[1].name == "w:bf16:NN:M128:N6144:K4096");
  CHECK(r.shapes[1].weight == 5);
  CHECK(r.shapes[2].name == "w:f16:TN:M512:N64:K128");
  CHECK(r.shapes[2].weight == 3 * 40 + 1 * 40);
  CHECK(r.shapes[3].name == "w:fp8:NT:M128:N6144:K4096");
  CHECK(r.shapes[3].dtype == DType::fp8);
  CHECK(r.shapes[3].weight == 7);
  CHECK(r.shapes[4].name == "w:fp8:NN:M2:N1:K3");
  CHECK(r.shapes[4].weight == 11);
  CHECK(r.entries == 9);
  CHECK(r.kept_lines == 7);
  CHECK(r.kept_calls == 96 + 32 + 5 + 3 + 1 + 7 + 11);
  REQUIRE(r.skipped.size() == 2);
  CHECK(r.skipped.at("mixed types a_type f8_r b_type bf16_r") ==
        std::pair<std::size_t, double>{1, 6});
  CHECK(r.skipped.at("function matmul_grouped") == std::pair<std::size_t, double>{1, 2});
  CHECK(r.summary() == "9 entries, 7 kept -> 5 GEMMs after merging identical ones (weight = "
                       "call_count x batch_count); skipped 2 entries: 1 with function "
                       "matmul_grouped (2 calls), 1 with mixed types a_type f8_r b_type bf16_r "
                       "(6 calls)");

  // The same log with a malformed line 6: the error names the file and that line.
  std::string bad = log;
  std::size_t pos = 0;
  for (int line = 1; line < 6; ++line)
    pos = bad.find('\n', pos) + 1;
  bad.insert(pos, "- {function: matmul, M: 64, N: 512, K: 128, transA: N, transB: T, "
                  "a_type: f16_r, b_type: f16_r, call_count: many}\n");
  CHECK(error_of(bad) == "w.yaml:6: call_count must be an integer in [1, 1125899906842624], "
                         "got 'many'");
}

TEST_CASE("hipblaslt_log: malformed lines are errors naming the line and what was expected") {
  const std::string ok = entry(1, 2, 3, 'N', 'N', 1, "bf16_r", 1);
  CHECK(error_of(ok + "- {function: matmul, M: 1, N: 2\n") ==
        "w.yaml:2: unbalanced braces or brackets");
  CHECK(error_of(ok + "garbage\n") == "w.yaml:2: expected one flow map '{...}', found none");
  CHECK(error_of(ok + "- {a: {b: 1}}\n") ==
        "w.yaml:2: expected one flow map '{...}', found nesting 2 deep");
  CHECK(error_of("- [1, 2]\n") ==
        "w.yaml:1: expected one entry '- {function: matmul, M: ..., N: ..., K: ..., ...}'");
  CHECK(error_of("- {function: matmul, M: 1, N: 2, K: 3, transA: N, transB: N, a_type: "
                 "bf16_r}\n") == "w.yaml:1: missing b_type");
  CHECK(error_of("- {function: matmul, M: 1.5, N: 2, K: 3}\n") ==
        "w.yaml:1: M must be an integer in [0, 2147483648], got '1.5'");
  CHECK(error_of("- {function: matmul, M: 1, N: -2, K: 3}\n") ==
        "w.yaml:1: N must be an integer in [0, 2147483648], got '-2'");
  CHECK(error_of("- {function: matmul, M: 1, N: 2, K: 3, transA: C, transB: N}\n") ==
        "w.yaml:1: transA must be N or T, got 'C'");
  CHECK(error_of("- {function: matmul, M: 1, N: 2, K: 3, transA: N, transB: N, batch_count: 0, "
                 "a_type: bf16_r, b_type: bf16_r}\n") ==
        "w.yaml:1: batch_count must be an integer in [1, 2147483648], got '0'");
  CHECK(error_of("- {function: matmul, M: 1, M: 2, \"N\": 3, K: 'x}\n")
            .rfind("w.yaml:1: malformed YAML at column", 0) == 0);
  CHECK(error_of(ok + "- {function: matmul, M: 1" + std::string(20000, ' ') + "}\n")
            .rfind("w.yaml:2: line is 20026 bytes long; an entry is at most 16384", 0) == 0);
  // Nothing to tune is an error too, with what was seen.
  CHECK(error_of("") == "w.yaml: no bf16, f16 or f32 matmul GEMM to tune (no entries; expected "
                        "hipBLASLt profile lines written with HIPBLASLT_LOG_MASK=64)");
  CHECK(error_of(entry(1, 2, 3, 'N', 'N', 1, "i8_r", 4)) ==
        "w.yaml: no bf16, f16 or f32 matmul GEMM to tune (1 entry, 0 kept -> 0 GEMMs after "
        "merging identical ones (weight = call_count x batch_count); skipped 1 entry: 1 with "
        "a_type i8_r (4 calls))");
  // A zero-sized GEMM is no error, but nothing to tune either: it is counted.
  const HipblasltLog z =
      parse_hipblaslt_log(ok + entry(0, 2, 3, 'N', 'N', 1, "bf16_r", 9), "w.yaml", "w");
  CHECK(z.shapes.size() == 1);
  CHECK(z.skipped.at("a zero size") == std::pair<std::size_t, double>{1, 9});
}

TEST_CASE("hipblaslt_log: a key given twice in an entry is refused with the file and line") {
  const std::string ok = entry(1, 2, 3, 'N', 'N', 1, "bf16_r", 1);
  // yaml-cpp alone would take the first M and accept the line.
  CHECK(error_of(ok + "- {function: matmul, M: 4096, M: 8192, N: 128, K: 4096, transA: T, "
                      "transB: N, a_type: bf16_r, b_type: bf16_r, call_count: 2}\n") ==
        "w.yaml:2: key 'M' is given twice");
  CHECK(error_of("- {function: matmul, function: gemm, M: 1, N: 2, K: 3}\n") ==
        "w.yaml:1: key 'function' is given twice");
  CHECK(error_of(ok + "- {function: foo, call_count: 1, call_count: 7}\n") ==
        "w.yaml:2: key 'call_count' is given twice");
}

TEST_CASE("hipblaslt_log: the summary and its error stay short whatever the log skips") {
  // 20,000 distinct unknown functions (a 100 MB log of 433k made a 43 MB message), a few
  // repeated ones, and one function name of 10 KB.
  std::string log;
  for (int i = 0; i < 20000; ++i)
    log += fmt::format("- {{function: unknown_fn_{}, call_count: 1}}\n", i);
  for (int i = 0; i < 5; ++i)
    log += "- {function: often, call_count: 3}\n";
  log += "- {function: " + std::string(10000, 'x') + ", call_count: 1}\n";
  const std::string e = error_of(log);
  INFO(e.substr(0, 2000));
  CHECK(e.size() < 1500);
  CHECK(e.find("w.yaml: no bf16, f16 or f32 matmul GEMM to tune (20006 entries") == 0);
  // The most frequent reason comes first; the other reasons are counted, not listed.
  CHECK(e.find("skipped 20006 entries: 5 with function often (15 calls), 1 with function "
               "unknown_fn_0 (1 call)") != std::string::npos);
  CHECK(e.find(", and 19994 with 19994 other reasons (19994 calls))") != std::string::npos);
  CHECK(e.find("unknown_fn_19999") == std::string::npos);

  // Kept GEMMs beside the skipped ones: the report's summary is as short.
  const HipblasltLog r =
      parse_hipblaslt_log(log + entry(1, 2, 3, 'N', 'N', 1, "bf16_r", 1), "w.yaml", "w");
  CHECK(r.summary().size() < 1500);
  CHECK(r.skipped.count("function " + std::string(80, 'x') + "...(10000 bytes)") == 1);
  // A long value in an error is cut too.
  CHECK(error_of("- {function: matmul, M: 1, N: 2, K: 3, transA: " + std::string(5000, 'y') +
                 ", transB: N}\n") ==
        "w.yaml:1: transA must be N or T, got '" + std::string(80, 'y') + "...(5000 bytes)'");
}

TEST_CASE("hipblaslt_log: the sample workload loads with names from its file stem") {
  const std::string path = data_path("workloads/llama3_8b_vllm_mi300x.yaml");
  const HipblasltLog r = load_hipblaslt_log(path);
  REQUIRE(!r.shapes.empty());
  for (const Shape& s : r.shapes) {
    CHECK(s.name.rfind("llama3_8b_vllm_mi300x:bf16:NT:", 0) == 0);
    CHECK(s.weight > 0);
  }
  CHECK(r.skipped.empty());
  CHECK_THROWS_AS(load_hipblaslt_log(data_path("workloads")), InputError);
  CHECK_THROWS_AS(load_hipblaslt_log(data_path("workloads/no_such.yaml")), InputError);
}

} // namespace hipblaslt_log_test
