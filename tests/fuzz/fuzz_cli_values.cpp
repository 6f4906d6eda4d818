// Fuzz target for the small readers of command-line values and headers: the first byte picks the
// reader, the rest is its text. Each must return a value or raise InputError (nothing else
// escapes, nothing crashes, hangs or leaks), and what it returns must keep the reader's
// contract: sizes in range, lists without repeats, and printing then parsing gives the same
// value where a printer exists.
//   0 `--inline M,N,K[,dtype]`      parse_inline_shape (models/workloads/inline_shapes.hpp)
//   1 `--tokens 1,16,128`           parse_token_counts (models/workloads/model_presets.hpp)
//   2 `--tree-features M,N,MN,..`   parse_tree_features (eval/decision_tree.hpp)
//   3 `--split-features MNK`        parse_split_features (evolve/mock_llm.hpp)
//   4 an HTTP Retry-After header    parse_retry_after (evolve/mutators/retry_policy.hpp)
//   5 one `Config(BM=.., ..)`       parse_config (ir/text.hpp)
//   6 `--max-kernel-runs N|P%|none` KernelRunBudget::parse (evolve/kernel_run_budget.hpp)
//   7 the model table (models.json) parse_model_table, preset_shapes (model_presets.hpp)
// Seeds in tests/fuzz/corpus/cli_values/. Built by -DTILEVOLVE_FUZZ=ON.
#include "eval/decision_tree.hpp"
#include "evolve/kernel_run_budget.hpp"
#include "evolve/mock_llm.hpp"
#include "evolve/mutators/retry_policy.hpp"
#include "ir/error.hpp"
#include "ir/shape.hpp"
#include "ir/text.hpp"
#include "models/workloads/inline_shapes.hpp"
#include "models/workloads/model_presets.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace {

constexpr std::int64_t kMaxSize = std::int64_t(1) << 31;

void check(bool ok) {
  if (!ok) __builtin_trap();
}

void inline_shape(std::string_view text) {
  const tv::Shape s = tv::parse_inline_shape(text);
  for (const std::int64_t d : {s.M, s.N, s.K})
    check(d >= 1 && d <= kMaxSize);
  check(s.name.rfind("inline:", 0) == 0 && s.weight == 1);
  // Written back as a spec, it reads as the same shape.
  const std::string again = std::to_string(s.M) + "," + std::to_string(s.N) + "," +
                            std::to_string(s.K) + "," + std::string(tv::dtype_name(s.dtype));
  check(tv::parse_inline_shape(again) == s);
}

void token_counts(std::string_view text) {
  const std::vector<std::int64_t> counts = tv::parse_token_counts(text);
  check(!counts.empty());
  check(std::set<std::int64_t>(counts.begin(), counts.end()).size() == counts.size());
  for (const std::int64_t t : counts)
    check(t >= 1 && t <= kMaxSize);
}

void tree_features(std::string_view text) {
  const std::vector<tv::Comparison> f = tv::parse_tree_features(std::string(text));
  check(tv::parse_tree_features(tv::tree_features_text(f)) == f);
}

void split_features(std::string_view text) {
  const std::vector<tv::Feature> f = tv::parse_split_features(text);
  check(!f.empty() && f.size() <= 3);
  check(std::set<tv::Feature>(f.begin(), f.end()).size() == f.size());
  for (const tv::Feature x : f)
    check(x == tv::Feature::M || x == tv::Feature::N || x == tv::Feature::K);
}

void retry_after(std::string_view text) {
  const double s = tv::parse_retry_after(text);
  check(s == -1 || (std::isfinite(s) && s >= 0));
}

void config(std::string_view text) {
  const std::optional<tv::Config> c = tv::parse_config(text);
  if (!c) return;
  check(tv::parse_config(tv::print_config(*c)) == c);
}

void kernel_run_budget(std::string_view text) {
  const tv::KernelRunBudget b = tv::KernelRunBudget::parse(text);
  if (text == "none") { // the one spelling of no cap
    check(!b.any() && !b.backend_default);
    return;
  }
  check(b.any() && b.runs >= 0 && b.share >= 0 && b.share <= 1);
  // text() prints a share with 10 significant digits: the same cap within that.
  const tv::KernelRunBudget again = tv::KernelRunBudget::parse(b.text());
  check(again.runs == b.runs && std::abs(again.share - b.share) <= 1e-9 * b.share + 1e-300);
}

void model_table(std::string_view text) {
  const std::vector<tv::ModelPreset> presets = tv::parse_model_table(text, "fuzz.json");
  // Each model's GEMMs (no overflow on large dimensions: UBSan watches) have sizes >= 1.
  for (const tv::ModelPreset& p : presets)
    for (const int tp : {1, 8})
      try {
        for (const tv::Shape& s : tv::preset_shapes(p, tp, {1, 8192}))
          check(s.M >= 1 && s.N >= 1 && s.K >= 1 && s.weight > 0);
      } catch (const tv::InputError&) {
      }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0 || size > 4096) return 0;
  const std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  try {
    switch (data[0] % 8) {
    case 0:
      inline_shape(text);
      break;
    case 1:
      token_counts(text);
      break;
    case 2:
      tree_features(text);
      break;
    case 3:
      split_features(text);
      break;
    case 4:
      retry_after(text);
      break;
    case 5:
      config(text);
      break;
    case 6:
      kernel_run_budget(text);
      break;
    default:
      model_table(text);
      break;
    }
  } catch (const tv::InputError&) {
  }
  return 0;
}
