#include "ir/error.hpp"
#include "ir/rng.hpp"
#include "ir/text.hpp"
#include "tests/support/random_program.hpp"

#include "support/fixtures.hpp"
#include "support/temp_dir.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

// In a namespace of its own: the test files are compiled several to a unit (unity build).
namespace text_test {

using namespace tv;

namespace {

using tv::test::cfg;

Comparison cmp(Feature f, CmpOp op, std::int64_t v) {
  return Comparison{f, op, v};
}

/// The program of the example in text.hpp.
Program example_program() {
  Program p;
  p.rules.push_back(Rule{Condition{{cmp(Feature::M, CmpOp::le, 16)}}, cfg(16, 64, 128, 4, 4, 1)});
  p.rules.push_back(
      Rule{Condition{{cmp(Feature::M, CmpOp::le, 256), cmp(Feature::N, CmpOp::ge, 8192)}},
           cfg(64, 128, 64, 4, 4, 8)});
  p.default_config = cfg(128, 128, 64, 4, 3, 8);
  return p;
}

const char* const kExampleText =
    "def choose(M, N, K):\n"
    "    if M <= 16:\n"
    "        return Config(BM=16, BN=64, BK=128, warps=4, stages=4, group=1)\n"
    "    if M <= 256 and N >= 8192:\n"
    "        return Config(BM=64, BN=128, BK=64, warps=4, stages=4, group=8)\n"
    "    return Config(BM=128, BN=128, BK=64, warps=4, stages=3, group=8)\n";

Program parse_ok(std::string_view text) {
  ParseResult r = parse_program(text);
  INFO("text:\n" << text);
  INFO("error: " << (r.error ? r.error->str() : std::string("none")));
  REQUIRE(r.ok());
  CHECK_FALSE(r.error.has_value());
  return *r.program;
}

/// Program with a few extreme comparison constants (negative, 0, int64 limits).
Program extreme_program(Rng& rng) {
  Program p = test::random_program(rng, 5, 1 << 20, 3);
  static const std::vector<std::int64_t> extremes{
      INT64_MIN, INT64_MIN + 1, -1, 0, 1, INT64_MAX, INT64_MAX - 1, 1'000'000'000'000};
  for (auto& r : p.rules)
    for (auto& t : r.condition.terms)
      if (rng.chance(0.3)) t.value = rng.pick(extremes);
  if (rng.chance(0.2)) p.default_config.BM = INT_MAX;
  return p;
}

} // namespace

TEST_CASE("text: prints the canonical form") {
  CHECK(print_program(example_program()) == kExampleText);
  CHECK(print_condition(Condition{}) == "True");
  CHECK(print_condition(Condition{{cmp(Feature::K, CmpOp::lt, -3), cmp(Feature::N, CmpOp::eq, 7),
                                   cmp(Feature::M, CmpOp::gt, 0)}}) ==
        "K < -3 and N == 7 and M > 0");

  Config amd = cfg(256, 128, 64, 8, 2, 4);
  CHECK(print_config(amd) == "Config(BM=256, BN=128, BK=64, warps=8, stages=2, group=4)");
  amd.kpack = 2;
  CHECK(print_config(amd) == "Config(BM=256, BN=128, BK=64, warps=8, stages=2, group=4, kpack=2)");
  amd.waves_per_eu = 0;
  amd.matrix_instr_nonkdim = 16;
  CHECK(print_config(amd) == "Config(BM=256, BN=128, BK=64, warps=8, stages=2, group=4, "
                             "waves_per_eu=0, matrix_instr_nonkdim=16, kpack=2)");

  Program empty_cond;
  empty_cond.rules.push_back(Rule{Condition{}, cfg(32, 32, 32, 2, 1, 1)});
  const std::string t = print_program(empty_cond);
  CHECK(t.find("    if True:\n        return Config(BM=32,") != std::string::npos);
  CHECK(t.back() == '\n');

  Program no_rules;
  CHECK(print_program(no_rules) ==
        "def choose(M, N, K):\n"
        "    return Config(BM=128, BN=128, BK=64, warps=4, stages=3, group=8)\n");
}

TEST_CASE("text: parses the example and hand-written programs") {
  CHECK(parse_ok(kExampleText) == example_program());

  Program amd = example_program();
  amd.rules[0].config.waves_per_eu = 2;
  amd.rules[1].config.matrix_instr_nonkdim = 32;
  amd.default_config.kpack = 1;
  amd.default_config.waves_per_eu = 0;
  CHECK(parse_ok(print_program(amd)) == amd);

  Program empty_cond;
  empty_cond.rules.push_back(Rule{Condition{}, cfg(32, 32, 32, 2, 1, 1)});
  CHECK(parse_ok(print_program(empty_cond)) == empty_cond);
  CHECK(parse_ok(print_program(Program{})) == Program{});
}

TEST_CASE("text: round trip on random programs") {
  Rng rng(20240601);
  for (int i = 0; i < 2500; ++i) {
    const Program p = i % 5 == 4 ? extreme_program(rng)
                                 : test::random_program(rng, 1 + i % 20, i % 2 ? 64 : 1 << 16);
    const std::string text = print_program(p);
    ParseResult r = parse_program(text);
    INFO("program:\n" << text);
    INFO("error: " << (r.error ? r.error->str() : ""));
    REQUIRE(r.ok());
    CHECK(*r.program == p);
    CHECK(print_program(*r.program) == text);
  }
}

TEST_CASE("text: leniency keeps the meaning") {
  const Program want = example_program();
  const std::vector<std::string> variants{
      // comments, blank lines and trailing comments
      "# tiling heuristic\n\ndef choose(M, N, K):  # entry\n    # small M\n\n"
      "    if M <= 16:  # decode\n        return Config(BM=16, BN=64, BK=128, warps=4, stages=4, "
      "group=1)\n    if M <= 256 and N >= 8192:\n        return Config(BM=64, BN=128, BK=64, "
      "warps=4, stages=4, group=8)\n  # odd comment indent is fine\n"
      "    return Config(BM=128, BN=128, BK=64, warps=4, stages=3, group=8)  # default\n# end\n",
      // two-space and mixed per-block indentation (each block consistent)
      "def choose(M, N, K):\n  if M <= 16:\n      return Config(BM=16, BN=64, BK=128, warps=4, "
      "stages=4, group=1)\n  if M <= 256 and N >= 8192:\n   return Config(BM=64, BN=128, BK=64, "
      "warps=4, stages=4, group=8)\n  return Config(BM=128, BN=128, BK=64, warps=4, stages=3, "
      "group=8)",
      // CRLF, extra spaces, tabs between tokens, parentheses, keyword order, underscores
      "def  choose( M ,N,  K ) :\r\n    if (M<=16):\r\n        return Config(group=1, BM=16, "
      "BN=64, BK=1_28, warps=4, stages=4)\r\n    if ((M <= 256) and (N\t>= 8_192)):\r\n"
      "        return   Config( BM = 64 , BN=128,BK=64,warps=4,stages=4,group=8 , )\r\n"
      "    return Config(stages=3, group=8, BM=128, BN=128, BK=64, warps=4)\r\n",
      // constant on the left, elif / else, one-line if, multi-line Config, BOM, CR only
      "\xEF\xBB\xBF"
      "def choose(M, N, K):\r    if 16 >= M: return Config(BM=16, BN=64, BK=128, warps=4, "
      "stages=4, group=1)\r    elif 256 >= M and 8192 <= N:\n        return Config(\n"
      "            BM=64, BN=128, BK=64,\n  warps=4, stages=4, group=8)\n    else:\n"
      "        return Config(BM=128, BN=128, BK=64, warps=4, stages=3, group=8)\n\n\n",
      // True is neutral inside a conjunction; indented def
      "    def choose(M, N, K):\n        if True and M <= 16:\n            return Config(BM=16, "
      "BN=64, BK=128, warps=4, stages=4, group=1)\n        if M <= 256 and (True and N >= 8192):\n"
      "            return Config(BM=64, BN=128, BK=64, warps=4, stages=4, group=8)\n"
      "        else: return Config(BM=128, BN=128, BK=64, warps=4, stages=3, group=8)\n",
  };
  for (const auto& v : variants)
    CHECK(parse_ok(v) == want);

  // Constant-on-left normalises every operator.
  const Program flips =
      parse_ok("def choose(M, N, K):\n    if 1 < M and 2 <= N and 3 > K and 4 >= M and 5 == N "
               "and -6 < K:\n        return Config(BM=16, BN=16, BK=16, warps=1, stages=1, "
               "group=1)\n    return Config(BM=16, BN=16, BK=16, warps=1, stages=1, group=1)\n");
  REQUIRE(flips.rules.size() == 1);
  CHECK(flips.rules[0].condition.terms ==
        std::vector<Comparison>{cmp(Feature::M, CmpOp::gt, 1), cmp(Feature::N, CmpOp::ge, 2),
                                cmp(Feature::K, CmpOp::lt, 3), cmp(Feature::M, CmpOp::le, 4),
                                cmp(Feature::N, CmpOp::eq, 5), cmp(Feature::K, CmpOp::gt, -6)});

  // Python chained comparison.
  const Program chain =
      parse_ok("def choose(M, N, K):\n    if 17 <= M < 256:\n        return Config(BM=16, BN=16, "
               "BK=16, warps=1, stages=1, group=1)\n    return Config(BM=16, BN=16, BK=16, "
               "warps=1, stages=1, group=1)\n");
  CHECK(chain.rules.at(0).condition.terms ==
        std::vector<Comparison>{cmp(Feature::M, CmpOp::ge, 17), cmp(Feature::M, CmpOp::lt, 256)});

  // int64 limits and `if True:`.
  const Program lim = parse_ok(
      "def choose(M, N, K):\n    if M >= -9_223_372_036_854_775_808 and N <= 9223372036854775807:"
      "\n        return Config(BM=1, BN=1, BK=1, warps=1, stages=1, group=1)\n    if (True):\n"
      "        return Config(BM=2, BN=1, BK=1, warps=1, stages=1, group=1)\n"
      "    return Config(BM=2147483647, BN=1, BK=1, warps=1, stages=1, group=1, waves_per_eu=0)\n");
  CHECK(lim.rules.at(0).condition.terms ==
        std::vector<Comparison>{cmp(Feature::M, CmpOp::ge, INT64_MIN),
                                cmp(Feature::N, CmpOp::le, INT64_MAX)});
  CHECK(lim.rules.at(1).condition.terms.empty());
  CHECK(lim.default_config.BM == INT_MAX);
  CHECK(lim.default_config.waves_per_eu == 0);
}

namespace {

struct BadCase {
  std::string text;
  int line, col;
  std::string fragment;
};

const std::string kRet = "return Config(BM=16, BN=16, BK=16, warps=1, stages=1, group=1)";
const std::string kHead = "def choose(M, N, K):\n";
std::string rule(const std::string& cond) {
  return "    if " + cond + ":\n        " + kRet + "\n";
}
const std::string kDefault = "    " + kRet + "\n";

} // namespace

TEST_CASE("text: errors name the first offending position") {
  const std::vector<BadCase> cases{
      {"", 1, 1, "expected 'def choose(M, N, K):', got end of input"},
      {"# only a comment\n\n", 3, 1, "expected 'def choose(M, N, K):'"},
      {"if M <= 1:\n", 1, 1, "expected 'def choose(M, N, K):', got 'if'"},
      {"def choose(M, N):\n" + kDefault, 1, 16, "expected 'def choose(M, N, K):', got ')'"},
      {"def chose(M, N, K):\n" + kDefault, 1, 5, "got 'chose'"},
      {"def choose(M, N, K)\n" + kDefault, 1, 20, "got end of line"},
      {"def choose(M, N, K): x\n", 1, 22, "expected end of line"},
      {kHead, 2, 5, "missing final 'return Config(...)' (the default)"},
      {kHead + rule("M <= 128"), 4, 5, "missing final 'return Config(...)' (the default)"},
      {kHead + rule("M <= 128") + "\n# trailing\n", 4, 5, "missing final 'return Config(...)'"},
      {kHead + "return Config(BM=1)\n", 2, 1, "expected an indented function body"},
      {kHead + "    if M <= abc:\n        " + kRet + "\n" + kDefault, 2, 13,
       "expected an integer after '<=', got 'abc'"},
      {kHead + "    if M <= :\n", 2, 13, "expected an integer after '<=', got ':'"},
      {kHead + "    if M <=\n", 2, 12, "expected an integer after '<=', got end of line"},
      {kHead + "    if M 128:\n", 2, 10, "expected a comparison operator"},
      {kHead + "    if M != 128:\n", 2, 10, "'!=' is not supported"},
      {kHead + "    if M <= N:\n", 2, 13, "expected an integer after '<=', got 'N'"},
      {kHead + "    if x <= 1:\n", 2, 8, "unknown name 'x'"},
      {kHead + "    if m <= 1:\n", 2, 8, "unknown name 'm'"},
      {kHead + "    if M <= 1 or N <= 2:\n", 2, 15, "'or' is not supported"},
      {kHead + "    if not M <= 1:\n", 2, 8, "'not' is not supported"},
      {kHead + "    if M <= 1 N <= 2:\n", 2, 15, "expected 'and' or ':', got 'N'"},
      {kHead + "    if M <= 1 and:\n", 2, 18, "expected a comparison like 'M <= 128', got ':'"},
      {kHead + "    if :\n", 2, 8, "expected a comparison like 'M <= 128'"},
      {kHead + "    if (M <= 1:\n", 2, 15, "expected 'and' or ')', got ':'"},
      {kHead + "    if M <= 1):\n", 2, 14, "expected 'and' or ':', got ')'"},
      {kHead + "    if 1 <= 2:\n", 2, 13,
       "expected a feature (M, N, K, M * N or cdiv(M, ..) * cdiv(N, ..)) after '<=', got '2'"},
      {kHead + "    if M <= 12.5:\n", 2, 13, "expected an integer, got '12.5'"},
      {kHead + "    if M <= 12abc:\n", 2, 13, "expected an integer, got '12abc'"},
      {kHead + "    if M <= 1__0:\n", 2, 13, "expected an integer, got '1__0'"},
      {kHead + "    if M <= 10_:\n", 2, 13, "expected an integer, got '10_'"},
      {kHead + "    if M <= 0128:\n", 2, 13, "leading zeros are not allowed in '0128'"},
      {kHead + "    if M <= 9223372036854775808:\n", 2, 13, "does not fit in 64 bits"},
      {kHead + "    if M >= -9223372036854775809:\n", 2, 14, "does not fit in 64 bits"},
      {kHead + "    if M <= - 5 and M <= -x:\n", 2, 27, "expected an integer after '-', got 'x'"},
      {kHead + "    if M <= 1 &&:\n", 2, 15, "unexpected character '&'"},
      {kHead + "    if M <= 1:\n        return Config(BM=1, BN=1, BK=1, warps=1, stages=1)\n", 3,
       58, "missing Config field 'group'"},
      {kHead + "    return Config(BM=1, BN=1, BK=1)\n", 2, 35,
       "missing Config fields 'warps', 'stages', 'group'"},
      {kHead + "    return Config(BM=1, BN=1, BK=1, warps=1, stages=1, group=1, foo=2)\n", 2, 65,
       "unknown Config field 'foo'"},
      {kHead + "    return Config(BM=1, BN=1, BK=1, warps=1, stages=1, group=1, BM=2)\n", 2, 65,
       "duplicate Config field 'BM'"},
      {kHead + "    return Config(BM=0, BN=1, BK=1, warps=1, stages=1, group=1)\n", 2, 22,
       "Config field 'BM' must be a positive integer"},
      {kHead + "    return Config(BM=1, BN=1, BK=1, warps=-4, stages=1, group=1)\n", 2, 43,
       "Config field 'warps' must be a positive integer"},
      {kHead + "    return Config(BM=1, BN=1, BK=1, warps=1, stages=1, group=1, kpack=-1)\n", 2, 71,
       "Config field 'kpack' must be a non-negative integer"},
      {kHead + "    return Config(BM=2147483648, BN=1, BK=1, warps=1, stages=1, group=1)\n", 2, 22,
       "Config field 'BM' is too large"},
      {kHead + "    return Config(BM=x, BN=1, BK=1, warps=1, stages=1, group=1)\n", 2, 22,
       "expected an integer, got 'x'"},
      {kHead + "    return Config(BM 1)\n", 2, 22, "expected '=' after 'BM', got '1'"},
      {kHead + "    return Config(16, 16)\n", 2, 19, "expected a Config field like 'BM=128'"},
      {kHead + "    return Config(BM=1 BN=1)\n", 2, 24, "expected ',' or ')', got 'BN'"},
      {kHead + "    return Cfg(BM=1)\n", 2, 12,
       "expected 'Config(...)' or \"vendor\" after 'return', got 'Cfg'"},
      {kHead + "    return Config(BM=1, BN=1, BK=1, warps=1, stages=1, group=1) x\n", 2, 65,
       "expected end of line, got 'x'"},
      {kHead + "    return Config(BM=1, BN=1, BK=1, warps=1, stages=1, group=1\n", 3, 1,
       "expected ',' or ')', got end of input"},
      {kHead + rule("M <= 1") + "    " + kRet + "\n    if M <= 2:\n", 5, 5,
       "unreachable code after the default return"},
      {kHead + rule("M <= 1") + "        " + kRet + "\n" + kDefault, 4, 9,
       "unreachable code after 'return' in an 'if' block"},
      {kHead + "    if M <= 1:\n        " + kRet + "\n    else:\n        " + kRet + "\n        " +
           kRet + "\n",
       6, 9, "unreachable code after the default return"},
      {kHead + kDefault + "print(choose(1, 2, 3))\n", 3, 1,
       "unexpected text after the end of 'choose'"},
      {kHead + rule("M <= 1") + "x = 1\n", 4, 1, "missing final 'return Config(...)'"},
      {kHead + "    if M <= 1:\n    " + kRet + "\n", 3, 5,
       "expected an indented 'return Config(...)' after 'if ...:', got 'return'"},
      {kHead + "    if M <= 1:\n", 3, 1, "expected an indented 'return Config(...)'"},
      {kHead + "    if M <= 1:\n        pass\n", 3, 9,
       "expected an indented 'return Config(...)' after 'if ...:', got 'pass'"},
      {kHead + "    if M <= 1: pass\n", 2, 16, "expected end of line or 'return' after ':'"},
      {kHead + rule("M <= 1") + "  " + kRet + "\n", 4, 3,
       "indentation does not match any outer level (expected 4 spaces)"},
      {kHead + rule("M <= 1") + "      " + kRet + "\n", 4, 7,
       "indentation does not match any outer level (expected 4 spaces)"},
      {kHead + "    if M <= 1: " + kRet + "\n      " + kRet + "\n", 3, 7,
       "unexpected indentation (expected 4 spaces)"},
      {kHead + "    if M <= 1:\n        " + kRet + "\n            x\n", 4, 13,
       "unexpected indentation"},
      {kHead + "    elif M <= 1:\n", 2, 5, "'elif' without a preceding 'if'"},
      {kHead + "    else:\n", 2, 5, "'else' without a preceding 'if'"},
      {kHead + "    else\n", 2, 5, "'else' without a preceding 'if'"},
      {kHead + rule("M <= 1") + "    else\n", 4, 9, "expected ':' after 'else', got end of line"},
      {kHead + "    while True:\n", 2, 5, "expected 'if', 'elif', 'else' or 'return', got 'while'"},
      {kHead + "\tif M <= 1:\n", 2, 1, "tab in indentation"},
      {kHead + "    if M <= 1:\n\t\treturn x\n", 3, 1, "tab in indentation"},
      {kHead + "    if M <= \"1\":\n", 2, 13, "expected an integer after '<=', got '\"1\"'"},
      {kHead + "    if M <= \xC3\xA9:\n", 2, 13, "unexpected character '\\xc3\\xa9'"},
      {kHead + "    if M \xE2\x89\xA4 1:\n", 2, 10, "unexpected character"},
      // The column counts code points: the comment's 'é' is one column.
      {"def choose(M, N, K): # \xC3\xA9\xC3\xA9 x\n  if M <= 1:\n    return \xC3\xA9\n", 3, 12,
       "unexpected character"},
      {kHead + "    if " + std::string(40, '(') + "M <= 1" + std::string(40, ')') + ":\n", 2, 40,
       "parentheses nested too deeply"},
      // The first error wins even when a lexical error comes later.
      {kHead + "    if M <= x:\n        return Config(BM=@)\n", 2, 13, "got 'x'"},
  };
  for (const auto& c : cases) {
    INFO("text:\n" << c.text);
    ParseResult r = parse_program(c.text);
    REQUIRE_FALSE(r.ok());
    REQUIRE(r.error.has_value());
    INFO("error: " << r.error->str());
    CHECK(r.error->line == c.line);
    CHECK(r.error->col == c.col);
    CHECK(r.error->message.find(c.fragment) != std::string::npos);
    CHECK(r.error->str() ==
          std::to_string(c.line) + ":" + std::to_string(c.col) + ": " + r.error->message);
  }
}

TEST_CASE("text: parse_program_or_throw and load_program_file") {
  CHECK(parse_program_or_throw(kExampleText, "x.py") == example_program());
  try {
    parse_program_or_throw("def choose(M, N, K):\n    if M <= abc:\n", "prog.py");
    FAIL("expected an InputError");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()) == "prog.py:2:13: expected an integer after '<=', got 'abc'");
  }

  const test::ScratchDir scratch("tv_text_test");
  const std::filesystem::path dir = scratch.path;
  const std::string good = (dir / "good.py").string(), bad = (dir / "bad.py").string();
  {
    std::ofstream(good, std::ios::binary) << kExampleText;
    std::ofstream(bad, std::ios::binary) << "def choose(M, N, K):\n";
  }
  CHECK(load_program_file(good) == example_program());
  try {
    load_program_file(bad);
    FAIL("expected an InputError");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()).rfind(bad + ":2:5: missing final", 0) == 0);
  }
  const std::string missing = (dir / "missing.py").string();
  CHECK_THROWS_AS(load_program_file(missing), InputError);
  try {
    load_program_file(missing);
  } catch (const InputError& e) {
    CHECK(std::string(e.what()).find(missing) != std::string::npos);
  }
  try {
    load_program_file(dir.string());
    FAIL("expected an InputError");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()).find(dir.string()) != std::string::npos);
  }
}

