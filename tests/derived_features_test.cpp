// Derived features (M * N, tile counts) and vendor dispatch in the IR: values, text form,
// interval propagation, and the simplifier's soundness and exact cases with them.
#include "ir/condition.hpp"
#include "ir/rng.hpp"
#include "ir/simplify.hpp"
#include "ir/text.hpp"
#include "tests/support/property_cases.hpp"
#include "tests/support/random_program.hpp"
#include "tests/support/shell.hpp"
#include "tests/support/temp_dir.hpp"

#include <doctest/doctest.h>

#include <cstdint>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

// In a namespace of its own: the test files are compiled several to a unit (unity build).
namespace derived_features_test {

using namespace tv;

namespace {

Shape at(std::int64_t m, std::int64_t n, std::int64_t k = 1) {
  Shape s;
  s.M = m;
  s.N = n;
  s.K = k;
  return s;
}

Comparison mn(CmpOp op, std::int64_t v) {
  return Comparison{Feature::MN, op, v};
}
Comparison tiles(int bm, int bn, CmpOp op, std::int64_t v) {
  return Comparison{Feature::tiles, op, v, bm, bn};
}
Comparison base(Feature f, CmpOp op, std::int64_t v) {
  return Comparison{f, op, v};
}

Config cfg(int bm) {
  Config c;
  c.BM = bm;
  return c;
}

/// A random comparison on any feature; derived ones use two tile sizes so that programs share
/// features (which is what the relaxed space's exact reasoning needs).
Comparison random_term(Rng& rng) {
  const int kind = int(rng.uniform_int(0, 5));
  if (kind <= 2) return test::random_comparison(rng, 64);
  Comparison t;
  t.op = CmpOp(rng.uniform_int(0, 4));
  if (kind == 3 || kind == 5) {
    t.feature = Feature::MN;
    t.value = rng.uniform_int(0, 64 * 64);
  } else {
    t.feature = Feature::tiles;
    t.tile_m = rng.chance(0.5) ? 8 : 16;
    t.tile_n = t.tile_m;
    t.value = rng.uniform_int(0, 40);
  }
  return t;
}

Program random_derived_program(Rng& rng) {
  std::vector<Config> pool{cfg(16), cfg(32), cfg(64)};
  Program p;
  const int n = int(rng.uniform_int(0, 6));
  for (int i = 0; i < n; ++i) {
    Rule r;
    const int terms = int(rng.uniform_int(0, 3));
    for (int j = 0; j < terms; ++j)
      r.condition.terms.push_back(random_term(rng));
    r.config = rng.pick(pool);
    p.rules.push_back(r);
  }
  p.default_config = rng.pick(pool);
  return p;
}

/// Dense samples near the thresholds: a grid, huge values, and for every derived term, points on
/// both sides of its curve (for each M on a grid, the N where the feature crosses the value).
std::vector<Shape> sample_points(const std::vector<const Program*>& ps) {
  std::vector<Shape> out;
  for (std::int64_t m = 1; m <= 80; m += 3)
    for (std::int64_t n = 1; n <= 80; n += 3)
      out.push_back(at(m, n, 1 + (m * 7 + n) % 70));
  for (std::int64_t big : {kDimMax, kDimMax - 1, std::int64_t(1) << 40})
    for (std::int64_t n : {std::int64_t(1), std::int64_t(64), big})
      out.push_back(at(big, n, 5)), out.push_back(at(n, big, 70));
  for (const Program* p : ps)
    for (const auto& r : p->rules)
      for (const auto& t : r.condition.terms) {
        if (!is_derived(t.feature)) {
          for (std::int64_t d : {-1, 0, 1})
            if (t.value + d >= 1) {
              const std::int64_t v = t.value + d;
              out.push_back(at(v, 7, 9)), out.push_back(at(9, v, 7)), out.push_back(at(7, 9, v));
            }
          continue;
        }
        for (std::int64_t m = 1; m <= 80; ++m) {
          // Smallest N with feature >= value, and its neighbours.
          std::int64_t lo = 1, hi = 1 << 20;
          while (lo < hi) {
            const std::int64_t mid = (lo + hi) / 2;
            if (derived_value(t.feature, t.tile_m, t.tile_n, m, mid) >= t.value)
              hi = mid;
            else
              lo = mid + 1;
          }
          for (std::int64_t d : {-1, 0, 1})
            if (lo + d >= 1) out.push_back(at(m, lo + d, 1 + m % 70));
        }
      }
  return out;
}

} // namespace

TEST_CASE("derived features: values of M * N and tile counts, saturated") {
  CHECK(derived_value(Feature::MN, 0, 0, 128, 4096) == 128 * 4096);
  CHECK(derived_value(Feature::tiles, 128, 128, 129, 4096) == 2 * 32);
  CHECK(derived_value(Feature::tiles, 64, 256, 1, 1) == 1);
  CHECK(derived_value(Feature::MN, 0, 0, kDimMax, 3) == kDimMax);
  CHECK(derived_value(Feature::MN, 0, 0, std::int64_t(1) << 40, std::int64_t(1) << 40) == kDimMax);
  const Comparison t = tiles(128, 128, CmpOp::le, 132);
  CHECK(t.matches(at(128 * 11, 128 * 12)));           // 132 tiles: one wave on an H100
  CHECK_FALSE(t.matches(at(128 * 11 + 1, 128 * 12))); // 144 tiles
  CHECK(feature_text(t) == "cdiv(M, 128) * cdiv(N, 128)");
  CHECK(feature_text(mn(CmpOp::le, 1)) == "M * N");
}

TEST_CASE("derived features: the text form round-trips and accepts the equivalent spellings") {
  const std::string text =
      "def choose(M, N, K):\n"
      "    if M * N <= 1048576:\n"
      "        return Config(BM=64, BN=64, BK=64, warps=4, stages=4, group=8)\n"
      "    if cdiv(M, 128) * cdiv(N, 128) <= 132 and K >= 4096:\n"
      "        return Config(BM=128, BN=64, BK=64, warps=4, stages=3, group=8)\n"
      "    if M >= 8192:\n"
      "        return \"vendor\"\n"
      "    return Config(BM=128, BN=128, BK=64, warps=8, stages=3, group=8)\n";
  const ParseResult r = parse_program(text);
  REQUIRE_MESSAGE(r.ok(), r.error->str());
  const Program& p = *r.program;
  REQUIRE(p.rules.size() == 3);
  CHECK(p.rules[0].condition.terms[0] == mn(CmpOp::le, 1048576));
  CHECK(p.rules[1].condition.terms[0] == tiles(128, 128, CmpOp::le, 132));
  CHECK(p.rules[2].config == vendor_config());
  CHECK(p.rules[2].config.brief() == "vendor");
  CHECK(print_program(p) == text);
  CHECK(p.choose(at(8192, 8192, 8192)).vendor);
  CHECK(p.choose(at(1024, 1024, 64)).BM == 64);

  const std::string variants =
      "def choose(M, N, K):\n"
      "    if N*M <= 1048576: return Config(BM=64, BN=64, BK=64, warps=4, "
      "stages=4, group=8)\n"
      "    if 132 >= cdiv(N, 128) * cdiv(M, 128) and 4096 <= K:\n"
      "        return Config(BM=128, BN=64, BK=64, warps=4, stages=3, "
      "group=8)\n"
      "    if M >= 8192: return 'vendor'\n"
      "    return Config(BM=128, BN=128, BK=64, warps=8, stages=3, group=8)\n";
  const ParseResult v = parse_program(variants);
  REQUIRE_MESSAGE(v.ok(), v.error->str());
  CHECK(*v.program == p);
  // A chain on a derived feature gives two comparisons.
  const ParseResult chain =
      parse_program("def choose(M, N, K):\n    if 64 < M * N <= 4096:\n        return \"vendor\"\n"
                    "    return Config(BM=16, BN=16, BK=16, warps=1, stages=1, group=1)\n");
  REQUIRE(chain.ok());
  CHECK(chain.program->rules[0].condition.terms ==
        std::vector<Comparison>{mn(CmpOp::gt, 64), mn(CmpOp::le, 4096)});
  CHECK(parse_config("\"vendor\"") == vendor_config());
  CHECK(hash_value(vendor_config()) != hash_value(Config{}));
}

TEST_CASE("derived features: bad spellings get a message with line and column") {
  const std::string head = "def choose(M, N, K):\n";
  const std::string tail = "\n    return Config(BM=16, BN=16, BK=16, warps=1, stages=1, group=1)\n";
  struct Case {
    std::string cond;
    int col;
    std::string fragment;
  };
  const std::vector<Case> cases{
      {"M * K <= 5", 12, "the only product a condition may use is M * N"},
      {"M * M <= 5", 12, "the only product"},
      {"K * N <= 5", 8, "the only product"},
      {"N * K <= 5", 12, "the only product"},
      {"cdiv(K, 4) * cdiv(N, 4) <= 5", 13, "M or N as the first argument of cdiv"},
      {"cdiv(M, 0) * cdiv(N, 4) <= 5", 16, "tile size in cdiv must be an integer from 1 to"},
      {"cdiv(M, 70000) * cdiv(N, 4) <= 5", 16, "tile size in cdiv"},
      {"cdiv(M, 4) * cdiv(M, 4) <= 5", 21, "multiplies cdiv(M, ..) by cdiv(N, ..)"},
      {"cdiv(M, 4) <= 5", 19, "'*' and a second cdiv"},
      {"cdiv(M, 4) * N <= 5", 21, "'cdiv(N, ..)' after '*'"},
  };
  for (const auto& c : cases) {
    const ParseResult r =
        parse_program(head + "    if " + c.cond + ":\n        return \"vendor\"" + tail);
    INFO(c.cond);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error->line == 2);
    CHECK(r.error->col == c.col);
    CHECK_MESSAGE(r.error->message.find(c.fragment) != std::string::npos, r.error->message);
  }
  const ParseResult s = parse_program(head + "    return \"cublas\"\n");
  REQUIRE_FALSE(s.ok());
  CHECK(s.error->message.find("unknown return value \"cublas\"") != std::string::npos);
  CHECK_FALSE(parse_program(head + "    return \"vendor\n").ok());
  CHECK_FALSE(parse_program(head + "    return \"ven\\dor\"\n").ok());
  CHECK_FALSE(parse_program(head + "    return \"" + std::string(100, 'a') + "\"\n").ok());
  // At most kMaxDerivedFeatures distinct derived features; repeats do not count.
  std::string many = head;
  for (int i = 1; i <= kMaxDerivedFeatures + 1; ++i)
    many += "    if cdiv(M, " + std::to_string(i) +
            ") * cdiv(N, 8) <= 5 and M * N >= 3:\n"
            "        return \"vendor\"\n";
  const ParseResult m = parse_program(many + "    return \"vendor\"\n");
  REQUIRE_FALSE(m.ok());
  CHECK(m.error->line == 2 * kMaxDerivedFeatures); // M * N takes one of the places
  CHECK(m.error->message.find("too many distinct derived features") != std::string::npos);
}

