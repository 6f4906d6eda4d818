// scripts/ab_panel.py, the broad panel a default is chosen on: its commands are the tool's own,
// an A/B of one row reports the binary's figures and their paired difference, a saved side
// stands in for a run one (--base-json), and bad options exit 2. The whole panel takes minutes and
// runs by hand.
#include "support/shell.hpp"
#include "support/temp_dir.hpp"
#include "support/text_match.hpp"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <string>
#include <utility>
#include <vector>

// In a namespace of its own: the test files are compiled several to a unit (unity build).
namespace ab_panel_script_test {

using tv::test::contains;

namespace {

const std::string kScript = "python3 -B " TILEVOLVE_SOURCE_DIR "/scripts/ab_panel.py";

} // namespace

TEST_CASE("ab panel script: every listed command is one the tool accepts") {
  const auto listed = tv::test::run_shell(kScript + " --list --range 2>&1");
  INFO(listed.out);
  REQUIRE(listed.status == 0);
  CHECK(contains(listed.out, "replay A100 timm, splits 20-39\n"));
  CHECK(contains(listed.out, "measured H200 lecture -> six models\n"));
  CHECK(contains(listed.out, "measured H100 lecture, splits 0-19\n"));
  CHECK(!contains(listed.out, "untrimmed")); // only with --shared
  // --range: each table's range splits, not the variants of one table.
  CHECK(contains(listed.out, "measured H100 lecture, range splits\n"));
  CHECK(contains(listed.out, "--split range --splits 8 --seeds 5"));
  CHECK(!contains(listed.out, "vendor dispatch, range splits"));
  const auto commands = tv::test::listed_commands(listed.out);
  for (std::string cmd : commands) {
    // Made tiny (one split, one seed, no proposals): a wrong flag or file would exit 2 here.
    for (const char* big : {"--splits 20", "--splits 8", "--seeds 5", "--seeds 10"})
      cmd = tv::test::replaced_first(cmd, big, std::string(big, std::string(big).find(' ')) + " 1");
    cmd.replace(0, 9, TILEVOLVE_BINARY);
    const auto ran = tv::test::run_shell("cd " TILEVOLVE_SOURCE_DIR " && " + cmd +
                                         " --budget 0 > /dev/null 2>&1");
    INFO(cmd);
    CHECK(ran.status == 0);
  }
  // Two windows of 8 tables, 7 transfers, and 6 tables' range splits.
  CHECK(commands.size() == 2 * 8 + 7 + 6);
  const auto plain = tv::test::run_shell(kScript + " --list 2>&1");
  REQUIRE(plain.status == 0);
  CHECK(!contains(plain.out, "range"));
  // A third window adds a row per table.
  const auto three = tv::test::run_shell(kScript + " --list --windows " + "0,20,40 2>&1");
  REQUIRE(three.status == 0);
  CHECK(contains(three.out, "replay H100 random, splits 40-59\n"));
}

TEST_CASE("ab panel script: an A/B of one row, its figures the binary's") {
  tv::test::ScratchDir dir("tv_ab_panel");
  const std::string json = dir.at("out.json");
  const auto ran = tv::test::run_shell(
      kScript + " --change " TILEVOLVE_BINARY " --base-args=--no-analytic-seed --windows 0 " +
      "--only 'A100 timm, splits' --json " + json + " 2>&1");
  INFO(ran.out);
  REQUIRE(ran.status == 0);
  CHECK(contains(ran.out, "replay A100 timm, splits 0-19"));
  CHECK(contains(ran.out, "split studies (1 rows): mean "));
  CHECK(contains(ran.out, "paired difference"));
  std::ifstream in(json);
  const auto j = nlohmann::json::parse(in);
  const double base = j["figures"]["base"]["replay A100 timm, splits 0-19"].get<double>();
  const double change = j["figures"]["change"]["replay A100 timm, splits 0-19"].get<double>();
  // Each side's figure is the mean gap to the tree `tilevolve splits` reports, in points.
  for (const auto& [extra, figure] : {std::pair<std::string, double>{" --no-analytic-seed", base},
                                      std::pair<std::string, double>{"", change}}) {
    const auto one = tv::test::run_shell(
        "cd " TILEVOLVE_SOURCE_DIR " && " TILEVOLVE_BINARY
        " splits --backend replay:data/replay/a100_timm_mm.txt --splits 20 --seeds 5" +
        extra + " --json 2>/dev/null");
    REQUIRE(one.status == 0);
    const auto s = nlohmann::json::parse(one.out);
    CHECK(figure == doctest::Approx(100 * s["mean_test_gap_to_tree"].get<double>()));
  }
  // The analytic seed is what the timm halves gain from (README): the two sides differ.
  CHECK(base != doctest::Approx(change));
  // --base-json: the base side is the saved file's judged side, not run again; the default
  // against itself moves nothing, and the per-table lines say so.
  const std::string again = dir.at("again.json");
  const auto reused =
      tv::test::run_shell(kScript + " --change " TILEVOLVE_BINARY + " --base-json " + json +
                          " --windows 0 " + "--only 'A100 timm, splits' --json " + again + " 2>&1");
  INFO(reused.out);
  REQUIRE(reused.status == 0);
  CHECK(contains(reused.out, "base: the figures of " + json));
  CHECK(contains(reused.out, "[1/1, ")); // one command ran: the change side's
  CHECK(contains(reused.out, "0 up, 0 down, 1 the same"));
  CHECK(contains(reused.out, "  replay A100 timm  +0.00  mean +0.00"));
  std::ifstream in2(again);
  const auto k = nlohmann::json::parse(in2);
  CHECK(k["figures"]["base"]["replay A100 timm, splits 0-19"].get<double>() ==
        doctest::Approx(change));
  CHECK(k["sides"]["base"]["from"].get<std::string>() == json);
  CHECK(k["options"]["transfer_seeds"].get<int>() == 10);
  // A file without the rows chosen, or with transfers at other seeds, is refused.
  tv::test::check_refused(kScript + " --base-json " + again +
                              " --windows 0,20 --only 'A100 timm, splits'",
                          "no figure for 1 of the 2 rows chosen, e.g. 'replay A100 timm, "
                          "splits 20-39'");
  tv::test::check_refused(kScript + " --base-json " + again + " --transfer-seeds 3 --only timm",
                          "its transfers ran at 10 seeds, these at 3");
}

TEST_CASE("ab panel script: bad options exit 2 and say why") {
  using tv::test::check_refused;
  check_refused(kScript + " --only no-such-row", "no row name contains 'no-such-row'");
  check_refused(kScript + " --base /nonexistent/tilevolve",
                "no tilevolve binary at /nonexistent/tilevolve (--base)");
  check_refused(kScript + " --windows 0,x", "--windows wants first split seeds like 0,20");
  check_refused(kScript + " --shared /nonexistent --list",
                "--shared /nonexistent: no a100_hf_train_mm.txt");
  check_refused(kScript + " --transfer-seeds 0", "--transfer-seeds must be at least 1");
  check_refused(kScript + " --base-json x.json --base-args=--x",
                "--base-json takes the base side from a file");
  check_refused(kScript + " --base-json /nonexistent.json",
                "--base-json /nonexistent.json: cannot read it");
  // A saved file read as untrusted input: its shape is checked, never assumed.
  tv::test::ScratchDir dir("tv_ab_panel_bad");
  const std::string saved = dir.at("saved.json");
  for (const auto& [text, says] : std::vector<std::pair<std::string, std::string>>{
           {"[1]", "no figures of a side \"change\""},
           {"{\"figures\": {\"change\": [1]}}", "no figures of a side \"change\""},
           {"{\"figures\": {\"change\": {\"replay A100 timm, splits 0-19\": true}}}",
            "the figure of 'replay A100 timm, splits 0-19' is not a number"},
           {"{\"figures\"", "not JSON (line 1"}}) {
    std::ofstream(saved) << text;
    check_refused(kScript + " --base-json " + saved + " --windows 0 --only 'A100 timm, splits'",
                  says);
  }
}

} // namespace ab_panel_script_test
