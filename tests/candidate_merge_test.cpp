#include "evolve/candidate_merge.hpp"
#include "ir/text.hpp"

#include <doctest/doctest.h>

// In a namespace of its own: the test files are compiled several to a unit (unity build).
namespace candidate_merge_test {

using namespace tv;

namespace {

const std::string kParent =
    "def choose(M, N, K):\n"
    "    if M <= 16:\n"
    "        return Config(BM=16, BN=64, BK=128, warps=4, stages=4, group=1)\n"
    "    return Config(BM=128, BN=128, BK=64, warps=4, stages=3, group=8)\n";

std::string with(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

} // namespace

TEST_CASE("candidate_merge: edits of different lines combine into one program") {
  // One child retunes decode, the other adds a prefill rule above the default.
  const std::string a = with(kParent, "BN=64, BK=128", "BN=32, BK=256");
  const std::string b =
      with(kParent, "    return Config(BM=128, BN=128, BK=64",
           "    if M >= 4096:\n        return Config(BM=128, BN=256, BK=64, "
           "warps=8, stages=4, group=16)\n    return Config(BM=128, BN=128, BK=64");
  const auto m = merge_edits(kParent, {a, b});
  REQUIRE(m);
  CHECK(m->contributors == std::vector<std::size_t>{0, 1});
  CHECK(m->skipped == 0);
  const ParseResult p = parse_program(m->text);
  REQUIRE(p.ok());
  CHECK(p.program->rules.size() == 2);
  CHECK(m->text.find("BN=32, BK=256") != std::string::npos);
  CHECK(m->text.find("if M >= 4096:") != std::string::npos);
  // Its blocks, applied to the parent, give the merge.
  const DiffResult r = apply_diff(kParent, m->blocks);
  CHECK(r.all_applied());
  CHECK(r.text == m->text);
}

TEST_CASE("candidate_merge: a conflicting edit is skipped and one contributor is no merge") {
  const std::string a = with(kParent, "BN=64, BK=128", "BN=32, BK=256");
  const std::string b = with(kParent, "BN=64, BK=128", "BN=128, BK=64"); // same line as a
  CHECK_FALSE(merge_edits(kParent, {a, b}));
  CHECK_FALSE(merge_edits(kParent, {a}));
  CHECK_FALSE(merge_edits(kParent, {a, a})); // the same edit twice contributes once
}

} // namespace candidate_merge_test