TEST_CASE("derived features: tightening never drops a real shape and narrows what it can") {
  FeatureSpace space;
  space.add(mn(CmpOp::le, 0));
  space.add(tiles(16, 8, CmpOp::le, 0));
  Rng rng(5);
  auto interval = [&](std::int64_t scale) {
    const std::int64_t lo = rng.uniform_int(1, scale);
    return Interval{lo, rng.chance(0.2) ? kDimMax : lo + rng.uniform_int(-2, scale)};
  };
  int narrowed = 0;
  for (int iter = 0; iter < 3000; ++iter) {
    Box b;
    b.dims = space.dims();
    b.dim[0] = interval(60);
    b.dim[1] = interval(60);
    b.dim[2] = interval(5);
    b.dim[3] = interval(900);
    b.dim[4] = interval(20);
    Box t = b;
    space.tighten(t);
    narrowed += !(t == b);
    for (std::int64_t m = 1; m <= 70; m += 1 + iter % 3)
      for (std::int64_t n = 1; n <= 70; n += 1 + iter % 2) {
        const Shape s = at(m, n, b.dim[2].lo);
        if (space.contains(b, s) && !space.contains(t, s)) {
          FAIL_CHECK("tightening dropped " << m << "x" << n);
          return;
        }
      }
  }
  CHECK(narrowed > 1000);
  // M * N <= 100 with N >= 10 allows M up to 10 only; tiles of 16x8 >= 6 with N <= 8 need M > 80.
  Box b;
  b.dims = space.dims();
  b.dim[1] = {10, kDimMax};
  b.dim[3] = {1, 100};
  space.tighten(b);
  CHECK(b.dim[0].hi == 10);
  CHECK(b.dim[1].hi == 100);
  Box c;
  c.dims = space.dims();
  c.dim[1] = {1, 8};
  c.dim[4] = {6, kDimMax};
  space.tighten(c);
  CHECK(c.dim[0].lo == 81);
}

