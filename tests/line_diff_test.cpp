// Line diffs: SEARCH/REPLACE blocks that apply back to the new text, and the shown diff
// (kept, removed and added lines) between the expert and the best program.
#include "ir/line_diff.hpp"
#include "ir/rng.hpp"
#include "ir/text.hpp"
#include "tests/support/random_program.hpp"

#include <algorithm>
#include <doctest/doctest.h>

// In a namespace of its own: the test files are compiled several to a unit (unity build).
namespace line_diff_test {

using namespace tv;

namespace {

const std::string kParent =
    "def choose(M, N, K):\n"
    "    if M <= 16:\n"
    "        return Config(BM=16, BN=64, BK=128, warps=4, stages=4, group=1)\n"
    "    if M <= 64:\n"
    "        return Config(BM=16, BN=64, BK=128, warps=4, stages=4, group=1)\n"
    "    return Config(BM=128, BN=128, BK=64, warps=4, stages=3, group=8)\n";

} // namespace

TEST_CASE("line_diff: identical texts give no blocks") {
  CHECK(diff_lines(kParent, kParent).empty());
  CHECK(diff_lines("a\nb  \n", "a\nb\n").empty()); // trailing spaces do not count
}

TEST_CASE("line_diff: a repeated line gets context until its SEARCH is unique") {
  std::string child = kParent;
  const std::string line =
      "        return Config(BM=16, BN=64, BK=128, warps=4, stages=4, group=1)\n";
  const auto second = child.find(line, child.find(line) + 1);
  child.replace(second, line.size(),
                "        return Config(BM=32, BN=64, BK=128, warps=4, stages=4, group=1)\n");
  const auto blocks = diff_lines(kParent, child);
  REQUIRE(blocks.size() == 1);
  // The line alone occurs twice: one neighbouring line (the one after) makes it unique.
  CHECK(std::count(blocks[0].search.begin(), blocks[0].search.end(), '\n') == 2);
  CHECK(blocks[0].search.rfind("    return Config(BM=128", 0) == std::string::npos);
  CHECK(blocks[0].search.find("    return Config(BM=128") != std::string::npos);
  const DiffResult r = apply_diff(kParent, blocks);
  CHECK(r.all_applied());
  CHECK(r.text == child);
}

TEST_CASE("line_diff: insertions, deletions and several hunks apply back exactly") {
  const std::string child =
      "def choose(M, N, K):\n"
      "    if M <= 8:\n"
      "        return Config(BM=16, BN=32, BK=128, warps=4, stages=4, group=1)\n"
      "    if M <= 16:\n"
      "        return Config(BM=16, BN=64, BK=128, warps=4, stages=4, group=1)\n"
      "    if M >= 4096:\n"
      "        return Config(BM=128, BN=256, BK=64, warps=8, stages=4, group=16)\n"
      "    return Config(BM=128, BN=128, BK=64, warps=4, stages=3, group=8)\n";
  const auto blocks = diff_lines(kParent, child);
  CHECK(blocks.size() == 2);
  const DiffResult r = apply_diff(kParent, blocks);
  CHECK(r.all_applied());
  CHECK(r.text == child);
}

TEST_CASE("line_diff: applying the blocks of random program pairs gives the second program") {
  Rng rng(11);
  int checked = 0;
  for (int i = 0; i < 300; ++i) {
    const std::string a = print_program(test::random_program(rng, 6, 64, 2));
    const std::string b = print_program(test::random_program(rng, 6, 64, 2));
    const auto blocks = diff_lines(a, b);
    const DiffResult r = apply_diff(a, blocks);
    INFO(a << "---\n" << b);
    if (a == b) {
      CHECK(blocks.empty());
      continue;
    }
    CHECK(r.all_applied());
    CHECK(r.text == b);
    ++checked;
  }
  CHECK(checked > 250);
}

TEST_CASE("line_diff shown: equal texts keep every line") {
  const auto d = line_diff("a\nb\nc\n", "a\nb\nc\n");
  REQUIRE(d.size() == 3);
  for (const auto& l : d)
    CHECK(l.kind == ' ');
}

TEST_CASE("line_diff shown: an inserted rule is one added line between kept ones") {
  const auto d = line_diff("def f:\n    if M <= 16:\n    return X\n",
                           "def f:\n    if M <= 16:\n    if M <= 64:\n    return X\n");
  CHECK(diff_text(d) == " def f:\n     if M <= 16:\n+    if M <= 64:\n     return X\n");
}

TEST_CASE(
    "line_diff shown: a changed line is removed then added, CRLF does not count as a change") {
  const auto d = line_diff("a\r\nold\r\nc\r\n", "a\nnew\nc\n");
  CHECK(diff_text(d) == " a\n-old\n+new\n c\n");
}

TEST_CASE("line_diff shown: the kept lines are a longest common subsequence") {
  // Greedy matching of the first "x" would keep 2 lines; the LCS keeps 3 (b, c, d).
  const auto d = line_diff("x\nb\nc\nd\n", "b\nc\nx\nd\n");
  int kept = 0;
  for (const auto& l : d)
    kept += l.kind == ' ';
  CHECK(kept == 3);
  // Replaying the diff gives back both texts.
  std::string before, after;
  for (const auto& l : d) {
    if (l.kind != '+') before += l.text + "\n";
    if (l.kind != '-') after += l.text + "\n";
  }
  CHECK(before == "x\nb\nc\nd\n");
  CHECK(after == "b\nc\nx\nd\n");
}

TEST_CASE("line_diff shown: texts over the line limit become all removed then all added") {
  const auto d = line_diff("a\nb\nc\n", "a\nb\n", 2);
  CHECK(diff_text(d) == "-a\n-b\n-c\n+a\n+b\n");
}

} // namespace line_diff_test
