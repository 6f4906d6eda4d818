// The line diff shown between the expert and the best program.
#include "serve/line_diff.hpp"

#include <doctest/doctest.h>

using namespace tv;

TEST_CASE("serve line diff: equal texts keep every line") {
  const auto d = line_diff("a\nb\nc\n", "a\nb\nc\n");
  REQUIRE(d.size() == 3);
  for (const auto& l : d)
    CHECK(l.kind == ' ');
}

TEST_CASE("serve line diff: an inserted rule is one added line between kept ones") {
  const auto d = line_diff("def f:\n    if M <= 16:\n    return X\n",
                           "def f:\n    if M <= 16:\n    if M <= 64:\n    return X\n");
  CHECK(diff_text(d) == " def f:\n     if M <= 16:\n+    if M <= 64:\n     return X\n");
}

TEST_CASE("serve line diff: a changed line is removed then added, CRLF does not count as a change") {
  const auto d = line_diff("a\r\nold\r\nc\r\n", "a\nnew\nc\n");
  CHECK(diff_text(d) == " a\n-old\n+new\n c\n");
}

TEST_CASE("serve line diff: the kept lines are a longest common subsequence") {
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

TEST_CASE("serve line diff: texts over the line limit become all removed then all added") {
  const auto d = line_diff("a\nb\nc\n", "a\nb\n", 2);
  CHECK(diff_text(d) == "-a\n-b\n-c\n+a\n+b\n");
}