TEST_CASE("derived features: simplify never changes a decision and is idempotent") {
  Rng rng(2024);
  int removed_rules = 0, removed_terms = 0, proven = 0;
  for (int iter = 0; iter < 600; ++iter) {
    const Program p = random_derived_program(rng);
    const Program s = simplify(p);
    for (const Shape& x : sample_points({&p})) {
      if (!(p.choose(x) == s.choose(x))) {
        FAIL_CHECK("decision changed at " << x.M << "x" << x.N << "x" << x.K << " for\n"
                                          << print_program(p) << "simplified:\n"
                                          << print_program(s));
        return;
      }
    }
    CHECK(simplify(s) == s);
    CHECK(parse_program(print_program(s)).program == s);
    proven += equivalent(p, s);
    removed_rules += int(p.rules.size() - s.rules.size());
    std::size_t tp = 0, ts = 0;
    for (const auto& r : p.rules)
      tp += r.condition.terms.size();
    for (const auto& r : s.rules)
      ts += r.condition.terms.size();
    removed_terms += int(tp - ts);
  }
  // The search finds something to remove and can prove most simplifications.
  CHECK(removed_rules > 300);
  CHECK(removed_terms > 300);
  CHECK(proven > 500);
}

TEST_CASE("derived features: equivalent is never true for programs that differ") {
  Rng rng(77);
  int said_equal = 0;
  const int cases = tv::test::property_cases(1500);
  for (int iter = 0; iter < cases; ++iter) {
    const Program a = random_derived_program(rng);
    Program b = a;
    if (!b.rules.empty() && rng.chance(0.7)) {
      Rule& r = b.rules[std::size_t(rng.uniform_int(0, std::int64_t(b.rules.size()) - 1))];
      if (!r.condition.terms.empty() && rng.chance(0.5))
        r.condition.terms.back().value += rng.chance(0.5) ? 1 : -1;
      else
        r.config = cfg(128);
    }
    if (!equivalent(a, b)) continue;
    ++said_equal;
    for (const Shape& x : sample_points({&a, &b}))
      if (!(a.choose(x) == b.choose(x))) {
        FAIL_CHECK("equivalent() said yes, but they differ at " << x.M << "x" << x.N);
        return;
      }
  }
  CHECK(said_equal > cases / 5);
}