// Its speed is a benchmark's target (bench_static_check): timed bounds fail on loaded machines.
TEST_CASE("text: a 20-rule program parses, every time") {
  Rng rng(7);
  Program p = test::random_program(rng, 0, 1 << 14, 4);
  for (int i = 0; i < 20; ++i) {
    Rule r;
    for (int j = 0; j < 3; ++j)
      r.condition.terms.push_back(test::random_comparison(rng, 1 << 14));
    r.config = test::random_config(rng);
    p.rules.push_back(r);
  }
  const std::string text = print_program(p);
  const int reps = 200;
  std::size_t same = 0;
  for (int i = 0; i < reps; ++i) {
    const ParseResult r = parse_program(text);
    same += r.ok() && r.program && print_program(*r.program) == text ? 1 : 0;
  }
  CHECK(same == std::size_t(reps));
}

TEST_CASE("text: garbage and mutated text never crash and parse consistently") {
  Rng rng(99);
  const std::string alphabet = "defchoosMNKifelsrtunCg()=<>!,:_-#0123456789 \t\n\r\xC3\xA9"
                               "BKw";
  auto check = [](const std::string& text) {
    ParseResult r = parse_program(text);
    CHECK(r.ok() != r.error.has_value());
    if (r.ok()) {
      // Whatever parses prints to canonical text that parses to the same program.
      const std::string canon = print_program(*r.program);
      ParseResult again = parse_program(canon);
      REQUIRE(again.ok());
      CHECK(*again.program == *r.program);
    } else {
      const int lines = 2 + int(std::count(text.begin(), text.end(), '\n')) +
                        int(std::count(text.begin(), text.end(), '\r'));
      CHECK(r.error->line >= 1);
      CHECK(r.error->line <= lines);
      CHECK(r.error->col >= 1);
      CHECK(r.error->col <= int(text.size()) + 10);
      CHECK_FALSE(r.error->message.empty());
    }
  };
  for (int i = 0; i < 1500; ++i) { // random bytes
    std::string s(std::size_t(rng.uniform_int(0, 200)), ' ');
    for (auto& ch : s)
      ch = rng.chance(0.5) ? char(rng.uniform_int(0, 255))
                           : rng.pick(std::vector<char>(alphabet.begin(), alphabet.end()));
    check(s);
  }
  int parsed = 0;
  for (int i = 0; i < 3000; ++i) { // mutations of valid text
    std::string s = print_program(test::random_program(rng, 4));
    const int edits = int(rng.uniform_int(1, 3));
    for (int e = 0; e < edits; ++e) {
      const std::size_t at = rng.index(s.size());
      switch (rng.uniform_int(0, 8)) {
      case 6: // change a digit (often still valid)
        if (s[at] >= '0' && s[at] <= '9') s[at] = char('0' + rng.uniform_int(0, 9));
        break;
      case 7: // add a space after a space or a comment before a line end
        if (s[at] == ' ')
          s.insert(at, 1, ' ');
        else if (s[at] == '\n')
          s.insert(at, "  # note");
        break;
      case 0:
        s.erase(at, std::size_t(rng.uniform_int(1, 8)));
        break;
      case 1:
        s.insert(at, 1, alphabet[rng.index(alphabet.size())]);
        break;
      case 2:
        s[at] = alphabet[rng.index(alphabet.size())];
        break;
      case 3: { // duplicate a chunk
        const std::string chunk = s.substr(at, std::size_t(rng.uniform_int(1, 40)));
        s.insert(rng.index(s.size()), chunk);
        break;
      }
      case 4:
        s.insert(at, std::string(std::size_t(rng.uniform_int(1, 50)), '('));
        break;
      default:
        s = s.substr(0, at);
        break;
      }
      if (s.empty()) s.assign(1, 'd');
    }
    ParseResult r = parse_program(s);
    parsed += r.ok() ? 1 : 0;
    check(s);
  }
  MESSAGE("mutated programs that still parsed: " << parsed << " of 3000");
  // Pathological inputs stay fast and do not recurse deeply.
  check("def choose(M, N, K):\n    if " + std::string(200000, '(') + "\n");
  check(std::string(100000, '\n') + "def");
  check("def choose(M, N, K):\n    return Config(" + std::string(100000, ',') + ")\n");
}

TEST_CASE("text: parse_config reads what print_config writes and refuses anything else") {
  Config c;
  c.BM = 64;
  c.BN = 128;
  c.BK = 32;
  c.warps = 4;
  c.stages = 3;
  c.group = 8;
  c.waves_per_eu = 2;
  CHECK(parse_config(print_config(c)) == c);
  std::string why;
  CHECK(!parse_config("Config(BM=64, BN=128)", &why).has_value());
  CHECK(!why.empty());
  why.clear();
  CHECK(!parse_config("Config(BM=64, BN=128, BK=32, warps=4, stages=3, group=8)\n    if M <= 4:\n"
                      "        return Config(BM=16, BN=64, BK=128, warps=4, stages=4, group=1)",
                      &why)
             .has_value());
  CHECK(!why.empty());
  CHECK(!parse_config("").has_value());
}

} // namespace text_test
