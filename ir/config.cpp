#include "ir/config.hpp"

#include "ir/hash.hpp"

#include <fmt/format.h>

namespace tv {

std::string Config::brief() const {
  if (vendor) return "vendor";
  std::string s = fmt::format("{}x{}x{} w{} s{} g{}", BM, BN, BK, warps, stages, group);
  if (waves_per_eu) s += fmt::format(" wpe{}", *waves_per_eu);
  if (matrix_instr_nonkdim) s += fmt::format(" mi{}", *matrix_instr_nonkdim);
  if (kpack) s += fmt::format(" kp{}", *kpack);
  return s;
}

std::size_t hash_value(const Config& c) {
  auto opt = [](const std::optional<int>& o) -> std::uint64_t {
    return o ? std::uint64_t(std::uint32_t(*o)) + 1 : 0;
  };
  std::uint64_t h = 0x7476u;
  for (std::uint64_t v : {std::uint64_t(c.BM), std::uint64_t(c.BN), std::uint64_t(c.BK),
                          std::uint64_t(c.warps), std::uint64_t(c.stages), std::uint64_t(c.group),
                          opt(c.waves_per_eu), opt(c.matrix_instr_nonkdim), opt(c.kpack)})
    h = hash_mix(h, v);
  if (c.vendor) h = hash_mix(h, 0x76656e646f72u); // tile configs keep their old hashes
  return std::size_t(h);
}

} // namespace tv
