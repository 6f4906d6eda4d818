#include "ir/exporters/aiter_importer.hpp"

#include "ir/error.hpp"
#include "ir/exporters/aiter_format.hpp"
#include "ir/exporters/export_info.hpp"
#include "ir/exporters/triton_meta.hpp"
#include "ir/text.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <regex>
#include <set>
#include <stdexcept>

namespace tv {

namespace {

using Json = nlohmann::ordered_json;

/// The largest value of an integer field: block sizes, warps and stages far beyond any GPU's.
constexpr std::int64_t kMaxFieldValue = 65536;

/// Order of the key kinds in aiter's files.
int kind_rank(AiterKey::Kind k) {
  return k == AiterKey::Kind::leq ? 0 : k == AiterKey::Kind::geq ? 1 : 2;
}

/// An integer from lo to kMaxFieldValue, or a failure naming the field.
int field_value(const JsonDocument& doc, const std::string& at, const std::string& name,
                const Json& x, std::int64_t lo) {
  if (!x.is_number_integer() ||
      (x.is_number_unsigned() && x.get<std::uint64_t>() > std::uint64_t(kMaxFieldValue)) ||
      x.get<std::int64_t>() < lo || x.get<std::int64_t>() > kMaxFieldValue)
    doc.fail(at, fmt::format("{} must be an integer from {} to {}", name, lo, kMaxFieldValue));
  return int(x.get<std::int64_t>());
}

/// The config of one bucket; names of dropped fields go to `dropped`.
Config read_config(const JsonDocument& doc, const std::string& at, const Json& v,
                   const AiterImportOptions& o, std::set<std::string>& dropped) {
  if (!v.is_object())
    doc.fail(at, "expected an object of Triton meta-parameters (BLOCK_SIZE_M, BLOCK_SIZE_N, ...)");
  Config c;
  std::set<std::string> seen;
  for (auto f = v.begin(); f != v.end(); ++f) {
    const std::string name = f.key(), fat = json_pointer_child(at, name);
    const bool required = std::find(kTritonRequiredFields.begin(), kTritonRequiredFields.end(),
                                    name) != kTritonRequiredFields.end();
    const bool knob =
        std::find(kTritonAmdFields.begin(), kTritonAmdFields.end(), name) != kTritonAmdFields.end();
    if (required || knob) {
      set_triton_field(c, name, field_value(doc, fat, name, f.value(), required ? 1 : 0));
      seen.insert(name);
    } else if (name == "cache_modifier") {
      if (f.value().is_null()) continue; // aiter's default: no modifier, as tilevolve's configs
      if (!f.value().is_string() || f.value().get<std::string>().size() > 16)
        doc.fail(fat, "cache_modifier must be null or a short string like \".cg\"");
      const std::string what =
          "cache_modifier \"" + comment_safe(f.value().get<std::string>()) + "\"";
      if (!o.drop_unknown_fields)
        doc.fail(fat, what + ": tilevolve's config has no cache modifier (only null, aiter's "
                             "default, imports); tilevolve import --drop-unknown-fields drops it");
      dropped.insert(what);
    } else if (name == "NUM_KSPLIT") {
      const int k = field_value(doc, fat, name, f.value(), 1);
      if (k == 1) continue; // no split-K: what tilevolve's configs mean
      if (!o.drop_unknown_fields)
        doc.fail(fat, fmt::format("NUM_KSPLIT {}: split-K has no place in tilevolve's config (only "
                                  "1, no split, imports); tilevolve import --drop-unknown-fields "
                                  "drops it",
                                  k));
      dropped.insert(fmt::format("NUM_KSPLIT {}", k));
    } else {
      if (!o.drop_unknown_fields)
        doc.fail(fat, "a field tilevolve's config cannot hold (it knows BLOCK_SIZE_M, "
                      "BLOCK_SIZE_N, BLOCK_SIZE_K, GROUP_SIZE_M, num_warps, num_stages, "
                      "waves_per_eu, matrix_instr_nonkdim, kpack, cache_modifier null and "
                      "NUM_KSPLIT 1); tilevolve import --drop-unknown-fields drops such fields");
      dropped.insert(comment_safe(name.substr(0, 64)));
    }
  }
  for (const auto n : kTritonRequiredFields)
    if (!seen.count(std::string(n)))
      doc.fail(at, fmt::format("missing {} (every config needs BLOCK_SIZE_M, BLOCK_SIZE_N, "
                               "BLOCK_SIZE_K, GROUP_SIZE_M, num_warps and num_stages)",
                               n));
  return c;
}

std::string aiter_m_range_text(std::int64_t lo, std::int64_t hi) {
  if (hi >= kDimMax) return lo <= 1 ? "every M" : fmt::format("M >= {}", lo);
  if (lo <= 1) return fmt::format("M <= {}", hi);
  if (lo == hi) return fmt::format("M = {}", lo);
  return fmt::format("M = {}..{}", lo, hi);
}

/// "for N=4096, K=4096 on gfx942 by its name", or "" when the file name does not say.
std::string name_facts(const std::string& source) {
  const std::string base = source.substr(source.find_last_of('/') + 1);
  static const std::regex name(
      R"(([A-Za-z0-9_.+:-]+)-GEMM-A16W16-N=(\d{1,12})-K=(\d{1,12})\.json)");
  std::smatch m;
  if (!std::regex_match(base, m, name)) return "";
  return fmt::format(" for N={}, K={} on {} by its name", m[2].str(), m[3].str(), m[1].str());
}

} // namespace

bool is_aiter_config(const JsonDocument& doc) {
  const Json& r = doc.root();
  if (!r.is_object()) return false;
  for (auto it = r.begin(); it != r.end(); ++it) {
    const std::string& k = it.key();
    if (k == "any" || k.rfind("M_LEQ_", 0) == 0 || k.rfind("M_GEQ_", 0) == 0) return true;
  }
  return false;
}

AiterImport import_aiter_config(const JsonDocument& doc, const AiterImportOptions& o) {
  const Json& root = doc.root();
  if (!root.is_object())
    doc.fail("", "expected a JSON object of M buckets (an aiter Triton GEMM config file)");
  if (root.empty()) doc.fail("", "no M buckets: nothing to import");
  AiterImport out;
  std::vector<AiterKey> keys;
  std::vector<Config> configs;
  std::vector<std::string> at_of;
  std::set<std::string> dropped;
  for (auto it = root.begin(); it != root.end(); ++it) {
    const std::string at = json_pointer_child("", it.key());
    const std::optional<AiterKey> k = parse_aiter_key(it.key());
    if (!k)
      doc.fail(at, "not a key aiter's GEMM config lookup reads: expected M_LEQ_<m> or M_GEQ_<m> "
                   "with m one of 1, 4, 8, 16, ..., 8192 (its STANDARD_M_BOUNDS; a key with "
                   "another m is never read), or \"any\"");
    if (!keys.empty()) {
      const AiterKey& prev = keys.back();
      const int r = kind_rank(k->kind), pr = kind_rank(prev.kind);
      if (r < pr || (r == pr && k->bound < prev.bound))
        doc.fail(at, fmt::format("{} comes after {}: aiter's files list the M_LEQ keys by "
                                 "increasing m, then the M_GEQ keys by increasing m, then \"any\"",
                                 it.key(), aiter_key_text(prev)));
    }
    keys.push_back(*k);
    at_of.push_back(at);
    out.keys.push_back(it.key());
    configs.push_back(read_config(doc, at, it.value(), o, dropped));
  }
  std::int64_t top_leq = 0;
  std::string top_leq_key;
  for (const AiterKey& k : keys)
    if (k.kind == AiterKey::Kind::leq && k.bound > top_leq) {
      top_leq = k.bound;
      top_leq_key = aiter_key_text(k);
    }
  for (std::size_t i = 0; i < keys.size(); ++i)
    if (keys[i].kind == AiterKey::Kind::geq && keys[i].bound < top_leq)
      doc.fail(at_of[i],
               fmt::format("{} overlaps {}: aiter tries every M_LEQ key first, so {} would serve "
                           "only M above {}, not every M >= {} as its name says (M_GEQ_{} serves "
                           "M above {})",
                           out.keys[i], top_leq_key, out.keys[i], top_leq, keys[i].bound, top_leq,
                           top_leq));

  // What the getter does for every M; a hole is a KeyError in aiter.
  const std::vector<AiterRange> ranges = aiter_ranges(keys);
  std::int64_t next = 1;
  for (std::size_t i = 0; i <= ranges.size(); ++i) {
    const std::int64_t lo = i < ranges.size() ? ranges[i].lo : kDimMax + 1;
    if (lo > next) {
      const std::string before = i > 0 ? "after " + out.keys[ranges[i - 1].key] : "";
      const std::string after = i < ranges.size() ? "before " + out.keys[ranges[i].key] : "";
      doc.fail("", fmt::format("no key serves {} ({}{}{}): aiter's get_gemm_config raises "
                               "KeyError there; add an \"any\" entry or a bucket for them",
                               aiter_m_range_text(next, lo - 1), before,
                               before.empty() || after.empty() ? "" : ", ", after));
    }
    if (i < ranges.size()) next = ranges[i].hi + 1;
  }
  out.dropped_fields.assign(dropped.begin(), dropped.end());

  // The lookup as rules, as the vLLM importer builds them.
  struct Piece {
    std::int64_t hi;
    Config config;
  };
  std::vector<Piece> pieces;
  for (const AiterRange& r : ranges) {
    const Config& c = configs[r.key];
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
  d.push_back(fmt::format("Imported by tilevolve import from {}: an aiter Triton GEMM config{} "
                          "with {} keys.",
                          doc.source(), name_facts(doc.source()), keys.size()));
  d.push_back("The rules reproduce aiter's get_gemm_config for every M: the first M_LEQ_m (m "
              "increasing) with M <= m, else the first M_GEQ_m (m decreasing) with M >= m, else "
              "\"any\" (which aiter reports as not tuned). Like the file, they do not look at N "
              "and K.");
  if (std::any_of(keys.begin(), keys.end(), [](const AiterKey& k) { return k.bound == 1; }))
    d.push_back("M_LEQ_1 and M_GEQ_1 are read by the newest aiter releases only; earlier ones "
                "start their bounds at 4 and skip them.");
  const bool any_used = std::any_of(ranges.begin(), ranges.end(), [&](const AiterRange& r) {
    return keys[r.key].kind == AiterKey::Kind::any;
  });
  if (!any_used && std::find(keys.begin(), keys.end(), AiterKey{}) != keys.end())
    d.push_back("\"any\" is never reached: the buckets serve every M.");
  if (!out.dropped_fields.empty()) {
    std::string list;
    for (const auto& f : out.dropped_fields)
      list += (list.empty() ? "" : ", ") + f;
    d.push_back("Dropped fields tilevolve's config cannot hold (--drop-unknown-fields): " + list +
                ".");
  }
  d.push_back("Key: M values it serves: config");
  for (const AiterRange& r : ranges)
    d.push_back(fmt::format("  {}: {}: {}", out.keys[r.key], aiter_m_range_text(r.lo, r.hi),
                            configs[r.key].brief()));
  // The program must print and parse back (it always does: M comparisons and tile configs).
  if (!parse_program(print_program(out.program)).ok())
    throw std::logic_error("aiter import: the imported program does not parse back");
  return out;
}

AiterImport import_aiter_config(std::string_view text, std::string_view source,
                                const AiterImportOptions& o) {
  return import_aiter_config(JsonDocument(text, std::string(source)), o);
}

} // namespace tv
