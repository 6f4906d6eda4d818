// tests/test_costs.cmake gives ctest the slowest tests' costs so that they start first, and
// tests/sanitized_skips.cmake the tests the sanitized suite leaves to the release suite; ctest
// ignores a name it does not know, so a renamed test would silently lose its place or run
// sanitized again. Every name in either file must be a test case of this suite.
#include "support/shell.hpp"

#include <doctest/doctest.h>

#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

// In a namespace of its own: the test files are compiled several to a unit (unity build).
namespace test_costs_test {

/// The test cases of this executable, as doctest lists them.
std::set<std::string> test_cases() {
  const auto listed = tv::test::run_shell("/proc/" + std::to_string(getpid()) +
                                          "/exe --list-test-cases --no-version 2>&1");
  REQUIRE(listed.status == 0);
  std::set<std::string> cases;
  std::istringstream in(listed.out);
  for (std::string line; std::getline(in, line);)
    cases.insert(line);
  return cases;
}

/// Each match of `entry` in tests/`file` as its groups (0: the whole match); the file must not be
/// empty.
std::vector<std::vector<std::string>> entries(const std::string& file, const std::regex& entry) {
  const std::string text = tv::test::read_text(TILEVOLVE_SOURCE_DIR "/tests/" + file);
  REQUIRE(!text.empty());
  std::vector<std::vector<std::string>> out;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), entry);
       it != std::sregex_iterator(); ++it)
    out.emplace_back(it->begin(), it->end());
  return out;
}

TEST_CASE("test costs: every test tests/test_costs.cmake names is a test case of the suite") {
  const std::set<std::string> cases = test_cases();
  const auto named =
      entries("test_costs.cmake", std::regex(R"(\n +([0-9]+) \[==\[([^\]]+)\]==\])"));
  for (const auto& m : named) {
    INFO(m[2]);
    CHECK(cases.count(m[2]) == 1);
    CHECK(std::stoi(m[1]) > 0);
  }
  CHECK(named.size() >= 10);
}

TEST_CASE("test costs: every test tests/sanitized_skips.cmake names is a test case of the suite") {
  const std::set<std::string> cases = test_cases();
  const auto named = entries("sanitized_skips.cmake", std::regex(R"(\[==\[([^\]]+)\]==\])"));
  for (const auto& m : named) {
    INFO(m[1]);
    CHECK(cases.count(m[1]) == 1);
    // Tests of the scripts only (the protocols and A/B panel scripts): the sanitized suite
    // keeps every test of the C++ code.
    CHECK((m[1].rfind("protocols script: ", 0) == 0 || m[1].rfind("ab panel script: ", 0) == 0));
  }
  CHECK(named.size() >= 1);
}

} // namespace test_costs_test
