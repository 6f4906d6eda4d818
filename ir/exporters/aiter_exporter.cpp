#include "ir/exporters/aiter_exporter.hpp"

#include "ir/error.hpp"
#include "ir/exporters/aiter_format.hpp"

#include <algorithm>
#include <cctype>
#include <fmt/format.h>

namespace tv {

namespace {

/// Throws InputError for bad options. The device must be a name aiter itself could build a path
/// from (its check of the arch): a letter or digit, then letters, digits and _ . + : -.
void check_options(const AiterExportOptions& o) {
  if (o.N < 1 || o.K < 1) throw InputError("aiter export: --n and --k must be positive");
  if (o.device.empty())
    throw InputError("aiter export: the device name is not known: give --device NAME (the arch "
                     "aiter names its files by, e.g. gfx942 for MI300X and MI325X, gfx950 for "
                     "MI350X and MI355X; MI300X or MI350X for older aiter releases)");
  bool ok = o.device.size() <= 64 && std::isalnum(static_cast<unsigned char>(o.device[0]));
  for (const char c : o.device)
    ok = ok && (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '+' ||
                c == ':' || c == '-');
  if (!ok)
    throw InputError(fmt::format("aiter export: --device '{}': expected a name like gfx942 "
                                 "(letters, digits and _ . + : -, starting with a letter or digit)",
                                 comment_safe(o.device)));
}

/// The config the program gives most M values of lo..hi among `segments` (the later one on a
/// tie).
const Config& majority(const std::vector<MSegment>& segments, std::int64_t lo, std::int64_t hi) {
  std::vector<std::pair<const Config*, std::int64_t>> counts;
  for (const MSegment& s : segments) {
    const std::int64_t a = std::max(lo, s.lo), b = std::min(hi, s.hi);
    if (a > b) continue;
    const auto it = std::find_if(counts.begin(), counts.end(),
                                 [&](const auto& c) { return *c.first == s.config; });
    if (it == counts.end())
      counts.emplace_back(&s.config, b - a + 1);
    else
      it->second += b - a + 1;
  }
  const auto* best = &counts.front();
  for (const auto& c : counts)
    if (c.second >= best->second) best = &c;
  return *best->first;
}

nlohmann::ordered_json aiter_config_json(const Config& c) {
  nlohmann::ordered_json j;
  j["BLOCK_SIZE_M"] = c.BM;
  j["BLOCK_SIZE_N"] = c.BN;
  j["BLOCK_SIZE_K"] = c.BK;
  j["GROUP_SIZE_M"] = c.group;
  j["num_warps"] = c.warps;
  j["num_stages"] = c.stages;
  j["waves_per_eu"] = *c.waves_per_eu;
  j["matrix_instr_nonkdim"] = *c.matrix_instr_nonkdim;
  j["cache_modifier"] = nullptr;
  j["NUM_KSPLIT"] = 1;
  if (c.kpack) j["kpack"] = *c.kpack;
  return j;
}

} // namespace

AiterExport export_aiter(const Program& p, const AiterExportOptions& o,
                         const std::optional<TrainingRange>& training) {
  check_options(o);
  AiterExport e;
  e.file_name = fmt::format("{}-GEMM-A16W16-N={}-K={}.json", o.device, o.N, o.K);

  // The program along M as aiter would launch it: its vendor region replaced by the fallback, the
  // knobs it leaves unset filled in.
  std::vector<MSegment> segments = m_segments(p, o.N, o.K);
  for (MSegment& s : segments) {
    if (s.config.vendor) {
      add_m_range(e.vendor, s.lo, s.hi);
      if (o.vendor_fallback) s.config = *o.vendor_fallback;
    }
    s.config = with_aiter_defaults(s.config, o.kpack);
  }
  if (!e.vendor.empty() && !o.vendor_fallback)
    throw InputError(fmt::format(
        "aiter export: the program calls the vendor library (returns \"vendor\") at N={}, K={} "
        "for M in {}; aiter's Triton GEMM cannot call hipBLASLt and its config file cannot say "
        "so. Give --vendor-fallback 'Config(BM=.., BN=.., BK=.., warps=.., stages=.., group=..)' "
        "to write that config there (the export names those M, for a dispatch in front of aiter "
        "to send them to hipBLASLt), or export another format (cpp, python, triton, json keep the "
        "vendor branch)",
        o.N, o.K, m_ranges_text(e.vendor)));

  // The buckets every release reads, then "any" above them.
  std::vector<std::pair<std::int64_t, std::int64_t>> spans;
  std::int64_t lo = 1;
  for (const std::int64_t b : kAiterExportBounds) {
    spans.emplace_back(lo, b);
    e.keys.push_back(aiter_key_text({AiterKey::Kind::leq, b}));
    lo = b + 1;
  }
  spans.emplace_back(lo, kDimMax);
  e.keys.push_back(aiter_key_text({}));
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  for (std::size_t i = 0; i < spans.size(); ++i) {
    const auto [a, b] = spans[i];
    // "any": the config just above the buckets (the run of M it starts keeps going).
    const Config& c = i + 1 < spans.size() ? majority(segments, a, b) : majority(segments, a, a);
    for (const MSegment& s : segments) {
      const std::int64_t x = std::max(a, s.lo), y = std::min(b, s.hi);
      if (x <= y && !(s.config == c)) add_m_range(e.differs, x, y);
    }
    e.configs.push_back(c);
    j[e.keys[i]] = aiter_config_json(e.configs.back());
  }
  e.json = j.dump(2) + "\n";

  const std::int64_t top = kAiterExportBounds.back();
  const std::string at = fmt::format("N={}, K={}", o.N, o.K);
  const bool exact_below = std::none_of(e.differs.begin(), e.differs.end(),
                                        [&](const auto& r) { return r.first <= top; });
  if (e.differs.empty()) {
    e.notes.push_back(fmt::format("At {} aiter's lookup of this file returns the program's "
                                  "decision for every M >= 1 (buckets M_LEQ_4 .. M_LEQ_{}, "
                                  "\"any\" above).",
                                  at, top));
  } else if (exact_below) {
    e.notes.push_back(fmt::format(
        "At {} aiter's lookup of this file returns the program's decision for every M from 1 to "
        "{}; above, \"any\" holds the program's config at M = {}, and the program decides "
        "otherwise for M in {}.",
        at, top, top + 1, m_ranges_text(e.differs)));
  } else {
    e.notes.push_back(fmt::format(
        "At {} aiter's lookup of this file differs from the program for M in {}: aiter reads only "
        "the buckets of its standard bounds (M <= 4, 8, 16, ..., {}), and the program changes "
        "its decision inside some of them; each bucket holds the config the program gives most "
        "of its M.",
        at, m_ranges_text(e.differs), top));
    e.warnings.push_back(e.notes.back());
  }
  e.notes.push_back(fmt::format(
      "AMD knobs the program leaves unset are written as aiter's own gfx942 files write them "
      "(waves_per_eu {}, matrix_instr_nonkdim {}{}); cache_modifier null and NUM_KSPLIT 1, since "
      "tilevolve's configs have neither a cache modifier nor split-K.",
      kAiterWavesPerEu, kAiterMatrixInstrNonkdim,
      o.kpack ? fmt::format(", kpack {}", kAiterKpack) : std::string()));
  if (!e.vendor.empty()) {
    e.notes.push_back(fmt::format(
        "The program calls the vendor library (hipBLASLt) at {} for M in {}; aiter's Triton GEMM "
        "cannot, so {} is written there (--vendor-fallback). To follow the program, send those "
        "M to hipBLASLt before calling aiter's Triton GEMM.",
        at, m_ranges_text(e.vendor), o.vendor_fallback->brief()));
    e.warnings.push_back(e.notes.back());
  }
  if (training) {
    e.notes.push_back(training_m_text(*training, p, o.N, o.K));
    if (training_m_ranges(*training, p, o.N, o.K).empty()) e.warnings.push_back(e.notes.back());
  }
  e.notes.push_back(fmt::format(
      "aiter's getter reports is_tuned true for M up to {} (the M_LEQ buckets of this per-(N, K) "
      "file) and false above (\"any\").",
      top));
  e.notes.push_back(fmt::format(
      "aiter reads this file as aiter/ops/triton/configs/gemm/{} (releases that name files by "
      "device want MI300X or MI350X in place of the arch: --device); releases with per-arch "
      "folders read the same content as configs/<arch>/triton/gemm/gemm_a16w16/"
      "GEMM-A16W16-N={}-K={}.json.",
      e.file_name, o.N, o.K));
  return e;
}

std::string aiter_provenance_text(const Program& p, const ExportInfo& info, const AiterExport& e) {
  std::string out = "Provenance of " + e.file_name + " (the JSON file can hold only M buckets).\n";
  for (const auto& l : provenance_lines(p, info))
    out += l + "\n";
  for (const auto& n : e.notes)
    out += comment_safe(n) + "\n";
  return out;
}

std::optional<std::string> aiter_device_name(std::string_view gpu_profile) {
  // aiter names files by triton's target arch (arch_info.get_arch()): CDNA 3 is gfx942
  // (MI300X, MI325X), CDNA 4 gfx950 (MI350X, MI355X).
  if (gpu_profile == "mi300x" || gpu_profile == "mi325x") return "gfx942";
  if (gpu_profile == "mi355x") return "gfx950";
  return std::nullopt;
}

} // namespace tv
