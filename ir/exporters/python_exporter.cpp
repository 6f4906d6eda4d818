#include "ir/exporters/python_exporter.hpp"

#include "ir/exporters/training_range_code.hpp"
#include "ir/exporters/triton_meta.hpp"

#include <fmt/format.h>

namespace tv {

namespace python_export {

namespace {

std::string python_term(const Comparison& t) {
  return fmt::format("{} {} {}", feature_call(t, "_output_size", "_tiles"), cmp_op_text(t.op),
                     t.value);
}

} // namespace

std::string helpers(const Program& p) {
  bool derived = false;
  for (const auto& r : p.rules)
    derived = derived || r.condition.has_derived();
  if (!derived) return "";
  return "# Derived features count M, N below 1 as 1 and saturate at (2**63 - 1) // 4, as in\n"
         "# tilevolve's IR, so every comparison decides exactly as there.\n"
         "_MAX = 2305843009213693951\n\n\n"
         "def _dim(x):\n"
         "    return 1 if x < 1 else min(x, _MAX)\n\n\n"
         "def _output_size(M, N):\n"
         "    \"\"\"M * N.\"\"\"\n"
         "    return min(_dim(M) * _dim(N), _MAX)\n\n\n"
         "def _tiles(M, N, bm, bn):\n"
         "    \"\"\"Output tiles of bm x bn: cdiv(M, bm) * cdiv(N, bn).\"\"\"\n"
         "    return min(-(-_dim(M) // bm) * -(-_dim(N) // bn), _MAX)\n\n\n";
}

std::string meta_dict(const Config& c) {
  std::string out = "{";
  bool first = true;
  for (const auto& [name, value] : triton_meta(c)) {
    out += fmt::format("{}\"{}\": {}", first ? "" : ", ", name, value);
    first = false;
  }
  return out + "}";
}

std::string branch_function(const Program& p, std::string_view name, std::string_view doc,
                            const std::function<std::string(std::size_t)>& value,
                            const std::function<std::string(std::size_t)>& comment) {
  std::string out = fmt::format("def {}(M, N, K):\n    \"\"\"{}\"\"\"\n", name, doc);
  for (std::size_t i = 0; i < p.rules.size(); ++i) {
    std::string cond;
    for (const auto& t : p.rules[i].condition.terms)
      cond += (cond.empty() ? "" : " and ") + python_term(t);
    if (cond.empty()) cond = "True";
    out += fmt::format("    if {}:\n        return {}  # {}\n", cond, value(i), comment(i));
  }
  out += fmt::format("    return {}  # {}\n", value(p.rules.size()), comment(p.rules.size()));
  return out;
}

std::string decision_function(const Program& p, std::string_view name, std::string_view doc,
                              const std::function<std::string(const Config&)>& value) {
  const auto config_of = [&](std::size_t i) -> const Config& {
    return i < p.rules.size() ? p.rules[i].config : p.default_config;
  };
  return branch_function(
      p, name, doc, [&](std::size_t i) { return value(config_of(i)); },
      [&](std::size_t i) { return config_of(i).brief(); });
}

} // namespace python_export

std::string export_python(const Program& p, const ExportInfo& info) {
  std::string out;
  for (const auto& l : provenance_lines(p, info))
    out += "# " + l + "\n";
  out += "#\n"
         "# choose(M, N, K) returns the Triton meta-parameters of the GEMM C[M,N] = A[M,K] @ "
         "B[K,N] as a\n"
         "# dict: pass it to a Triton matmul launch (kernel[grid](..., **choose(M, N, K))) or "
         "write it\n"
         "# into a vLLM/SGLang config file. Where the heuristic calls the vendor library (cuBLAS,\n"
         "# hipBLASLt) instead it returns VENDOR (None). Plain Python 3, nothing imported.\n\n"
         "VENDOR = None  # returned where the vendor library should run the GEMM\n\n\n";
  out += python_export::helpers(p);
  out += python_export::decision_function(
      p, "choose",
      "Triton meta-parameters for the GEMM (M, N, K), or VENDOR: the first rule that holds "
      "decides.",
      [](const Config& c) {
        return c.vendor ? std::string("VENDOR") : python_export::meta_dict(c);
      });
  out += "\n\n" + python_training_range(p, info);
  return out;
}

} // namespace tv
