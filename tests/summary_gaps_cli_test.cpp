// End-to-end tests of the evolve summary's comparison with the decision tree on the test
// shapes: the real tilevolve binary on the public A100 tables (train on random shapes, test on
// the timm GEMMs, where one misaligned shape is the whole gap to the tree).
#include "support/shell.hpp"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>
#include <string>

// In a namespace of its own: the test files are compiled several to a unit (unity build).
namespace summary_gaps_cli_test {

namespace {

using Run = tv::test::ShellResult;

Run run(const std::string& args) {
  return tv::test::run_shell(std::string(TILEVOLVE_BINARY) + " " + args + " 2>/dev/null");
}

bool contains(const std::string& text, const std::string& what) {
  return text.find(what) != std::string::npos;
}

const std::string kRandomToTimm =
    "evolve --backend replay:" TILEVOLVE_SOURCE_DIR "/data/replay/a100_mm.txt," TILEVOLVE_SOURCE_DIR
    "/data/replay/a100_timm_mm.txt --shapes " TILEVOLVE_SOURCE_DIR
    "/data/replay/a100_shapes.csv --test-shapes " TILEVOLVE_SOURCE_DIR
    "/data/replay/a100_timm_shapes.csv --seed 1";

const std::string kCollapse = "a100:f16:NT:M50176:N570:K95";

} // namespace

TEST_CASE("summary_gaps_cli: --json's test_vs_tree splits the test gap to the tree by shape") {
  const Run r = run(kRandomToTimm + " --json");
  REQUIRE(r.status == 0);
  const auto j = nlohmann::json::parse(r.out);
  REQUIRE(j.contains("test_vs_tree"));
  const auto& t = j["test_vs_tree"];
  const double evolved = j["test"]["fraction_of_oracle"].get<double>();
  const double tree = j["baselines"]["tree"]["test"]["fraction_of_oracle"].get<double>();
  CHECK(t["shapes"] == 300);
  CHECK(t["gap_points"].get<double>() == doctest::Approx(100 * (evolved - tree)));
  // The shares of the shapes sum to the gap.
  CHECK(t["gained_points"].get<double>() + t["lost_points"].get<double>() ==
        doctest::Approx(t["gap_points"].get<double>()));
  CHECK(t["differ"].get<int>() >= t["gaining"].get<int>() + t["losing"].get<int>());
  CHECK(t["untimed"] == 0);
  // The largest loss is the shape with a row-major A of leading dimension 95, where the
  // result's config collapses: it alone is nearly the whole gap.
  REQUIRE_FALSE(t["losses"].empty());
  const auto& worst = t["losses"][0];
  CHECK(worst["shape"] == kCollapse);
  CHECK(worst["K"] == 95);
  CHECK(worst["of_oracle"].get<double>() < 0.05);
  CHECK(worst["tree_of_oracle"].get<double>() > 0.5);
  CHECK(worst["config"] != worst["tree_config"]);
  CHECK(worst["points"].get<double>() < -0.5);
  CHECK(worst["points"].get<double>() < 0.8 * t["gap_points"].get<double>());
  // Seed 1's other losses and gains leave it 0.01 short of the tree without that shape.
  CHECK(t["lost_to_one_shape"] == (worst["points"].get<double>() <= t["gap_points"].get<double>()));
  for (std::size_t i = 1; i < t["losses"].size(); ++i)
    CHECK(t["losses"][i]["points"].get<double>() >= worst["points"].get<double>());
  for (const auto& g : t["gains"])
    CHECK(g["points"].get<double>() > 0);
}

TEST_CASE("summary_gaps_cli: the text summary names the shapes, and says nothing without test "
          "shapes") {
  const Run r = run(kRandomToTimm + " --explain");
  REQUIRE(r.status == 0);
  const std::size_t at = r.out.find("Against the decision tree on the 300 test shapes: the result "
                                    "chooses another config on ");
  REQUIRE(at != std::string::npos);
  const std::size_t losses = r.out.find("Where it loses most", at);
  REQUIRE(losses != std::string::npos);
  CHECK(r.out.find(kCollapse, losses) < r.out.find("\n\n", losses));

  const Run none = run("evolve --gpu h100 --split none --budget 50");
  REQUIRE(none.status == 0);
  CHECK_FALSE(contains(none.out, "Against the decision tree on the"));
  const Run none_json = run("evolve --gpu h100 --split none --budget 50 --json");
  REQUIRE(none_json.status == 0);
  CHECK_FALSE(nlohmann::json::parse(none_json.out).contains("test_vs_tree"));
}

TEST_CASE("summary_gaps_cli: splits counts the runs one test shape alone puts below the tree") {
  std::string args = kRandomToTimm;
  args.replace(0, std::string("evolve").size(), "splits");
  args.replace(args.find(" --seed 1"), std::string(" --seed 1").size(), " --splits 1 --seeds 10");
  const Run j = run(args + " --json");
  REQUIRE(j.status == 0);
  const auto d = nlohmann::json::parse(j.out);
  // Runs below the tree, counted from the runs' own figures.
  int below = 0;
  const double tree = d["splits"][0]["decision_tree"]["test_fraction_of_oracle"].get<double>();
  for (const auto& run : d["splits"][0]["evolved"]["test_fraction_of_oracle"])
    below += run.get<double>() < tree;
  CHECK(d["runs_below_tree"] == below);
  CHECK(d["runs_below_tree_by_one_shape"].get<int>() >= 1);
  CHECK(d["runs_below_tree_by_one_shape"].get<int>() <= below);
  REQUIRE_FALSE(d["one_shape_losses"].empty());
  CHECK(d["one_shape_losses"][0]["shape"] == kCollapse);
  CHECK(d["one_shape_losses"][0]["runs"] == d["runs_below_tree_by_one_shape"]);
  const Run text = run(args);
  REQUIRE(text.status == 0);
  CHECK(contains(text.out, "One test shape alone accounts for the whole loss of "));
}

} // namespace summary_gaps_cli_test
