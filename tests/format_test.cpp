// Every C++ file of the repository is as clang-format writes it with the repository's
// .clang-format (Debian 12's clang-format 14, which `scripts/setup.sh test` installs), so that
// `git clang-format` on a change touches only that change.
#include "support/shell.hpp"

#include <doctest/doctest.h>

#include <string>

// In a namespace of its own: the test files are compiled several to a unit (unity build).
namespace format_test {

TEST_CASE("format: every C++ file is as clang-format writes it") {
  if (const auto version = tv::test::run_shell("clang-format --version 2>&1"); version.status != 0)
    FAIL("clang-format is not installed (scripts/setup.sh test installs it): " << version.out);
  // The source folders by name: build folders inside the tree hold generated C++ files.
  const std::string files =
      "cd " TILEVOLVE_SOURCE_DIR " && find bench cli eval evolve experiments ir models serve tests"
      " \\( -name '*.cpp' -o -name '*.hpp' \\) -print";
  const auto listed = tv::test::run_shell(files + " | wc -l");
  REQUIRE(listed.status == 0);
  CHECK(std::stoi(listed.out) > 400);
  // --dry-run -Werror: one warning per line clang-format would change, and a non-zero status.
  const auto checked =
      tv::test::run_shell(files + " | xargs clang-format --dry-run -Werror 2>&1 | head -40");
  INFO("run clang-format -i on the files named here:\n" << checked.out);
  CHECK(checked.out.empty());
}

} // namespace format_test
