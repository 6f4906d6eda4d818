#include "ir/exporters/aiter_format.hpp"

#include "ir/condition.hpp"

#include <algorithm>
#include <fmt/format.h>

namespace tv {

std::string aiter_key_text(const AiterKey& k) {
  switch (k.kind) {
  case AiterKey::Kind::leq:
    return fmt::format("M_LEQ_{}", k.bound);
  case AiterKey::Kind::geq:
    return fmt::format("M_GEQ_{}", k.bound);
  case AiterKey::Kind::any:
    break;
  }
  return "any";
}

std::optional<AiterKey> parse_aiter_key(std::string_view text) {
  if (text == "any") return AiterKey{};
  AiterKey k;
  if (text.substr(0, 6) == "M_LEQ_")
    k.kind = AiterKey::Kind::leq;
  else if (text.substr(0, 6) == "M_GEQ_")
    k.kind = AiterKey::Kind::geq;
  else
    return std::nullopt;
  const std::string_view digits = text.substr(6);
  for (const std::int64_t b : kAiterMBounds)
    if (digits == std::to_string(b)) {
      k.bound = b;
      return k;
    }
  return std::nullopt;
}

std::optional<std::size_t> aiter_lookup(const std::vector<AiterKey>& keys, std::int64_t M) {
  const auto find = [&](AiterKey k) -> std::optional<std::size_t> {
    const auto it = std::find(keys.begin(), keys.end(), k);
    if (it == keys.end()) return std::nullopt;
    return std::size_t(it - keys.begin());
  };
  for (const std::int64_t b : kAiterMBounds)
    if (M <= b)
      if (const auto i = find({AiterKey::Kind::leq, b})) return i;
  for (auto b = kAiterMBounds.rbegin(); b != kAiterMBounds.rend(); ++b)
    if (M >= *b)
      if (const auto i = find({AiterKey::Kind::geq, *b})) return i;
  return find({});
}

std::vector<AiterRange> aiter_ranges(const std::vector<AiterKey>& keys) {
  // The getter's answer changes only at M = b and b + 1 for the standard bounds b, so one lookup
  // per run between those points gives every range.
  std::vector<std::int64_t> starts{1};
  for (const std::int64_t b : kAiterMBounds)
    for (const std::int64_t m : {b, b + 1})
      if (m > 1) starts.push_back(m);
  std::sort(starts.begin(), starts.end());
  starts.erase(std::unique(starts.begin(), starts.end()), starts.end());
  std::vector<AiterRange> out;
  for (std::size_t i = 0; i < starts.size(); ++i) {
    const std::int64_t lo = starts[i], hi = i + 1 < starts.size() ? starts[i + 1] - 1 : kDimMax;
    const std::optional<std::size_t> k = aiter_lookup(keys, lo);
    if (!k) continue;
    if (!out.empty() && out.back().key == *k && out.back().hi + 1 == lo)
      out.back().hi = hi;
    else
      out.push_back(AiterRange{*k, lo, hi});
  }
  return out;
}

Config with_aiter_defaults(Config c, bool kpack) {
  if (c.vendor) return c;
  if (!c.waves_per_eu) c.waves_per_eu = kAiterWavesPerEu;
  if (!c.matrix_instr_nonkdim) c.matrix_instr_nonkdim = kAiterMatrixInstrNonkdim;
  if (kpack && !c.kpack) c.kpack = kAiterKpack;
  return c;
}

} // namespace tv
