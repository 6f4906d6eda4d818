#include "ir/program.hpp"

#include "ir/hash.hpp"

namespace tv {

const Config& Program::choose(const Shape& s) const {
  for (const auto& r : rules)
    if (r.condition.matches(s)) return r.config;
  return default_config;
}

int Program::deciding_rule(const Shape& s) const {
  for (std::size_t i = 0; i < rules.size(); ++i)
    if (rules[i].condition.matches(s)) return int(i);
  return -1;
}

std::size_t hash_value(const Program& p) {
  std::uint64_t h = hash_mix(0x70726f67u, p.rules.size());
  for (const auto& r : p.rules) {
    h = hash_mix(h, r.condition.terms.size());
    for (const auto& t : r.condition.terms) {
      h = hash_mix(h, std::uint64_t(t.feature) * 8 + std::uint64_t(t.op));
      h = hash_mix(h, std::uint64_t(t.value));
      if (t.feature == Feature::tiles)
        h = hash_mix(h, (std::uint64_t(std::uint32_t(t.tile_m)) << 32) | std::uint32_t(t.tile_n));
    }
    h = hash_mix(h, hash_value(r.config));
  }
  h = hash_mix(h, hash_value(p.default_config));
  return std::size_t(h);
}

} // namespace tv
