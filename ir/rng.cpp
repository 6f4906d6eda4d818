#include "ir/rng.hpp"

namespace tv {

namespace {
std::uint64_t splitmix64(std::uint64_t& x) {
  std::uint64_t z = (x += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}
std::uint64_t rotl(std::uint64_t x, int k) {
  return (x << k) | (x >> (64 - k));
}
} // namespace

Rng::Rng(std::uint64_t seed) {
  std::uint64_t x = seed;
  for (auto& s : s_)
    s = splitmix64(x);
}

std::uint64_t Rng::next() {
  const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
  const std::uint64_t t = s_[1] << 17;
  s_[2] ^= s_[0];
  s_[3] ^= s_[1];
  s_[1] ^= s_[2];
  s_[0] ^= s_[3];
  s_[2] ^= t;
  s_[3] = rotl(s_[3], 45);
  return result;
}

std::int64_t Rng::uniform_int(std::int64_t lo, std::int64_t hi) {
  const std::uint64_t range = std::uint64_t(hi) - std::uint64_t(lo);
  if (range == ~std::uint64_t(0)) return std::int64_t(next());
  const std::uint64_t n = range + 1;
  const std::uint64_t limit = ~std::uint64_t(0) - (~std::uint64_t(0) % n);
  std::uint64_t r;
  do
    r = next();
  while (r >= limit);
  return std::int64_t(std::uint64_t(lo) + r % n);
}

double Rng::uniform01() {
  return double(next() >> 11) * 0x1.0p-53;
}

Rng Rng::fork(std::uint64_t stream) const {
  std::uint64_t x = s_[0] ^ rotl(s_[2], 13) ^ (stream * 0xd1342543de82ef95ULL + 1);
  return Rng(splitmix64(x));
}

bool Rng::set_state(const std::vector<std::uint64_t>& st) {
  if (st.size() != 4) return false;
  for (int i = 0; i < 4; ++i)
    s_[i] = st[i];
  return true;
}

} // namespace tv
