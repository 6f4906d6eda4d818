#include "ir/exporters/cpp_exporter.hpp"

#include "ir/error.hpp"
#include "ir/exporters/training_range_code.hpp"

#include <cctype>
#include <fmt/format.h>

namespace tv {

namespace {

bool is_identifier(std::string_view s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  for (const char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
  return true;
}

void check_namespace(const std::string& ns) {
  std::size_t start = 0;
  while (true) {
    const std::size_t end = ns.find("::", start);
    if (!is_identifier(std::string_view(ns).substr(start, end - start)))
      throw InputError(
          fmt::format("C++ namespace '{}': expected identifiers joined by '::'", comment_safe(ns)));
    if (end == std::string::npos) return;
    start = end + 2;
  }
}

std::string literal(std::int64_t v) {
  if (v == INT64_MIN) return "(-9223372036854775807LL - 1)";
  return fmt::format("{}LL", v);
}

std::string cpp_term(const Comparison& t) {
  return fmt::format("{} {} {}", feature_call(t, "detail::output_size", "detail::tiles"),
                     cmp_op_text(t.op), literal(t.value));
}

} // namespace

std::string cpp_export::condition(const Condition& c) {
  std::string cond;
  for (const auto& t : c.terms)
    cond += (cond.empty() ? "" : " && ") + cpp_term(t);
  return cond.empty() ? "true" : cond;
}

namespace {

std::string config_text(const Config& c) {
  if (c.vendor) return "TileConfig{true, 0, 0, 0, 0, 0, 0, -1, -1, -1}";
  const auto knob = [](const std::optional<int>& k) { return k ? *k : -1; };
  return fmt::format("TileConfig{{false, {}, {}, {}, {}, {}, {}, {}, {}, {}}}", c.BM, c.BN, c.BK,
                     c.group, c.warps, c.stages, knob(c.waves_per_eu), knob(c.matrix_instr_nonkdim),
                     knob(c.kpack));
}

} // namespace

std::string export_cpp(const Program& p, const ExportInfo& info, const CppExportOptions& o) {
  check_namespace(o.name_space);
  bool uses[3] = {false, false, false}; // M, N, K
  bool derived = false;
  for (const auto& r : p.rules)
    for (const auto& t : r.condition.terms) {
      if (is_derived(t.feature))
        uses[0] = uses[1] = derived = true;
      else
        uses[int(t.feature)] = true;
    }
  std::string out;
  for (const auto& l : provenance_lines(p, info))
    out += "// " + l + "\n";
  out +=
      "//\n"
      "// choose(M, N, K) returns the tile config for the GEMM C[M,N] = A[M,K] * B[K,N]: the "
      "first\n"
      "// rule whose condition holds decides, else the default. Self-contained C++17, constexpr.\n"
      "#pragma once\n\n#include <cstdint>\n\n";
  out += fmt::format("namespace {} {{\n\n", o.name_space);
  out += "/// A Triton-style tile config, or the vendor library.\n"
         "struct TileConfig {\n"
         "  bool vendor;                  ///< true: call the vendor library (cuBLAS, hipBLASLt);\n"
         "                                ///< the other fields are then 0 and -1\n"
         "  int block_m, block_n, block_k; ///< BLOCK_SIZE_M, BLOCK_SIZE_N, BLOCK_SIZE_K\n"
         "  int group_m;                   ///< GROUP_SIZE_M (L2 swizzle of the tile order)\n"
         "  int num_warps, num_stages;\n"
         "  int waves_per_eu, matrix_instr_nonkdim, kpack; ///< AMD knobs; -1 = not set\n"
         "};\n\n";
  if (derived)
    out +=
        "namespace detail {\n"
        "/// Derived features saturate here and count M, N below 1 as 1 (as tilevolve's IR).\n"
        "constexpr std::int64_t kMax = INT64_MAX / 4;\n"
        "constexpr std::int64_t dim(std::int64_t x) { return x < 1 ? 1 : (x > kMax ? kMax : x); }\n"
        "constexpr std::int64_t mul(std::int64_t a, std::int64_t b) {\n"
        "  return a > kMax / b ? kMax : a * b;\n"
        "}\n"
        "constexpr std::int64_t cdiv(std::int64_t a, std::int64_t b) { return a / b + (a % b != "
        "0); }\n"
        "/// The output size M * N.\n"
        "constexpr std::int64_t output_size(std::int64_t M, std::int64_t N) {\n"
        "  return mul(dim(M), dim(N));\n"
        "}\n"
        "/// Output tiles of bm x bn: cdiv(M, bm) * cdiv(N, bn).\n"
        "constexpr std::int64_t tiles(std::int64_t M, std::int64_t N, std::int64_t bm, "
        "std::int64_t bn) {\n"
        "  return mul(cdiv(dim(M), bm), cdiv(dim(N), bn));\n"
        "}\n"
        "} // namespace detail\n\n";
  const auto param = [&](int i, const char* name) {
    return fmt::format("{}std::int64_t {}", uses[i] ? "" : "[[maybe_unused]] ", name);
  };
  out += fmt::format("/// The heuristic ({} rule{} and a default).\n"
                     "constexpr TileConfig choose({}, {}, {}) noexcept {{\n",
                     p.rules.size(), p.rules.size() == 1 ? "" : "s", param(0, "M"), param(1, "N"),
                     param(2, "K"));
  for (const auto& r : p.rules)
    out += fmt::format("  if ({}) return {}; // {}\n", cpp_export::condition(r.condition),
                       config_text(r.config), r.config.brief());
  out += fmt::format("  return {}; // {}\n}}\n\n", config_text(p.default_config),
                     p.default_config.brief());
  out += cpp_training_range(p, info);
  out += fmt::format("}} // namespace {}\n", o.name_space);
  return out;
}

} // namespace tv
