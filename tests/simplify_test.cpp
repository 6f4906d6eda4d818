#include "ir/simplify.hpp"

#include "ir/rng.hpp"
#include "ir/text.hpp"
#include "tests/support/property_cases.hpp"
#include "tests/support/random_program.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <limits>
#include <set>
#include <vector>

// In a namespace of its own: the test files are compiled several to a unit (unity build).
namespace simplify_test {

using namespace tv;

namespace {

constexpr std::int64_t kI64Max = std::numeric_limits<std::int64_t>::max();
constexpr std::int64_t kI64Min = std::numeric_limits<std::int64_t>::min();

Comparison cmp(Feature f, CmpOp op, std::int64_t v) {
  return Comparison{f, op, v};
}
Comparison M(CmpOp op, std::int64_t v) {
  return cmp(Feature::M, op, v);
}
Comparison N(CmpOp op, std::int64_t v) {
  return cmp(Feature::N, op, v);
}
Comparison K(CmpOp op, std::int64_t v) {
  return cmp(Feature::K, op, v);
}

Config cfg(int bm) {
  Config c;
  c.BM = bm;
  return c;
}

Rule rule(std::vector<Comparison> terms, Config c) {
  return Rule{Condition{std::move(terms)}, c};
}

Shape at(std::int64_t m, std::int64_t n, std::int64_t k) {
  Shape s;
  s.M = m;
  s.N = n;
  s.K = k;
  return s;
}

Box box(Interval m, Interval n, Interval k) {
  return Box{{m, n, k}};
}

void add_clipped(std::set<std::int64_t>& s, std::int64_t v) {
  if (v >= 1 && v <= kDimMax) s.insert(v);
}

// Per dimension, the lower corner of every cell of the grid that the rules' box bounds cut the
// domain into: choose() is constant on each cell, so these points test the whole domain.
std::vector<Shape> cell_points(const std::vector<const Program*>& ps) {
  std::set<std::int64_t> v[3];
  for (auto& s : v)
    s.insert(1);
  for (const Program* p : ps)
    for (const auto& r : p->rules) {
      const Box b = r.condition.box();
      if (b.empty()) continue;
      for (int d = 0; d < 3; ++d) {
        add_clipped(v[d], b.dim[d].lo);
        if (b.dim[d].hi < kDimMax) add_clipped(v[d], b.dim[d].hi + 1);
      }
    }
  std::vector<Shape> out;
  for (auto m : v[0])
    for (auto n : v[1])
      for (auto k : v[2])
        out.push_back(at(m, n, k));
  return out;
}

bool brute_equivalent(const Program& a, const Program& b) {
  for (const auto& s : cell_points({&a, &b}))
    if (a.choose(s) != b.choose(s)) return false;
  return true;
}

// A dense grid, every box corner +-1 (per axis) of every rule, and huge values.
std::vector<Shape> dense_points(const Program& p) {
  std::vector<Shape> out;
  for (std::int64_t m = 1; m <= 70; m += 7)
    for (std::int64_t n = 2; n <= 70; n += 6)
      for (std::int64_t k = 3; k <= 70; k += 5)
        out.push_back(at(m, n, k));
  const std::int64_t huge[] = {kDimMax, kDimMax - 1, std::int64_t(1) << 40, 65};
  for (auto m : huge)
    for (auto n : huge)
      for (auto k : huge)
        out.push_back(at(m, n, k));
  for (const auto& r : p.rules) {
    const Box b = r.condition.box();
    if (b.empty()) continue;
    for (int corner = 0; corner < 8; ++corner) {
      std::int64_t c[3];
      for (int d = 0; d < 3; ++d)
        c[d] = (corner >> d) & 1 ? b.dim[d].hi : b.dim[d].lo;
      for (int dm = -1; dm <= 1; ++dm)
        for (int dn = -1; dn <= 1; ++dn)
          for (int dk = -1; dk <= 1; ++dk) {
            const std::int64_t m = c[0] + dm, n = c[1] + dn, k = c[2] + dk;
            if (m >= 1 && n >= 1 && k >= 1 && m <= kDimMax && n <= kDimMax && k <= kDimMax)
              out.push_back(at(m, n, k));
          }
    }
  }
  return out;
}

// True when `sub` is `full` with some terms left out (order kept).
bool is_subsequence(const std::vector<Comparison>& sub, const std::vector<Comparison>& full) {
  std::size_t k = 0;
  for (const auto& t : full)
    if (k < sub.size() && sub[k] == t) ++k;
  return k == sub.size();
}

// True when `s`'s rules are some of `p`'s rules, in order, each with a subset of its terms.
bool rules_come_from(const Program& s, const Program& p) {
  std::size_t j = 0;
  for (const auto& r : s.rules) {
    while (j < p.rules.size() && !(p.rules[j].config == r.config &&
                                   is_subsequence(r.condition.terms, p.rules[j].condition.terms)))
      ++j;
    if (j == p.rules.size()) return false;
    ++j;
  }
  return true;
}

std::int64_t count_points(const Box& b) {
  if (b.empty()) return 0;
  std::int64_t n = 1;
  for (int d = 0; d < b.dims; ++d)
    n *= b.dim[d].hi - b.dim[d].lo + 1;
  return n;
}

Interval random_interval(Rng& rng) {
  const std::int64_t lo = rng.uniform_int(-2, 8);
  return {lo, lo + rng.uniform_int(-2, 7)}; // sometimes empty
}

} // namespace

TEST_CASE("simplify: box_difference edge cases") {
  const Box a = box({1, 10}, {1, 10}, {1, 10});
  CHECK(box_difference(a, box({1, 20}, {0, 10}, {1, 10})).empty()); // a inside b
  CHECK(box_difference(a, a).empty());
  const Box far = box({11, 20}, {1, 10}, {1, 10});
  CHECK(box_difference(a, far) == std::vector<Box>{a});
  const Box empty = box({5, 4}, {1, 10}, {1, 10});
  CHECK(box_difference(empty, a).empty());
  CHECK(box_difference(a, empty) == std::vector<Box>{a});
  // A point in the middle of the whole domain leaves six pieces.
  const Box mid = box({7, 7}, {7, 7}, {7, 7});
  const auto pieces = box_difference(Box{}, mid);
  CHECK(pieces.size() == 6);
  for (const auto& p : pieces) {
    CHECK_FALSE(p.empty());
    CHECK_FALSE(p.contains(at(7, 7, 7)));
  }
  CHECK(std::count_if(pieces.begin(), pieces.end(),
                      [](const Box& p) { return p.contains(at(kDimMax, 1, kDimMax)); }) == 1);
  // Extreme bounds do not overflow.
  const Box wide = box({kI64Min, kI64Max}, {kI64Min, kI64Max}, {kI64Min, kI64Max});
  CHECK(box_difference(wide, mid).size() == 6);
  CHECK(box_difference(mid, wide).empty());
}

TEST_CASE(
    "simplify: box_difference pieces are disjoint, inside a, outside b, and cover a minus b") {
  Rng rng(11);
  for (int iter = 0; iter < tv::test::property_cases(3000); ++iter) {
    const Box a = box(random_interval(rng), random_interval(rng), random_interval(rng));
    const Box b = box(random_interval(rng), random_interval(rng), random_interval(rng));
    const auto pieces = box_difference(a, b);
    REQUIRE(pieces.size() <= 6);
    std::int64_t total = 0;
    for (const auto& p : pieces) {
      CHECK_FALSE(p.empty());
      total += count_points(p);
    }
    std::int64_t expected = 0;
    for (std::int64_t m = -3; m <= 16; ++m)
      for (std::int64_t n = -3; n <= 16; ++n)
        for (std::int64_t k = -3; k <= 16; ++k) {
          const Shape s = at(m, n, k);
          const bool in = a.contains(s) && !b.contains(s);
          expected += in;
          const auto hits = std::count_if(pieces.begin(), pieces.end(),
                                          [&](const Box& p) { return p.contains(s); });
          if (hits != (in ? 1 : 0)) {
            FAIL_CHECK("point " << m << "," << n << "," << k << " is in " << hits
                                << " pieces; expected " << in);
            return;
          }
        }
    // Pieces lie inside the sampled cube, so equal counts mean nothing lies outside it.
    CHECK(total == expected);
  }
}

TEST_CASE("simplify: effective_region, default_reachable and reachable_configs by hand") {
  Program p;
  p.rules = {rule({M(CmpOp::le, 128)}, cfg(16)),                // fires on M <= 128
             rule({M(CmpOp::le, 64)}, cfg(32)),                 // shadowed
             rule({M(CmpOp::gt, 5), M(CmpOp::lt, 3)}, cfg(64)), // empty box
             rule({M(CmpOp::le, 256)}, cfg(16)),                // fires on 129..256, same config
             rule({N(CmpOp::ge, 1)}, cfg(128))};                // always true
  p.default_config = cfg(256);
  CHECK(effective_region(p, 0) == std::vector<Box>{box({1, 128}, {1, kDimMax}, {1, kDimMax})});
  CHECK(effective_region(p, 1).empty());
  CHECK(effective_region(p, 2).empty());
  CHECK(effective_region(p, 3) == std::vector<Box>{box({129, 256}, {1, kDimMax}, {1, kDimMax})});
  CHECK(effective_region(p, 4) ==
        std::vector<Box>{box({257, kDimMax}, {1, kDimMax}, {1, kDimMax})});
  CHECK(effective_region(p, 99).empty());
  CHECK_FALSE(default_reachable(p));
  CHECK(reachable_configs(p) == std::vector<Config>{cfg(16), cfg(128)});
  p.rules.pop_back();
  CHECK(default_reachable(p));
  CHECK(reachable_configs(p) == std::vector<Config>{cfg(16), cfg(256)});
  CHECK(default_reachable(Program{}));
  CHECK(reachable_configs(Program{}) == std::vector<Config>{Config{}});
}

TEST_CASE("simplify: shadowed, default-equal and later-covered rules go") {
  Program p;
  p.default_config = cfg(256);
  SUBCASE("shadowed") {
    p.rules = {rule({M(CmpOp::le, 128)}, cfg(16)), rule({M(CmpOp::le, 64)}, cfg(32))};
    const Program s = simplify(p);
    REQUIRE(s.rules.size() == 1);
    CHECK(s.rules[0] == p.rules[0]);
  }
  SUBCASE("equal to the default") {
    p.rules = {rule({M(CmpOp::le, 128)}, cfg(16)), rule({N(CmpOp::le, 64)}, cfg(256))};
    const Program s = simplify(p);
    REQUIRE(s.rules.size() == 1);
    CHECK(s.rules[0] == p.rules[0]);
  }
  SUBCASE("covered by a later rule with the same config") {
    p.rules = {rule({M(CmpOp::le, 64), N(CmpOp::le, 64)}, cfg(16)),
               rule({K(CmpOp::eq, 7)}, cfg(32)), // overlaps, but not where rule 0 decides
               rule({M(CmpOp::le, 128)}, cfg(16))};
    Program s = simplify(p);
    CHECK(s.rules.size() == 3); // rule 0 decides (64, 64, 7) where rule 1 would say 32
    p.rules[1].condition.terms = {K(CmpOp::eq, 7), M(CmpOp::gt, 64)};
    s = simplify(p);
    REQUIRE(s.rules.size() == 2);
    CHECK(s.rules[0] == p.rules[1]);
    CHECK(s.rules[1] == p.rules[2]);
  }
  SUBCASE("empty boxes") {
    p.rules = {rule({M(CmpOp::gt, 5), M(CmpOp::lt, 3)}, cfg(16)), rule({M(CmpOp::le, 0)}, cfg(32)),
               rule({K(CmpOp::lt, 1)}, cfg(64)), rule({N(CmpOp::eq, 0)}, cfg(64))};
    const Program s = simplify(p);
    CHECK(s.rules.empty());
    CHECK(s.default_config == cfg(256));
  }
  SUBCASE("chains of equal configs collapse into the default") {
    p.rules = {rule({M(CmpOp::le, 10)}, cfg(256)), rule({M(CmpOp::le, 20)}, cfg(256)),
               rule({N(CmpOp::le, 20)}, cfg(256))};
    CHECK(simplify(p) == Program{{}, cfg(256)});
  }
}

TEST_CASE("simplify: removal order prefers removing later rules") {
  // Rules 0 and 1 are each removable, but not both.
  Program p;
  p.rules = {rule({M(CmpOp::le, 10)}, cfg(16)), rule({M(CmpOp::le, 20)}, cfg(16)),
             rule({M(CmpOp::ge, 11), M(CmpOp::le, 30)}, cfg(16)), rule({N(CmpOp::le, 5)}, cfg(64))};
  p.default_config = cfg(32);
  const Program s = simplify(p);
  // `M >= 11` of rule 2 is implied by rule 0 and goes first; then rule 2 (`M <= 30`) decides
  // every shape rules 0 and 1 decide, with their config, and both go.
  CHECK(s == Program{{rule({M(CmpOp::le, 30)}, cfg(16)), p.rules[3]}, cfg(32)});
  CHECK(equivalent(s, p));
  // With another config in rule 2, `M >= 11` still goes (rule 0 decides M <= 10), rule 1 has
  // to stay for M in 11..20, and rule 0 goes: rule 1 gives its shapes the same config.
  Program q;
  q.rules = {rule({M(CmpOp::le, 10)}, cfg(16)), rule({M(CmpOp::le, 20)}, cfg(16)),
             rule({M(CmpOp::ge, 11), M(CmpOp::le, 30)}, cfg(64))};
  q.default_config = cfg(32);
  const Program t = simplify(q);
  CHECK(t == Program{{q.rules[1], rule({M(CmpOp::le, 30)}, cfg(64))}, cfg(32)});
  CHECK(equivalent(t, q));
}

TEST_CASE("simplify: always-true rules kill later rules and fold into the default") {
  Program p;
  p.rules = {rule({M(CmpOp::le, 64)}, cfg(16)), rule({M(CmpOp::ge, 1), K(CmpOp::gt, 0)}, cfg(32)),
             rule({N(CmpOp::le, 5)}, cfg(64))};
  p.default_config = cfg(128);
  Program s = simplify(p);
  CHECK(s == Program{{p.rules[0]}, cfg(32)});
  CHECK(equivalent(s, p));

  // An always-true first rule leaves nothing but the default.
  p.rules.insert(p.rules.begin(), rule({N(CmpOp::lt, kI64Max)}, cfg(8)));
  CHECK(simplify(p) == Program{{}, cfg(8)});

  // A default hidden by two complementary rules is folded too.
  Program q;
  q.rules = {rule({M(CmpOp::le, 100)}, cfg(16)), rule({M(CmpOp::gt, 100)}, cfg(32))};
  q.default_config = cfg(64);
  CHECK(simplify(q) == Program{{q.rules[0]}, cfg(32)});
}

TEST_CASE("simplify: redundant comparisons are dropped, spelling is kept") {
  const auto cleaned = [](std::vector<Comparison> terms) {
    Program p;
    p.rules = {rule(std::move(terms), cfg(16))};
    p.default_config = cfg(32);
    const Program s = simplify(p);
    REQUIRE(s.rules.size() == 1);
    return s.rules[0].condition.terms;
  };
  using V = std::vector<Comparison>;
  CHECK(cleaned({M(CmpOp::le, 128), M(CmpOp::le, 256)}) == V{M(CmpOp::le, 128)});
  CHECK(cleaned({M(CmpOp::le, 256), M(CmpOp::le, 128)}) == V{M(CmpOp::le, 128)});
  CHECK(cleaned({M(CmpOp::lt, 129), M(CmpOp::le, 256)}) == V{M(CmpOp::lt, 129)});
  CHECK(cleaned({M(CmpOp::lt, 129), M(CmpOp::le, 128)}) == V{M(CmpOp::lt, 129)}); // first wins
  CHECK(cleaned({M(CmpOp::gt, 0), N(CmpOp::ge, 1), K(CmpOp::ge, 4)}) == V{K(CmpOp::ge, 4)});
  CHECK(cleaned({M(CmpOp::ge, 5), M(CmpOp::le, 5), M(CmpOp::eq, 5)}) == V{M(CmpOp::eq, 5)});
  CHECK(cleaned({K(CmpOp::le, 9), M(CmpOp::ge, 5), K(CmpOp::gt, 2), M(CmpOp::le, 7)}) ==
        V{K(CmpOp::le, 9), M(CmpOp::ge, 5), K(CmpOp::gt, 2), M(CmpOp::le, 7)});
  CHECK(cleaned({N(CmpOp::eq, 3), N(CmpOp::eq, 3)}) == V{N(CmpOp::eq, 3)});
  CHECK(cleaned({M(CmpOp::eq, 1), M(CmpOp::le, 1)}) == V{M(CmpOp::eq, 1)});
  CHECK(cleaned({M(CmpOp::le, 1), M(CmpOp::eq, 1)}) == V{M(CmpOp::le, 1)});
  CHECK(cleaned({M(CmpOp::ge, 2), M(CmpOp::gt, 1), M(CmpOp::le, 9), M(CmpOp::lt, 10)}) ==
        V{M(CmpOp::ge, 2), M(CmpOp::le, 9)});
}

TEST_CASE("simplify: huge constants near the int64 limits") {
  Program p;
  p.default_config = cfg(32);
  p.rules = {rule({M(CmpOp::gt, kI64Max)}, cfg(1)),
             rule({N(CmpOp::lt, kI64Min)}, cfg(2)),
             rule({K(CmpOp::eq, kI64Min)}, cfg(3)),
             rule({M(CmpOp::ge, kDimMax + 1)}, cfg(4)),
             rule({M(CmpOp::eq, kDimMax), N(CmpOp::le, kI64Max)}, cfg(5)),
             rule({K(CmpOp::ge, kDimMax), K(CmpOp::gt, kI64Min)}, cfg(6))};
  const Program s = simplify(p);
  CHECK(s == Program{{rule({M(CmpOp::eq, kDimMax)}, cfg(5)), rule({K(CmpOp::ge, kDimMax)}, cfg(6))},
                     cfg(32)});
  CHECK(equivalent(s, p));
  for (const auto& pt : dense_points(p))
    CHECK(s.choose(pt) == p.choose(pt));
  CHECK(s.choose(at(kDimMax, 1, 1)) == cfg(5));
  CHECK(s.choose(at(kDimMax - 1, 1, kDimMax)) == cfg(6));
  CHECK(s.choose(at(kDimMax - 1, kDimMax, kDimMax - 1)) == cfg(32));
  CHECK(reachable_configs(p) == std::vector<Config>{cfg(5), cfg(6), cfg(32)});

  Program always;
  always.rules = {
      rule({M(CmpOp::le, kI64Max), N(CmpOp::ge, kI64Min), K(CmpOp::lt, kI64Max)}, cfg(7))};
  CHECK_FALSE(default_reachable(always));
  CHECK(simplify(always) == Program{{}, cfg(7)});
}

TEST_CASE("simplify: exact, minimal and idempotent on random programs") {
  Rng rng(2024);
  int shrunk = 0, folded = 0;
  const int cases = tv::test::property_cases(1500);
  for (int iter = 0; iter < cases; ++iter) {
    const Program p = test::random_program(rng, 8, 64, 3);
    const Program s = simplify(p);
    CHECK(equivalent(s, p));
    CHECK(equivalent(p, s));
    for (const auto& pt : dense_points(p))
      if (s.choose(pt) != p.choose(pt)) {
        FAIL_CHECK("differs at " << pt.label() << " in program " << iter);
        break;
      }
    CHECK(brute_equivalent(s, p));
    CHECK(simplify(s) == s);
    CHECK(s.rules.size() <= p.rules.size());
    shrunk += s.rules.size() < p.rules.size();
    folded += !(s.default_config == p.default_config);
    if (!(s.default_config == p.default_config)) CHECK_FALSE(default_reachable(p));
    CHECK(rules_come_from(s, p));
    if (!s.rules.empty()) CHECK(default_reachable(s));
    if (iter < 400) {
      // Minimal: dropping any rule or any comparison changes the program.
      for (std::size_t i = 0; i < s.rules.size(); ++i) {
        Program t = s;
        t.rules.erase(t.rules.begin() + std::ptrdiff_t(i));
        CHECK_FALSE(brute_equivalent(t, s));
        for (std::size_t k = 0; k < s.rules[i].condition.terms.size(); ++k) {
          Condition c = s.rules[i].condition;
          c.terms.erase(c.terms.begin() + std::ptrdiff_t(k));
          CHECK_FALSE(c.box() == s.rules[i].condition.box());
        }
      }
    }
  }
  CHECK(shrunk > cases / 5); // the generator makes many redundant rules
  CHECK(folded > cases / 150);
}

TEST_CASE("simplify: reachable_configs and default_reachable match sampling") {
  Rng rng(77);
  for (int iter = 0; iter < 500; ++iter) {
    const Program p = test::random_program(rng, 7, 40, 4);
    std::vector<bool> fires(p.rules.size(), false);
    bool dflt = false;
    for (const auto& pt : cell_points({&p})) {
      const int r = p.deciding_rule(pt);
      if (r < 0)
        dflt = true;
      else
        fires[std::size_t(r)] = true;
    }
    std::vector<Config> expected;
    for (std::size_t i = 0; i < p.rules.size(); ++i) {
      CHECK(effective_region(p, i).empty() == !fires[i]);
      if (fires[i] &&
          std::find(expected.begin(), expected.end(), p.rules[i].config) == expected.end())
        expected.push_back(p.rules[i].config);
    }
    if (dflt && std::find(expected.begin(), expected.end(), p.default_config) == expected.end())
      expected.push_back(p.default_config);
    CHECK(default_reachable(p) == dflt);
    CHECK(reachable_configs(p) == expected);
  }
}

TEST_CASE("simplify: equivalent catches a difference at exactly one point") {
  Program a;
  a.rules = {rule({M(CmpOp::le, 64)}, cfg(16)), rule({N(CmpOp::gt, 100)}, cfg(32))};
  a.default_config = cfg(64);
  const std::int64_t points[][3] = {
      {37, 5, 64}, {1, 1, 1}, {kDimMax, kDimMax, kDimMax}, {65, 100, kDimMax}, {64, 101, 1}};
  for (const auto& pt : points) {
    const Shape s = at(pt[0], pt[1], pt[2]);
    Program b = a;
    b.rules.insert(b.rules.begin(),
                   rule({M(CmpOp::eq, pt[0]), N(CmpOp::eq, pt[1]), K(CmpOp::eq, pt[2])}, cfg(128)));
    CHECK_FALSE(equivalent(a, b));
    CHECK_FALSE(equivalent(b, a));
    b.rules[0].config = a.choose(s);
    CHECK(equivalent(a, b));
    CHECK(equivalent(b, a));
    // Same difference, spelled as a rule at the end that only the point reaches.
    Program c = a;
    c.rules.push_back(rule({M(CmpOp::ge, pt[0]), M(CmpOp::le, pt[0]), N(CmpOp::eq, pt[1]),
                            K(CmpOp::lt, pt[2] + 1), K(CmpOp::gt, pt[2] - 1)},
                           cfg(128)));
    CHECK(equivalent(a, c) == (a.deciding_rule(s) >= 0));
  }

  // Random programs against one-point edits at random cell corners.
  Rng rng(5);
  for (int iter = 0; iter < 300; ++iter) {
    const Program p = test::random_program(rng, 6, 64, 3);
    const auto cells = cell_points({&p});
    const Shape s = rng.pick(cells);
    Program q = p;
    Config other = p.choose(s);
    other.stages += 1;
    q.rules.insert(q.rules.begin() + std::ptrdiff_t(rng.index(q.rules.size() + 1)),
                   rule({M(CmpOp::eq, s.M), N(CmpOp::eq, s.N), K(CmpOp::eq, s.K)}, other));
    CHECK(equivalent(p, q) == (q.choose(s) == p.choose(s)));
    CHECK(equivalent(p, q) == brute_equivalent(p, q));
  }
}

TEST_CASE("simplify: equivalent matches an exhaustive check on random pairs") {
  Rng rng(99);
  int same = 0, differ = 0;
  for (int iter = 0; iter < 2000; ++iter) {
    const Program p = test::random_program(rng, 6, 24, 2);
    Program q = rng.chance(0.5) ? simplify(p) : p;
    // Small edits that sometimes change behaviour and sometimes do not.
    const int edit = int(rng.uniform_int(0, 4));
    if (!q.rules.empty()) {
      const std::size_t i = rng.index(q.rules.size());
      auto& terms = q.rules[i].condition.terms;
      if (edit == 0 && !terms.empty())
        terms[rng.index(terms.size())].value += rng.chance(0.5) ? 1 : -1;
      if (edit == 1 && i + 1 < q.rules.size()) std::swap(q.rules[i], q.rules[i + 1]);
      if (edit == 2) q.rules.erase(q.rules.begin() + std::ptrdiff_t(i));
      if (edit == 3) q.rules[i].config = q.default_config;
    }
    if (edit == 4) q.default_config = test::random_config(rng);
    const bool truth = brute_equivalent(p, q);
    CHECK(equivalent(p, q) == truth);
    CHECK(equivalent(q, p) == truth);
    (truth ? same : differ) += 1;
    // A second, independent random program is almost never equivalent, but must agree too.
    const Program r = test::random_program(rng, 4, 24, 2);
    CHECK(equivalent(p, r) == brute_equivalent(p, r));
  }
  CHECK(same > 300);
  CHECK(differ > 300);
}

TEST_CASE("simplify: 20-rule programs (time reported) and adversarial ones finish") {
  Rng rng(3);
  std::vector<Program> programs;
  std::vector<Config> pool;
  for (int i = 0; i < 4; ++i)
    pool.push_back(test::random_config(rng));
  while (programs.size() < 200) {
    Program p;
    for (int i = 0; i < 20; ++i) {
      Rule r;
      const int terms = int(rng.uniform_int(1, 3));
      for (int j = 0; j < terms; ++j)
        r.condition.terms.push_back(test::random_comparison(rng));
      r.config = rng.pick(pool);
      p.rules.push_back(r);
    }
    p.default_config = rng.pick(pool);
    programs.push_back(std::move(p));
  }
  const auto t0 = std::chrono::steady_clock::now();
  std::size_t kept = 0;
  for (const auto& p : programs)
    kept += simplify(p).rules.size();
  const double per_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count() /
      double(programs.size());
  // Reported, not asserted: a wall-clock bound fails on a loaded machine (this one read 5.7 ms
  // under ASan beside three other tests); the speed figures live in the benchmarks.
  MESSAGE("simplify on 20-rule programs: " << per_ms << " ms each, " << kept << " rules kept");
  CHECK(kept > 0);

  // Thin slabs on every axis cut the complement into many pieces; it must still finish.
  Program grid;
  for (int i = 1; i <= 30; ++i) {
    grid.rules.push_back(rule({M(CmpOp::eq, 2 * i)}, cfg(16)));
    grid.rules.push_back(rule({N(CmpOp::eq, 2 * i)}, cfg(32)));
    grid.rules.push_back(rule({K(CmpOp::eq, 2 * i)}, cfg(16)));
  }
  grid.default_config = cfg(64);
  const Program s = simplify(grid);
  CHECK(s.rules.size() == grid.rules.size());
  CHECK(equivalent(s, grid));
}

TEST_CASE("simplify: drop_unexercised_rules keeps decisions on the given shapes") {
  using namespace tv;
  const Program p = parse_program_or_throw(
      "def choose(M, N, K):\n"
      "    if M <= 16:\n"
      "        return Config(BM=16, BN=64, BK=128, warps=4, stages=4, group=1)\n"
      "    if M <= 64 and K <= 2048:\n"
      "        return Config(BM=64, BN=64, BK=64, warps=4, stages=3, group=8)\n"
      "    if M <= 64:\n"
      "        return Config(BM=64, BN=128, BK=64, warps=4, stages=3, group=8)\n"
      "    return Config(BM=128, BN=128, BK=64, warps=4, stages=3, group=8)\n",
      "test");
  std::vector<Shape> shapes;
  for (std::int64_t m : {1, 32, 64, 512}) {
    Shape s;
    s.M = m;
    s.N = 4096;
    s.K = 4096;
    shapes.push_back(s);
  }
  const Program q = drop_unexercised_rules(p, shapes);
  REQUIRE(q.rules.size() == 2); // the K <= 2048 rule decides none of them
  CHECK(q.rules[0] == p.rules[0]);
  CHECK(q.rules[1] == p.rules[2]);
  for (const auto& s : shapes)
    CHECK(q.choose(s) == p.choose(s));
  // A rule exercised by only one shape (M <= 16: M = 1) goes when two are required.
  const Program two = drop_unexercised_rules(p, shapes, 2);
  REQUIRE(two.rules.size() == 1);
  CHECK(two.rules[0] == p.rules[2]);
  // Without a shape above M = 64 the default is never timed: the last exercised rule's config
  // takes its place, so a larger M gets a measured config, not the untested default.
  shapes.pop_back();
  const Program wide = drop_unexercised_rules(p, shapes);
  REQUIRE(wide.rules.size() == 1);
  CHECK(wide.rules[0] == p.rules[0]);
  CHECK(wide.default_config == p.rules[2].config);
  for (const auto& s : shapes)
    CHECK(wide.choose(s) == p.choose(s));
  Shape big;
  big.M = 8192;
  big.N = 4096;
  big.K = 4096;
  CHECK(wide.choose(big) == p.rules[2].config);
}

TEST_CASE("simplify drops comparisons implied by earlier rules") {
  Program p;
  p.rules.push_back(Rule{Condition{{M(CmpOp::le, 16)}}, cfg(16)});
  p.rules.push_back(Rule{Condition{{M(CmpOp::gt, 16), N(CmpOp::le, 4096)}}, cfg(32)});
  p.rules.push_back(
      Rule{Condition{{N(CmpOp::gt, 4096), M(CmpOp::ge, 17), K(CmpOp::le, 64)}}, cfg(64)});
  p.default_config = cfg(128);
  const Program s = simplify(p);
  REQUIRE(s.rules.size() == 3);
  CHECK(s.rules[1].condition.terms == std::vector<Comparison>{N(CmpOp::le, 4096)});
  // M >= 17 is implied by rule 1; N > 4096 by rule 2 once rule 2 reads `N <= 4096` alone.
  CHECK(s.rules[2].condition.terms == std::vector<Comparison>{K(CmpOp::le, 64)});
  CHECK(equivalent(p, s));
  CHECK(simplify(s) == s);
  // Not implied: the earlier rule covers only part of what the comparison excludes.
  Program q;
  q.rules.push_back(Rule{Condition{{M(CmpOp::le, 16), N(CmpOp::le, 100)}}, cfg(16)});
  q.rules.push_back(Rule{Condition{{M(CmpOp::gt, 16)}}, cfg(32)});
  q.default_config = cfg(128);
  CHECK(simplify(q).rules[1].condition.terms == std::vector<Comparison>{M(CmpOp::gt, 16)});
}

} // namespace simplify_test
