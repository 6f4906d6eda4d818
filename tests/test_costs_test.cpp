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

TEST_CASE("test costs: every test tests/test_costs.cmake names is a test case of the suite") {
  const std::string costs = tv::test::read_text(TILEVOLVE_SOURCE_DIR "/tests/test_costs.cmake");
  REQUIRE(!costs.empty());
  const std::set<std::string> cases = test_cases();
  const std::regex entry(R"(\n +([0-9]+) \[==\[([^\]]+)\]==\])");
  int named = 0;
  for (auto it = std::sregex_iterator(costs.begin(), costs.end(), entry);
       it != std::sregex_iterator(); ++it) {
    const std::string name = (*it)[2];
    INFO(name);
    CHECK(cases.count(name) == 1);
    CHECK(std::stoi((*it)[1]) > 0);
    ++named;
  }
  CHECK(named >= 10);
}

TEST_CASE("test costs: every test tests/sanitized_skips.cmake names is a test case of the suite") {
  const std::string skips =
      tv::test::read_text(TILEVOLVE_SOURCE_DIR "/tests/sanitized_skips.cmake");
  REQUIRE(!skips.empty());
  const std::set<std::string> cases = test_cases();
  const std::regex entry(R"(\[==\[([^\]]+)\]==\])");
  int named = 0;
  for (auto it = std::sregex_iterator(skips.begin(), skips.end(), entry);
       it != std::sregex_iterator(); ++it) {
    const std::string name = (*it)[1];
    INFO(name);
    CHECK(cases.count(name) == 1);
    // Tests of the scripts only (today the protocols script): the sanitized suite keeps every
    // test of the C++ code.
    CHECK(name.rfind("protocols script: ", 0) == 0);
    ++named;
  }
  CHECK(named >= 1);
}

} // namespace test_costs_test
