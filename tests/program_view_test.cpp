// How the dashboard shows a program: simplified (exactly), diffed from the expert, with
// derived features and vendor returns shown as they are, and untrusted text bounded.
#include "serve/program_view.hpp"

#include "ir/simplify.hpp"
#include "ir/text.hpp"

#include <doctest/doctest.h>
#include <string>

// In a namespace of its own: the test files are compiled several to a unit (unity build).
namespace program_view_test {

using namespace tv;

namespace {

const std::string kExpert =
    "def choose(M, N, K):\n"
    "    if M <= 16:\n"
    "        return Config(BM=16, BN=64, BK=128, warps=4, stages=4, group=1)\n"
    "    return Config(BM=128, BN=128, BK=64, warps=4, stages=3, group=8)\n";

} // namespace

TEST_CASE("program view: derived features and vendor returns are simplified and diffed as text") {
  const std::string best =
      "def choose(M, N, K):\n"
      "    if M <= 16:\n"
      "        return Config(BM=16, BN=64, BK=128, warps=4, stages=4, group=1)\n"
      "    if M <= 8:\n" // dead: covered by the rule above
      "        return Config(BM=32, BN=64, BK=128, warps=4, stages=4, group=1)\n"
      "    if cdiv(M, 128) * cdiv(N, 128) <= 132 and M * N >= 1048576:\n"
      "        return Config(BM=64, BN=64, BK=64, warps=4, stages=4, group=8)\n"
      "    if M >= 16384:\n"
      "        return \"vendor\"\n"
      "    return Config(BM=128, BN=128, BK=64, warps=4, stages=3, group=8)\n";
  const auto v = program_view(best, kExpert);
  CHECK(v["program"] == best);
  CHECK(v["rules"] == 4);
  CHECK(v["note"] == "");
  REQUIRE(v["simplified"].is_string());
  const auto simplified = parse_program(v["simplified"].get<std::string>());
  REQUIRE(simplified.ok());
  CHECK(v["simplified_rules"] == simplified.program->rules.size());
  CHECK(simplified.program->rules.size() < 4);
  CHECK(equivalent(*simplified.program, *parse_program(best).program));
  CHECK(v["simplified"].get<std::string>().find("\"vendor\"") != std::string::npos);
  CHECK(v["simplified"].get<std::string>().find("cdiv(M, 128) * cdiv(N, 128)") !=
        std::string::npos);
  // The diff adds the new rules and keeps the expert's.
  int added = 0, removed = 0, kept = 0;
  for (const auto& l : v["diff"]) {
    added += l["kind"] == "+";
    removed += l["kind"] == "-";
    kept += l["kind"] == " ";
  }
  CHECK(kept == 4);
  CHECK(added == 6);
  CHECK(removed == 0);
}

TEST_CASE("program view: unparsable, oversized and rule-heavy programs are shown with a note") {
  auto v = program_view("def choose(M, N, K):\n    return Banana()\n", kExpert);
  CHECK(v["simplified"].is_null());
  CHECK(v["note"].get<std::string>().find("does not parse: 2:") != std::string::npos);

  ProgramViewLimits small;
  small.max_text = 50;
  v = program_view(kExpert, kExpert, small);
  CHECK(v["simplified"].is_null());
  CHECK(v["note"].get<std::string>().find("bytes") != std::string::npos);
  CHECK(v["diff"].empty());

  small = {};
  small.max_rules = 0;
  v = program_view(kExpert, kExpert, small);
  CHECK(v["rules"] == 1);
  CHECK(v["simplified"].is_null());
  CHECK(v["note"].get<std::string>().find("1 rules") != std::string::npos);
  // An unknown expert gives no diff.
  CHECK(program_view(kExpert, "")["diff"].empty());
}

} // namespace program_view_test
