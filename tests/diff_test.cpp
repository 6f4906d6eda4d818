#include "ir/diff.hpp"
#include "ir/rng.hpp"
#include "ir/text.hpp"
#include "tests/support/random_program.hpp"

#include <doctest/doctest.h>

#include <string>
#include <vector>

// In a namespace of its own: the test files are compiled several to a unit (unity build).
namespace diff_test {

using namespace tv;

namespace {

const std::string kProgram =
    "def choose(M, N, K):\n"
    "    if M <= 16:\n"
    "        return Config(BM=16, BN=64, BK=128, warps=4, stages=4, group=1)\n"
    "    if M <= 256 and N >= 8192:\n"
    "        return Config(BM=64, BN=128, BK=64, warps=4, stages=4, group=8)\n"
    "    return Config(BM=128, BN=128, BK=64, warps=4, stages=3, group=8)\n";

DiffResult apply_one(std::string_view text, std::string search, std::string replace) {
  return apply_diff(text, {DiffBlock{std::move(search), std::move(replace)}});
}

} // namespace

TEST_CASE("diff: outcome names") {
  CHECK(outcome_name(BlockOutcome::applied) == "applied");
  CHECK(outcome_name(BlockOutcome::not_found) == "not_found");
  CHECK(outcome_name(BlockOutcome::ambiguous) == "ambiguous");
  CHECK(outcome_name(BlockOutcome::empty) == "empty");
}

TEST_CASE("diff: parse_diff extracts blocks from prose and fences") {
  const std::string reply =
      "Sure! Here is my change, which raises the threshold:\n"
      "\n"
      "```python\n"
      "<<<<<<< SEARCH\n"
      "    if M <= 16:\n"
      "=======\n"
      "    if M <= 32:\n"
      ">>>>>>> REPLACE\n"
      "```\n"
      "And a second one without fences:\n"
      "<<<<<<< SEARCH\n"
      "        return Config(BM=64, BN=128, BK=64, warps=4, stages=4, group=8)\n"
      "=======\n"
      "        return Config(BM=64, BN=256, BK=64, warps=8, stages=4, group=8)\n"
      ">>>>>>> REPLACE\n"
      "Hope this helps.";
  const auto blocks = parse_diff(reply);
  REQUIRE(blocks.size() == 2);
  CHECK(blocks[0] == DiffBlock{"    if M <= 16:\n", "    if M <= 32:\n"});
  CHECK(blocks[1].search ==
        "        return Config(BM=64, BN=128, BK=64, warps=4, stages=4, group=8)\n");
  CHECK(blocks[1].replace ==
        "        return Config(BM=64, BN=256, BK=64, warps=8, stages=4, group=8)\n");

  const DiffResult r = apply_diff(kProgram, blocks);
  CHECK(r.all_applied());
  CHECK(r.applied_count() == 2);
  const Program p = parse_program_or_throw(r.text, "child");
  CHECK(p.rules.at(0).condition.terms.at(0).value == 32);
  CHECK(p.rules.at(1).config.BN == 256);
  CHECK(p.rules.at(1).config.warps == 8);
}

TEST_CASE("diff: parse_diff tolerates CRLF, trailing spaces, long markers, fenced sections") {
  const std::string crlf = "intro\r\n<<<<<<< SEARCH  \r\na\r\nb  \r\n=======\t\r\nc\r\n"
                           ">>>>>>> REPLACE \r\noutro\r\n";
  auto blocks = parse_diff(crlf);
  REQUIRE(blocks.size() == 1);
  CHECK(blocks[0].search == "a\nb  \n"); // content keeps trailing spaces; apply ignores them
  CHECK(blocks[0].replace == "c\n");

  const std::string longer = "<<<<<<<<<< SEARCH\nx\n============\ny\n>>>>>>>>>>>REPLACE\n";
  blocks = parse_diff(longer);
  REQUIRE(blocks.size() == 1);
  CHECK(blocks[0] == DiffBlock{"x\n", "y\n"});

  const std::string indented = "  <<<<<<< SEARCH\nx\n  =======\ny\n  >>>>>>> REPLACE";
  blocks = parse_diff(indented);
  REQUIRE(blocks.size() == 1);
  CHECK(blocks[0] == DiffBlock{"x\n", "y\n"});

  // A fence line at the edge of a section is not content.
  const std::string fenced = "<<<<<<< SEARCH\n```python\n    if M <= 16:\n```\n=======\n```\n"
                             "    if M <= 8:\n```\n>>>>>>> REPLACE\n";
  blocks = parse_diff(fenced);
  REQUIRE(blocks.size() == 1);
  CHECK(blocks[0] == DiffBlock{"    if M <= 16:\n", "    if M <= 8:\n"});

  // Empty sections: no lines -> "", one blank line -> "\n".
  blocks = parse_diff("<<<<<<< SEARCH\n=======\n>>>>>>> REPLACE\n<<<<<<< SEARCH\n\n=======\n\n"
                      ">>>>>>> REPLACE\n");
  REQUIRE(blocks.size() == 2);
  CHECK(blocks[0] == DiffBlock{"", ""});
  CHECK(blocks[1] == DiffBlock{"\n", "\n"});
}

TEST_CASE("diff: parse_diff skips malformed blocks") {
  CHECK(parse_diff("").empty());
  CHECK(parse_diff("no blocks here\n=======\n>>>>>>> REPLACE\n").empty());
  CHECK(parse_diff("<<<<<<< SEARCH\na\n=======\nb\n").empty());                 // unterminated
  CHECK(parse_diff("<<<<<<< SEARCH\na\n>>>>>>> REPLACE\n").empty());            // no divider
  CHECK(parse_diff("<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n").empty()); // 6 '<'
  CHECK(parse_diff("<<<<<<< SEARCH\na\n======\nb\n>>>>>>> REPLACE\n").empty()); // 6 '='
  CHECK(parse_diff("<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE now\n").empty());
  CHECK(parse_diff("<<<<<<< SEARCH\na\n=======\nb\n=======\nc\n>>>>>>> REPLACE\n").empty());
  // A new SEARCH restarts: the broken first block is dropped, the second kept.
  auto blocks = parse_diff("<<<<<<< SEARCH\nbroken\n<<<<<<< SEARCH\na\n=======\nb\n"
                           ">>>>>>> REPLACE\n");
  REQUIRE(blocks.size() == 1);
  CHECK(blocks[0] == DiffBlock{"a\n", "b\n"});
  // A malformed block does not hide a good one after it.
  blocks = parse_diff("<<<<<<< SEARCH\na\n>>>>>>> REPLACE\n<<<<<<< SEARCH\nc\n=======\nd\n"
                      ">>>>>>> REPLACE\n");
  REQUIRE(blocks.size() == 1);
  CHECK(blocks[0] == DiffBlock{"c\n", "d\n"});
}

TEST_CASE("diff: apply_diff outcomes") {
  SUBCASE("applied replaces exactly the matched lines") {
    const DiffResult r = apply_one(kProgram, "    if M <= 16:\n", "    if M <= 24:\n");
    REQUIRE(r.blocks.size() == 1);
    CHECK(r.blocks[0].outcome == BlockOutcome::applied);
    CHECK(r.blocks[0].matches == 1);
    CHECK(r.all_applied());
    std::string want = kProgram;
    want.replace(want.find("M <= 16"), 7, "M <= 24");
    CHECK(r.text == want);
  }
  SUBCASE("not_found leaves the text unchanged") {
    const DiffResult r = apply_one(kProgram, "    if M <= 17:\n", "    if M <= 24:\n");
    CHECK(r.blocks.at(0).outcome == BlockOutcome::not_found);
    CHECK(r.blocks.at(0).matches == 0);
    CHECK_FALSE(r.all_applied());
    CHECK(r.applied_count() == 0);
    CHECK(r.text == kProgram);
  }
  SUBCASE("ambiguous leaves the text unchanged") {
    // Multi-line searches match whole lines only: a partial last line is not found.
    const DiffResult r = apply_one(kProgram, "    if M <= 16:\n        return Config(", "x\n");
    CHECK(r.blocks.at(0).outcome == BlockOutcome::not_found);
    const DiffResult a = apply_one(kProgram + "    # warps=4\n", "warps=4", "warps=8");
    CHECK(a.blocks.at(0).outcome == BlockOutcome::ambiguous);
    CHECK(a.blocks.at(0).matches == 4);
    CHECK(a.text == kProgram + "    # warps=4\n");
    const std::string twice = "a\nb\nx\na\nb\n";
    const DiffResult t = apply_one(twice, "a\nb\n", "c\n");
    CHECK(t.blocks.at(0).outcome == BlockOutcome::ambiguous);
    CHECK(t.blocks.at(0).matches == 2);
    CHECK(t.text == twice);
    // Overlapping runs count separately.
    const DiffResult o = apply_one("a\na\na\n", "a\na\n", "b\n");
    CHECK(o.blocks.at(0).outcome == BlockOutcome::ambiguous);
    CHECK(o.blocks.at(0).matches == 2);
  }
  SUBCASE("empty search") {
    for (const std::string s : {"", "\n", "  \n\t\n", "   "}) {
      const DiffResult r = apply_one(kProgram, s, "    if M <= 1:\n");
      CHECK(r.blocks.at(0).outcome == BlockOutcome::empty);
      CHECK(r.blocks.at(0).matches == 0);
      CHECK(r.text == kProgram);
    }
  }
  SUBCASE("no blocks") {
    const DiffResult r = apply_diff(kProgram, {});
    CHECK(r.blocks.empty());
    CHECK_FALSE(r.all_applied());
    CHECK(r.text == kProgram);
  }
  SUBCASE("deleting lines") {
    const DiffResult r = apply_one(kProgram,
                                   "    if M <= 16:\n        return Config(BM=16, BN=64, BK=128, "
                                   "warps=4, stages=4, group=1)\n",
                                   "");
    CHECK(r.all_applied());
    const Program p = parse_program_or_throw(r.text, "child");
    CHECK(p.rules.size() == 1);
  }
}

TEST_CASE("diff: whitespace rules") {
  // Trailing whitespace is ignored on both sides; CRLF text is normalised to '\n'.
  const std::string text = "a  \r\n  b\t\r\nc\r\n";
  DiffResult r = apply_one(text, "a\n  b   \n", "A\n  B\n");
  CHECK(r.blocks.at(0).outcome == BlockOutcome::applied);
  CHECK(r.text == "A\n  B\nc\n");
  // CRLF in the search and replace.
  r = apply_one(text, "c\r\n", "C\r\n");
  CHECK(r.all_applied());
  CHECK(r.text == "a  \n  b\t\nC\n");
  // Failing blocks still normalise line endings and keep the final newline state.
  r = apply_one(text, "zzz\n", "y\n");
  CHECK(r.text == "a  \n  b\t\nc\n");
  r = apply_one("a\nb", "b\n", "c\n");
  CHECK(r.text == "a\nc");
  // Leading indentation is significant for whole lines.
  r = apply_one("  x = 1\n  y = 2\n", "x = 1\ny = 2\n", "z\n");
  CHECK(r.blocks.at(0).outcome == BlockOutcome::not_found);
  r = apply_one("  x = 1\nx = 1\n", "x = 1\n", "x = 2\n");
  CHECK(r.blocks.at(0).outcome == BlockOutcome::applied);
  CHECK(r.text == "  x = 1\nx = 2\n");
}

TEST_CASE("diff: fragments inside one line") {
  // A single-line search may name part of a line, replaced in place.
  DiffResult r = apply_one(kProgram, "M <= 256", "M <= 512");
  CHECK(r.blocks.at(0).outcome == BlockOutcome::applied);
  CHECK(r.text.find("    if M <= 512 and N >= 8192:\n") != std::string::npos);
  // Without indentation the whole line is matched as a fragment and the indentation is kept.
  r = apply_one(kProgram, "if M <= 16:\n", "if M <= 8:\n");
  CHECK(r.blocks.at(0).outcome == BlockOutcome::applied);
  CHECK(r.text.find("\n    if M <= 8:\n") != std::string::npos);
  // Fragments match only at token boundaries: `12` is not inside `128`, `<` not inside `<=`.
  r = apply_one("if M <= 128:\n", "M <= 12", "M <= 16");
  CHECK(r.blocks.at(0).outcome == BlockOutcome::not_found);
  CHECK(r.text == "if M <= 128:\n");
  r = apply_one("if M <= 128:\n", "M <", "M >");
  CHECK(r.blocks.at(0).outcome == BlockOutcome::not_found);
  r = apply_one("if M <= 128:\n", "BM", "BN");
  CHECK(r.blocks.at(0).outcome == BlockOutcome::not_found);
  r = apply_one("x = BM2 + BM\n", "BM", "BN");
  CHECK(r.blocks.at(0).outcome == BlockOutcome::applied);
  CHECK(r.text == "x = BM2 + BN\n");
  // A fragment that occurs more than once anywhere in the text is ambiguous.
  r = apply_one(kProgram, "BK=64", "BK=32");
  CHECK(r.blocks.at(0).outcome == BlockOutcome::ambiguous);
  CHECK(r.blocks.at(0).matches == 2);
  CHECK(r.text == kProgram);
  // Fragments are never used for multi-line searches or replacements.
  r = apply_one(kProgram, "M <= 256", "M <= 512:\n        return x\n    if M <= 256");
  CHECK(r.blocks.at(0).outcome == BlockOutcome::not_found);
  CHECK(r.text == kProgram);
  // A fragment can be deleted.
  r = apply_one(kProgram, " and N >= 8192", "");
  CHECK(r.all_applied());
  CHECK(r.text.find("    if M <= 256 :\n") != std::string::npos); // the trimmed fragment only
  CHECK(print_condition(parse_program_or_throw(r.text, "child").rules.at(1).condition) ==
        "M <= 256");
  // Whole-line matches take precedence: one whole line wins over extra fragment occurrences.
  r = apply_one("x = 1\n    x = 1\n", "x = 1", "y = 1");
  CHECK(r.blocks.at(0).outcome == BlockOutcome::applied);
  CHECK(r.text == "y = 1\n    x = 1\n");
  // A mis-indented fragment is trimmed, so it is ambiguous rather than silently picking a line.
  r = apply_one("if a:\n    x = 1\nx = 1\n", "  x = 1", "  x = 2");
  CHECK(r.blocks.at(0).outcome == BlockOutcome::ambiguous);
  CHECK(r.blocks.at(0).matches == 2);
  CHECK(r.text == "if a:\n    x = 1\nx = 1\n");
}

TEST_CASE("diff: later blocks see earlier ones") {
  const std::vector<DiffBlock> blocks{
      {"    if M <= 16:\n", "    if M <= 8:\n"},
      {"    if M <= 8:\n", "    if M <= 8 and K >= 1024:\n"}, // depends on block 1
      {"    if M <= 16:\n", "never\n"},                       // gone after block 1
      {"    return Config(BM=128, BN=128, BK=64, warps=4, stages=3, group=8)\n",
       "    if M <= 1024:\n        return Config(BM=128, BN=128, BK=64, warps=4, stages=3, "
       "group=8)\n    return Config(BM=256, BN=128, BK=64, warps=8, stages=3, group=8)\n"},
  };
  const DiffResult r = apply_diff(kProgram, blocks);
  REQUIRE(r.blocks.size() == 4);
  CHECK(r.blocks[0].outcome == BlockOutcome::applied);
  CHECK(r.blocks[1].outcome == BlockOutcome::applied);
  CHECK(r.blocks[2].outcome == BlockOutcome::not_found);
  CHECK(r.blocks[3].outcome == BlockOutcome::applied);
  CHECK(r.applied_count() == 3);
  CHECK_FALSE(r.all_applied());
  const Program p = parse_program_or_throw(r.text, "child");
  REQUIRE(p.rules.size() == 3);
  CHECK(print_condition(p.rules[0].condition) == "M <= 8 and K >= 1024");
  CHECK(print_condition(p.rules[2].condition) == "M <= 1024");
  CHECK(p.default_config.BM == 256);
}

TEST_CASE("diff: format_diff round trip") {
  const std::vector<DiffBlock> fixed{
      {"    if M <= 16:\n", "    if M <= 32:\n"}, {"", ""}, {"\n", "\n\n"}, {"a\n  b\n", ""},
      {"x  \n", "<<<<<< not a marker\n"},
  };
  const std::string text = format_diff(fixed);
  CHECK(text.rfind("<<<<<<< SEARCH\n    if M <= 16:\n=======\n    if M <= 32:\n>>>>>>> REPLACE\n",
                   0) == 0);
  CHECK(parse_diff(text) == fixed);
  // Sections without a final newline get one (the canonical form parse_diff produces).
  CHECK(parse_diff(format_diff({{"a", "b"}})) == std::vector<DiffBlock>{{"a\n", "b\n"}});

  Rng rng(4242);
  for (int i = 0; i < 500; ++i) {
    std::vector<DiffBlock> blocks;
    const int n = int(rng.uniform_int(0, 4));
    for (int b = 0; b < n; ++b) {
      auto section = [&rng]() {
        const std::string prog = print_program(test::random_program(rng, 3));
        std::vector<std::string> lines;
        std::size_t start = 0;
        for (std::size_t e = prog.find('\n'); e != std::string::npos;
             start = e + 1, e = prog.find('\n', start))
          lines.push_back(prog.substr(start, e - start));
        std::string out;
        const int k = int(rng.uniform_int(0, 3));
        for (int j = 0; j < k; ++j)
          out += (rng.chance(0.1) ? std::string() : rng.pick(lines)) + "\n";
        return out;
      };
      blocks.push_back(DiffBlock{section(), section()});
    }
    CHECK(parse_diff(format_diff(blocks)) == blocks);
    CHECK(parse_diff("Some prose.\r\n" + format_diff(blocks) + "\nmore prose") == blocks);
  }
}

TEST_CASE("diff: garbage never crashes") {
  Rng rng(1234);
  const std::vector<std::string> pieces{"<<<<<<< SEARCH",
                                        "=======",
                                        ">>>>>>> REPLACE",
                                        "```",
                                        "    if M <= 16:",
                                        "M <= 16",
                                        "",
                                        "  ",
                                        "\r",
                                        "x"};
  for (int i = 0; i < 3000; ++i) {
    std::string reply;
    const int n = int(rng.uniform_int(0, 30));
    for (int j = 0; j < n; ++j) {
      if (rng.chance(0.2)) {
        for (int k = int(rng.uniform_int(0, 10)); k > 0; --k)
          reply += char(rng.uniform_int(0, 255));
      } else {
        reply += rng.pick(pieces);
      }
      reply += rng.chance(0.8) ? "\n" : (rng.chance(0.5) ? "\r\n" : "");
    }
    const auto blocks = parse_diff(reply);
    for (const auto& b : blocks) {
      CHECK((b.search.empty() || b.search.back() == '\n'));
      CHECK((b.replace.empty() || b.replace.back() == '\n'));
    }
    const DiffResult r = apply_diff(i % 2 ? kProgram : reply, blocks);
    CHECK(r.blocks.size() == blocks.size());
    CHECK(r.text.find("\r\n") == std::string::npos);
    for (const auto& rep : r.blocks) {
      if (rep.outcome == BlockOutcome::applied) CHECK(rep.matches == 1);
      if (rep.outcome == BlockOutcome::ambiguous) CHECK(rep.matches > 1);
      if (rep.outcome == BlockOutcome::not_found || rep.outcome == BlockOutcome::empty)
        CHECK(rep.matches == 0);
    }
  }
}

TEST_CASE("diff: format_diff output parses back to the same blocks when sections hold fences") {
  // Issue 13: SEARCH text whose first or last line is ``` lost that line on the way back.
  const std::vector<DiffBlock> blocks = {
      {"```\n    if M <= 16:\n", "```\n"},
      {"    return Config(BM=128, BN=128, BK=64, warps=4, stages=3, group=8)\n```\n",
       "```python\n```\n"},
      {"  ```\n```\n```\n", ""},
      {"plain\n", "```\nx\n```\n"},
      {"no final newline", "also none"},
  };
  std::vector<DiffBlock> expected = blocks;
  expected[4] = {"no final newline\n", "also none\n"}; // sections are lines, each ends in '\n'
  CHECK(parse_diff(format_diff(blocks)) == expected);
  // The round trip holds for whatever parse_diff extracts, fenced replies included.
  const std::string reply = "```\n<<<<<<< SEARCH\n```\n```\nx\n```\n```\n=======\n```\n"
                            "```\n```\n>>>>>>> REPLACE\n```\n";
  const auto parsed = parse_diff(reply);
  REQUIRE(parsed.size() == 1);
  CHECK(parsed[0].search == "```\nx\n```\n");
  CHECK(parsed[0].replace == "```\n");
  CHECK(parse_diff(format_diff(parsed)) == parsed);
  // Plain blocks are written as before (no extra fences).
  CHECK(format_diff({{"a\n", "b\n"}}) == "<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n");
}

} // namespace diff_test