TEST_CASE("derived features: the exact cases the simplifier decides") {
  const Config a = cfg(16), b = cfg(32), c = cfg(64);
  // A derived bound implied by the M and N bounds goes: 16 * 4096 = 65536.
  {
    Program p;
    p.rules.push_back({Condition{{base(Feature::M, CmpOp::le, 16),
                                  base(Feature::N, CmpOp::le, 4096), mn(CmpOp::le, 65536)}},
                       a});
    p.default_config = b;
    const Program s = simplify(p);
    REQUIRE(s.rules.size() == 1);
    CHECK(s.rules[0].condition.terms.size() == 2);
    CHECK_FALSE(s.rules[0].condition.has_derived());
  }
  // An M bound implied by a derived bound goes: M * N <= 100 gives M <= 100.
  {
    Program p;
    p.rules.push_back({Condition{{mn(CmpOp::le, 100), base(Feature::M, CmpOp::le, 500)}}, a});
    p.default_config = b;
    CHECK(simplify(p).rules[0].condition.terms == std::vector<Comparison>{mn(CmpOp::le, 100)});
  }
  // A rule inside an earlier one with a looser bound on the same feature never fires.
  {
    Program p;
    p.rules.push_back({Condition{{tiles(128, 128, CmpOp::le, 132)}}, a});
    p.rules.push_back(
        {Condition{{tiles(128, 128, CmpOp::le, 100), base(Feature::K, CmpOp::ge, 64)}}, b});
    p.default_config = c;
    CHECK(effective_region(p, 1).empty());
    const Program s = simplify(p);
    CHECK(s.rules.size() == 1);
    CHECK(reachable_configs(s) == std::vector<Config>{a, c});
  }
  // M, N bounds that cut a derived region empty: 64 * 1024 < 2^20.
  {
    Program p;
    p.rules.push_back({Condition{{base(Feature::M, CmpOp::le, 64),
                                  base(Feature::N, CmpOp::le, 1024), mn(CmpOp::ge, 1 << 20)}},
                       a});
    p.default_config = b;
    CHECK(simplify(p).rules.empty());
    CHECK(reachable_configs(p) == std::vector<Config>{b});
  }
  // A box covered by a derived rule through the propagation: M, N <= 10 means M * N <= 100, and
  // one tile of 10x10 means the same box.
  {
    Program p;
    p.rules.push_back({Condition{{mn(CmpOp::le, 100)}}, a});
    p.rules.push_back(
        {Condition{{base(Feature::M, CmpOp::le, 10), base(Feature::N, CmpOp::le, 10)}}, b});
    p.rules.push_back({Condition{{tiles(10, 10, CmpOp::le, 1)}}, c});
    p.default_config = b;
    CHECK(simplify(p).rules.size() == 1);
  }
  // Documented limit: a rule dead only because two different features bound the same curve
  // (cdiv(M, 1) * cdiv(N, 1) is M * N); interval propagation would need about 100 rounds to see
  // it and stops after 16, so the rule is kept. Decisions stay right either way.
  {
    Program p;
    p.rules.push_back({Condition{{tiles(1, 1, CmpOp::le, 10000)}}, a});
    p.rules.push_back({Condition{{mn(CmpOp::le, 10000)}}, b});
    p.default_config = c;
    for (std::int64_t m = 1; m <= 200; ++m)
      for (std::int64_t n = 1; n <= 200; ++n)
        CHECK(p.deciding_rule(at(m, n)) != 1);
    CHECK(simplify(p).rules.size() == 2);
  }
}

