// Test names: ctest learns the test cases from doctest's list and runs each by name. A ';' in a
// name splits it as a CMake list (and '[', ']' or '\' are list or pattern syntax), so the case
// would be registered under a truncated name that matches nothing and "passes" without running.
// This guards every TEST_CASE in tests/.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>

// In a namespace of its own: the test files are compiled several to a unit (unity build).
namespace test_names_test {

TEST_CASE("test_names: every test case name survives ctest's discovery and is unique") {
  namespace fs = std::filesystem;
  // A name may be split over adjacent string literals (as clang-format wraps long ones).
  const std::regex test_case(R"re(TEST_CASE\(((?:\s*"(?:[^"\\]|\\.)*")+))re");
  const std::regex literal(R"re("((?:[^"\\]|\\.)*)")re");
  std::set<std::string> seen;
  int files = 0;
  for (const auto& entry : fs::directory_iterator(fs::path(TILEVOLVE_SOURCE_DIR) / "tests")) {
    if (entry.path().extension() != ".cpp") continue;
    ++files;
    std::ifstream in(entry.path());
    std::stringstream ss;
    ss << in.rdbuf();
    const std::string text = ss.str();
    for (std::sregex_iterator it(text.begin(), text.end(), test_case), end; it != end; ++it) {
      const std::string literals = (*it)[1];
      std::string name;
      for (std::sregex_iterator l(literals.begin(), literals.end(), literal), e; l != e; ++l)
        name += (*l)[1];
      if (name.find("((?:") != std::string::npos) continue; // the patterns above, in this file
      INFO(entry.path().filename().string(), ": ", name);
      CHECK(name.find_first_of(";[]\\") == std::string::npos);
      CHECK(seen.insert(name).second);
    }
  }
  CHECK(files > 10);
  CHECK(seen.size() > 150);
}

} // namespace test_names_test
