#include "ir/exporters/vllm_importer.hpp"

#include "ir/error.hpp"
#include "ir/exporters/nearest_key.hpp"
#include "ir/exporters/triton_meta.hpp"
#include "ir/text.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <set>
#include <stdexcept>
#include <unordered_set>

namespace tv {

namespace {

using Json = nlohmann::ordered_json;

constexpr std::size_t kMaxKeys = 100000;
constexpr std::size_t kMaxDescribedKeys = 64;

bool all_digits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

/// A plain decimal key in [0, kDimMax], or nullopt.
std::optional<std::int64_t> parse_key(std::string_view s) {
  if (!all_digits(s) || (s.size() > 1 && s[0] == '0') || s.size() > 19) return std::nullopt;
  std::uint64_t v = 0;
  for (const char c : s)
    v = v * 10 + std::uint64_t(c - '0');
  if (v > std::uint64_t(kDimMax)) return std::nullopt;
  return std::int64_t(v);
}

std::string m_range_text(std::int64_t lo, std::int64_t hi) {
  if (hi >= kDimMax) return fmt::format("M >= {}", std::max<std::int64_t>(lo, 1));
  if (lo <= 1) return fmt::format("M <= {}", hi);
  if (lo == hi) return fmt::format("M = {}", lo);
  return fmt::format("M = {}..{}", lo, hi);
}

} // namespace

bool is_vllm_config(const JsonDocument& doc) {
  const Json& r = doc.root();
  if (!r.is_object() || r.empty()) return false;
  for (auto it = r.begin(); it != r.end(); ++it)
    if (it.key() != "triton_version" && !all_digits(it.key())) return false;
  return true;
}

VllmImport import_vllm_config(const JsonDocument& doc, const VllmImportOptions& o) {
  const Json& root = doc.root();
  if (!root.is_object())
    doc.fail("", "expected a JSON object keyed by M values (a vLLM or SGLang config file)");
  VllmImport out;
  std::vector<Config> configs; // parallel to out.keys
  std::set<std::string> dropped;
  std::unordered_set<std::int64_t> seen_keys; // a repeated M found without a scan of the keys
  for (auto it = root.begin(); it != root.end(); ++it) {
    const std::string at = json_pointer_child("", it.key());
    if (it.key() == "triton_version") {
      if (!it.value().is_string()) doc.fail(at, "expected the Triton version as a string");
      out.triton_version = it.value().get<std::string>();
      continue;
    }
    const auto key = parse_key(it.key());
    if (!key)
      doc.fail(at, fmt::format("expected an M value as the key: a plain decimal integer from 0 "
                               "to {} without sign, spaces or leading zeros, or "
                               "\"triton_version\"",
                               kDimMax));
    if (out.keys.size() >= kMaxKeys) doc.fail(at, fmt::format("more than {} keys", kMaxKeys));
    if (!seen_keys.insert(*key).second) doc.fail(at, "the same M twice");
    const Json& v = it.value();
    if (!v.is_object())
      doc.fail(at, "expected an object of Triton meta-parameters (BLOCK_SIZE_M, ...)");
    Config c;
    std::set<std::string> seen;
    for (auto f = v.begin(); f != v.end(); ++f) {
      const std::string fat = json_pointer_child(at, f.key());
      bool known = false;
      for (const auto n : kTritonRequiredFields)
        known = known || n == f.key();
      for (const auto n : kTritonAmdFields)
        known = known || n == f.key();
      if (!known) {
        if (o.drop_unknown_fields) {
          dropped.insert(f.key());
          continue;
        }
        doc.fail(fat,
                 "a field tilevolve's config cannot hold (it knows BLOCK_SIZE_M, BLOCK_SIZE_N, "
                 "BLOCK_SIZE_K, GROUP_SIZE_M, num_warps, num_stages, waves_per_eu, "
                 "matrix_instr_nonkdim, kpack); tilevolve import --drop-unknown-fields "
                 "drops such fields");
      }
      const bool amd = std::find(kTritonAmdFields.begin(), kTritonAmdFields.end(), f.key()) !=
                       kTritonAmdFields.end();
      const std::int64_t lo = amd ? 0 : 1;
      const Json& x = f.value();
      if (!x.is_number_integer() ||
          (x.is_number_unsigned() && x.get<std::uint64_t>() > INT32_MAX) ||
          x.get<std::int64_t>() < lo || x.get<std::int64_t>() > INT32_MAX)
        doc.fail(fat, fmt::format("{} must be an integer from {} to {}", f.key(), lo, INT32_MAX));
      set_triton_field(c, f.key(), int(x.get<std::int64_t>()));
      seen.insert(f.key());
    }
    for (const auto n : kTritonRequiredFields)
      if (!seen.count(std::string(n)))
        doc.fail(at, fmt::format("missing {} (every config needs BLOCK_SIZE_M, BLOCK_SIZE_N, "
                                 "BLOCK_SIZE_K, GROUP_SIZE_M, num_warps and num_stages)",
                                 n));
    out.keys.push_back(*key);
    configs.push_back(c);
  }
  if (out.keys.empty()) doc.fail("", "no M keys: nothing to import");
  out.dropped_fields.assign(dropped.begin(), dropped.end());

  // The lookup as rules: one per key range in increasing key order, neighbours with equal
  // configs merged, the last range the default.
  const auto ranges = nearest_key_ranges(out.keys);
  struct Piece {
    std::int64_t hi;
    Config config;
  };
  std::vector<Piece> pieces;
  for (const auto& r : ranges) {
    const Config& c = configs[r.position];
    if (!pieces.empty() && pieces.back().config == c)
      pieces.back().hi = r.hi;
    else
      pieces.push_back(Piece{r.hi, c});
  }
  out.program.default_config = pieces.back().config;
  for (std::size_t i = 0; i + 1 < pieces.size(); ++i) {
    Rule rule;
    rule.condition.terms.push_back(Comparison{Feature::M, CmpOp::le, pieces[i].hi, 0, 0});
    rule.config = pieces[i].config;
    out.program.rules.push_back(rule);
  }

  auto& d = out.description;
  d.push_back(fmt::format("Imported by tilevolve import from {}: a vLLM/SGLang per-M config with "
                          "{} keys{}.",
                          doc.source(), out.keys.size(),
                          out.triton_version ? ", triton_version " + *out.triton_version : ""));
  d.push_back("The rules reproduce the lookup configs[min(configs.keys(), key=lambda x: abs(x - "
              "M))] for every M exactly; an M halfway between two keys takes the key earlier in "
              "the file.");
  if (!out.dropped_fields.empty()) {
    std::string list;
    for (const auto& f : out.dropped_fields)
      list += (list.empty() ? "" : ", ") + f;
    d.push_back("Dropped fields tilevolve's config cannot hold (--drop-unknown-fields): " + list +
                ".");
  }
  d.push_back("Key: M values it serves: config");
  for (std::size_t i = 0; i < ranges.size() && i < kMaxDescribedKeys; ++i)
    d.push_back(fmt::format("  {}: {}: {}", ranges[i].key, m_range_text(ranges[i].lo, ranges[i].hi),
                            configs[ranges[i].position].brief()));
  if (ranges.size() > kMaxDescribedKeys)
    d.push_back(fmt::format("  ... and {} more keys", ranges.size() - kMaxDescribedKeys));
  // The program must print and parse back (it always does: M comparisons and tile configs).
  if (!parse_program(print_program(out.program)).ok())
    throw std::logic_error("vllm import: the imported program does not parse back");
  return out;
}

VllmImport import_vllm_config(std::string_view text, std::string_view source,
                              const VllmImportOptions& o) {
  return import_vllm_config(JsonDocument(text, std::string(source)), o);
}

} // namespace tv
