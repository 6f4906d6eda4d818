// The documentation: the README a newcomer reads in minutes, the site's navigation, and the
// command reference generated from the binary's --help (docs/reference/cli.md), which must not
// drift from it. scripts/test.sh's docs phase builds the site itself (mkdocs build --strict).
#include "support/shell.hpp"
#include "support/temp_dir.hpp"
#include "support/text_match.hpp"

#include <algorithm>
#include <cctype>
#include <doctest/doctest.h>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

// In a namespace of its own: the test files are compiled several to a unit (unity build).
namespace docs_test {

using tv::test::contains;

namespace {

std::string read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  REQUIRE(in);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    out.push_back(line);
  return out;
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return char(std::tolower(c)); });
  return s;
}

const std::string kSource = TILEVOLVE_SOURCE_DIR;

} // namespace

TEST_CASE("docs: the README is short, opens with the two commands and keeps no lab notebook") {
  const std::string readme = read(kSource + "/README.md");
  const std::vector<std::string> lines = lines_of(readme);
  CHECK(lines.size() <= 250);
  // The title, then the two commands as the first thing a reader sees.
  REQUIRE(lines.size() > 5);
  CHECK(lines[0] == "# tilevolve");
  CHECK(lines[1].empty());
  CHECK(lines[2] == "```");
  CHECK(lines[3] == "./scripts/build.sh && ./build/tilevolve evolve");
  CHECK(lines[4] == "./scripts/test.sh");
  CHECK(lines[5] == "```");
  // What was measured and dropped is history: the lab notebook of docs/notebook/, not here.
  CHECK_FALSE(contains(lower(readme), "not kept"));
  CHECK_FALSE(contains(readme, "Refit validation, second form"));
  // It points into the site, and the site's pages exist (mkdocs checks the links inside it).
  for (const char* page : {"docs/getting-started.md", "docs/guides/gpu.md", "docs/guides/export.md",
                           "docs/reference/cli.md", "docs/explanation/pipeline.md",
                           "docs/results/generalization.md", "docs/notebook/index.md"}) {
    INFO(page);
    CHECK(contains(readme, std::string("](") + page));
  }
}

TEST_CASE("docs: the command reference is the binary's --help") {
  // docs/reference/cli.md is written by scripts/cli_reference.py --write; a changed option or
  // subcommand without that step fails here, naming the first word that differs.
  const auto checked =
      tv::test::run_shell("python3 -B " + kSource + "/scripts/cli_reference.py --check --binary " +
                          TILEVOLVE_BINARY " 2>&1");
  INFO(checked.out);
  CHECK(checked.status == 0);
  CHECK(contains(checked.out, "is current"));
  // Every subcommand has its section.
  const std::string page = read(kSource + "/docs/reference/cli.md");
  for (const char* sub : {"evolve", "baselines", "score", "lecture", "ablate", "splits", "devices",
                          "measure", "export", "import", "serve"}) {
    INFO(sub);
    CHECK(contains(page, std::string("\n## ") + sub + "\n"));
  }
  CHECK(contains(page, "## Exit status"));
}

TEST_CASE("docs: a stale command reference is found, and --write mends it") {
  tv::test::ScratchDir dir("tv_docs_cli");
  std::string page = read(kSource + "/docs/reference/cli.md");
  const std::string option = "--budget";
  const std::size_t at = page.find(option);
  REQUIRE(at != std::string::npos);
  page.replace(at, option.size(), "--budgte");
  const std::string stale = dir.write("cli.md", page);
  const std::string script = "python3 -B " + kSource + "/scripts/cli_reference.py --binary " +
                             TILEVOLVE_BINARY + " --page " + stale;
  const auto found = tv::test::run_shell(script + " --check 2>&1");
  INFO(found.out);
  CHECK(found.status == 1);
  CHECK(contains(found.out, "differs from the binary's help"));
  CHECK(contains(found.out, "--budgte"));
  CHECK(contains(found.out, "scripts/cli_reference.py --write"));
  REQUIRE(tv::test::run_shell(script + " --write 2>&1").status == 0);
  CHECK(tv::test::run_shell(script + " --check 2>&1").status == 0);
}

TEST_CASE("docs: every page is in the site's navigation, the lab notebook in a section apart") {
  const auto checked =
      tv::test::run_shell("python3 -B " + kSource + "/scripts/docs_check.py --nav 2>&1");
  INFO(checked.out);
  CHECK(checked.status == 0);
  const std::string config = read(kSource + "/mkdocs.yml");
  const std::size_t notebook = config.find("  - Lab notebook:");
  REQUIRE(notebook != std::string::npos);
  // The notebook's pages are listed under it, and nowhere else.
  const std::size_t first = config.find("notebook/");
  CHECK(first > notebook);
  CHECK(contains(config, "strict: true"));
  CHECK_FALSE(contains(config, "google")); // no web fonts, nothing fetched
}

} // namespace docs_test
