// scripts/readme_figures.py, the check a person runs before landing: its markers in README.md
// and in the documentation pages under docs/ parse, and on a small README of its own (and a
// small tree with pages) it finds a stale figure and its file and line. Nothing here
// runs a README command (some take many minutes); the fixture's commands are printf.
#include "support/shell.hpp"
#include "support/temp_dir.hpp"
#include "support/text_match.hpp"

#include <doctest/doctest.h>
#include <filesystem>
#include <string>

// In a namespace of its own: the test files are compiled several to a unit (unity build).
namespace readme_figures_test {

using tv::test::contains;

namespace {

const std::string kScript = "python3 -B " TILEVOLVE_SOURCE_DIR "/scripts/readme_figures.py";

// A fenced block of quoted output and a paragraph whose figures a marker names.
std::string fixture(const std::string& pairs) {
  return "# fixture\n"
         "\n"
         "<!-- figures (~1 s): printf 'method  test of oracle\\nexpert  78.4%%\\n"
         "evolved  96.5%%\\n' -->\n"
         "```\n"
         "method  test of oracle\n"
         "evolved  96.5%\n"
         "```\n"
         "\n"
         "<!-- figures (slow, ~2 min): printf 'cache: 2003 appended\\n'\n"
         "  measures # pairs <- cache: # appended\n"
         "-->\n"
         "That run\n"
         "measures " +
         pairs + " pairs.\n";
}

} // namespace

TEST_CASE("readme figures: every marker of README.md and docs/ parses and has a cost") {
  const auto listed = tv::test::run_shell(kScript + " --list 2>&1");
  INFO(listed.out);
  REQUIRE(listed.status == 0);
  CHECK(contains(listed.out, "./build/tilevolve baselines --gpu h100 --split none"));
  CHECK(contains(listed.out, "[slow, ~"));  // the long studies are marked slow
  CHECK_FALSE(contains(listed.out, "[?]")); // and every marker says what it costs
  // The figures that moved into the documentation site kept their markers there.
  CHECK(contains(listed.out, "README.md:"));
  CHECK(contains(listed.out, "docs/results/generalization.md:"));
  CHECK(contains(listed.out, "docs/guides/workload.md:"));
  CHECK(contains(listed.out, "docs/explanation/analytic-model.md:"));
}

TEST_CASE("readme figures: a stale figure in a page under docs/ is found with its file and line") {
  // A tree of its own: README.md with a true figure, docs/guide/page.md with a stale one.
  tv::test::ScratchDir dir("tv_readme_figures_docs");
  std::filesystem::create_directories(dir.at("docs/guide"));
  dir.write("README.md", fixture("2,003"));
  dir.write("docs/guide/page.md", fixture("2,114"));
  const std::string tree = kScript + " --root " + dir.path;
  const auto listed = tv::test::run_shell(tree + " --list 2>&1");
  INFO(listed.out);
  CHECK(contains(listed.out, "README.md:3 docs/guide/page.md:3  [~1 s]  printf"));
  const auto found = tv::test::run_shell(tree + " 2>&1");
  INFO(found.out);
  CHECK(found.status == 1);
  CHECK(contains(found.out, "docs/guide/page.md:13: 2,114 -> 2003"));
  CHECK(contains(found.out, "README.md:9: 1 figures, all match"));
  CHECK(contains(found.out, "2 commands in 2 files"));
  // One file alone (--file), as before with --readme.
  const auto one =
      tv::test::run_shell(kScript + " --file " + dir.at("docs/guide/page.md") + " 2>&1");
  CHECK(one.status == 1);
  CHECK(contains(one.out, "page.md:13: 2,114 -> 2003"));
  // --update writes the printed figure in the quoted one's style; the check then passes.
  const auto updated = tv::test::run_shell(tree + " --update 2>&1");
  CHECK(contains(updated.out, "--update rewrote 1 figures"));
  CHECK(tv::test::read_text(dir.at("docs/guide/page.md")) == fixture("2,003"));
  CHECK(tv::test::run_shell(tree + " 2>&1").status == 0);
}

TEST_CASE("readme figures: a stale figure is reported with its line, a true one is not") {
  tv::test::ScratchDir dir("tv_readme_figures");
  const std::string stale = dir.write("stale.md", fixture("2,114"));
  const auto found = tv::test::run_shell(kScript + " --readme " + stale + " 2>&1");
  INFO(found.out);
  CHECK(found.status == 1);
  CHECK(contains(found.out, "stale.md:13: 2,114 -> 2003"));
  CHECK(contains(found.out, "stale.md:3: 1 figures, all match"));

  const std::string fixed = dir.write("README.md", fixture("2,003"));
  const auto clean = tv::test::run_shell(kScript + " --readme " + fixed + " 2>&1");
  INFO(clean.out);
  CHECK(clean.status == 0);
  CHECK(contains(clean.out, "every figure matches"));

  // --skip-slow leaves the paragraph's marker out, --only picks markers by their command
  const auto quick = tv::test::run_shell(kScript + " --readme " + stale + " --skip-slow 2>&1");
  CHECK(quick.status == 0);
  CHECK_FALSE(contains(quick.out, "appended"));
  const auto only = tv::test::run_shell(kScript + " --readme " + stale + " --only cache 2>&1");
  CHECK(only.status == 1);
  CHECK_FALSE(contains(only.out, "evolved"));
}

TEST_CASE("readme figures: the number reading of the script (its doctests)") {
  const auto tested = tv::test::run_shell("python3 -B -m doctest " TILEVOLVE_SOURCE_DIR
                                          "/scripts/readme_figures.py 2>&1");
  INFO(tested.out);
  CHECK(tested.status == 0);
}

} // namespace readme_figures_test