TEST_CASE("derived features: the printed program with the prelude is Python that decides alike") {
  Rng rng(9);
  std::string script(kPythonPrelude);
  script += "import sys\nprogs = []\n";
  std::vector<Program> programs;
  for (int i = 0; i < 40; ++i) {
    Program p = random_derived_program(rng);
    if (rng.chance(0.5) && !p.rules.empty()) p.rules.back().config = vendor_config();
    programs.push_back(p);
    std::string text = print_program(p);
    text.replace(text.find("def choose"), 10, "def choose" + std::to_string(i));
    script += text + "progs.append(choose" + std::to_string(i) + ")\n";
  }
  std::vector<Shape> points;
  for (std::int64_t m = 1; m <= 90; m += 4)
    for (std::int64_t n = 1; n <= 90; n += 5)
      points.push_back(at(m, n, 1 + (m + n) % 70));
  points.push_back(at(std::int64_t(1) << 31, std::int64_t(1) << 20, 7));
  script += "for line in sys.stdin:\n    M, N, K = map(int, line.split())\n"
            "    print(' '.join('v' if c == 'vendor' else str(c['BM']) for c in "
            "(f(M, N, K) for f in progs)))\n";
  const test::ScratchDir scratch("tilevolve_prelude_test");
  const std::string dir = scratch.path;
  {
    std::ofstream(dir + "/progs.py") << script;
    std::ofstream in(dir + "/points.txt");
    for (const Shape& s : points)
      in << s.M << ' ' << s.N << ' ' << s.K << '\n';
  }
  const test::ShellResult r =
      test::run_shell("python3 " + dir + "/progs.py < " + dir + "/points.txt 2>&1");
  REQUIRE_MESSAGE(r.status == 0, r.out);
  std::istringstream out(r.out);
  for (const Shape& s : points) {
    std::string line;
    REQUIRE(std::getline(out, line));
    std::string expected;
    for (const Program& p : programs) {
      const Config& c = p.choose(s);
      expected +=
          (expected.empty() ? "" : " ") + (c.vendor ? std::string("v") : std::to_string(c.BM));
    }
    CHECK_MESSAGE(line == expected, s.M << "x" << s.N << "x" << s.K);
  }
}

} // namespace derived_features_test
