#include "evolve/mutators/reply_parser.hpp"
#include "ir/rng.hpp"
#include "ir/text.hpp"
#include "tests/support/mutate.hpp"

#include <doctest/doctest.h>

// In a namespace of its own: the test files are compiled several to a unit (unity build).
namespace reply_parser_test {

using namespace tv;

namespace {

const std::string kParent =
    "def choose(M, N, K):\n"
    "    if M <= 16:\n"
    "        return Config(BM=16, BN=64, BK=128, warps=4, stages=4, group=1)\n"
    "    return Config(BM=128, BN=128, BK=64, warps=4, stages=3, group=8)\n";

const std::string kBlock = "<<<<<<< SEARCH\n"
                           "    if M <= 16:\n"
                           "=======\n"
                           "    if M <= 32:\n"
                           ">>>>>>> REPLACE\n";

const std::string kBogus = "<<<<<<< SEARCH\n"
                           "    if M <= 99999:\n"
                           "=======\n"
                           "    if M <= 1:\n"
                           ">>>>>>> REPLACE\n";

} // namespace

TEST_CASE("reply_parser: thinking sections are dropped, closed, unclosed or only closed") {
  std::size_t removed = 0;
  CHECK(strip_thinking("a<think>x</think>b", &removed) == "ab");
  CHECK(removed == 16);
  CHECK(strip_thinking("a<THINKING>x</Thinking>b") == "ab");
  CHECK(strip_thinking("a<think>x<think>y</think>z</think>b") == "ab"); // nested
  CHECK(strip_thinking("answer<think>never closed") == "answer");
  CHECK(strip_thinking("drafts...</think>answer") == "answer"); // opening tag was in the prompt
  CHECK(strip_thinking("a</think>b</think>c") == "bc");
  CHECK(strip_thinking("no tags <thin> here") == "no tags <thin> here");
  // A reply with comparisons but no tag comes back whole, nothing counted as removed.
  removed = 7;
  const std::string program = "if M <= 16 and N < 4096:\n    return x  # M <T\n";
  CHECK(strip_thinking(program, &removed) == program);
  CHECK(removed == 0);
  CHECK(strip_thinking("a<table>b</tr>c", &removed) == "a<table>b</tr>c");
  CHECK(removed == 0);
  CHECK(strip_thinking("x <= 1 <THINK>y</THINK>", &removed) == "x <= 1 ");
  CHECK(removed == 16);
}

TEST_CASE("reply_parser: a draft diff inside thinking does not count, the answer's does") {
  const std::string reply = "<think>\nMaybe:\n" + kBogus +
                            "No, better the decode bound.\n</think>\n" +
                            "Raising the decode bound:\n```\n" + kBlock + "```\n";
  const ParsedReply p = parse_reply(reply);
  CHECK(p.kind == ReplyKind::diff);
  REQUIRE(p.blocks.size() == 1);
  CHECK(p.thinking_chars > 0);
  const ReplyEdit e = edit_from_reply(reply, kParent);
  REQUIRE(e.ok());
  CHECK(e.child_text.find("if M <= 32:") != std::string::npos);
  // Without the thinking filter the draft block would have spoiled the edit.
  CHECK_FALSE(apply_diff(kParent, parse_diff(reply)).all_applied());
}

TEST_CASE("reply_parser: a whole program is accepted, fenced or not, the last one wins") {
  const std::string program =
      "def choose(M, N, K):\n"
      "    if M <= 32:\n"
      "        return Config(BM=16, BN=64, BK=128, warps=4, stages=4, "
      "group=1)\n"
      "    return Config(BM=128, BN=128, BK=64, warps=4, stages=3, group=8)\n";
  const std::string fenced = "First try:\n```python\ndef choose(M, N, K):\n    return "
                             "Config(BM=1)\n```\nBetter:\n```python\nConfig = dict\n\n" +
                             program + "\nprint(choose(1, 2, 3))\n```\nDone.";
  const ReplyEdit e = edit_from_reply(fenced, kParent);
  REQUIRE(e.ok());
  CHECK(e.parsed.kind == ReplyKind::program);
  CHECK(e.child_text == program);
  CHECK(parse_program(e.child_text).ok());

  const ReplyEdit bare = edit_from_reply("Here it is.\n\n" + program + "\nThat is all.\n", kParent);
  REQUIRE(bare.ok());
  CHECK(bare.child_text == program);
}

TEST_CASE("reply_parser: diffs win over programs, and failures say what happened") {
  const std::string both = "```python\n" + kParent + "```\n" + kBlock;
  CHECK(parse_reply(both).kind == ReplyKind::diff);

  const ReplyEdit prose = edit_from_reply("I would make the tiles bigger.", kParent);
  CHECK_FALSE(prose.ok());
  CHECK(prose.failure == "no SEARCH/REPLACE block or program in the reply");
  const ReplyEdit thinking = edit_from_reply("<think>" + kBlock + "</think>\n", kParent);
  CHECK(thinking.failure == "the reply holds only thinking, no SEARCH/REPLACE block or program");

  const ReplyEdit partial = edit_from_reply(kBlock + kBogus, kParent);
  CHECK_FALSE(partial.ok());
  CHECK(partial.failure == "block 1: applied; block 2 (SEARCH `if M <= 99999:`): not_found");
  CHECK(partial.child_text.empty());

  const std::string twice =
      "<<<<<<< SEARCH\n        return\n=======\n        return\n>>>>>>> REPLACE\n";
  const std::string ambiguous_parent =
      "def choose(M, N, K):\n    if M <= 16:\n        return\n    if M <= 32:\n        return\n";
  CHECK(edit_from_reply(twice, ambiguous_parent).failure ==
        "block 1 (SEARCH `return`): ambiguous (2 matches)");
}

TEST_CASE("reply_parser: never crashes on corrupted replies and keeps excerpts printable") {
  Rng rng(5);
  const std::string base = "<think>x</think>\n```python\n" + kBlock + "```\n" + kParent;
  for (int i = 0; i < 2000; ++i) {
    const std::string r = test::mutate_text(base, "<>=`\n think/SEARCHREPLACE:def\xc3\xa9", rng);
    const ReplyEdit e = edit_from_reply(r, kParent);
    bool printable = true;
    for (char c : e.failure)
      printable = printable && c >= 0x20 && c < 0x7f;
    CHECK(printable);
    if (!e.ok()) CHECK(e.child_text.empty());
  }
}

} // namespace reply_parser_test
