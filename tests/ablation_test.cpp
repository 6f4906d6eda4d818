// Ablations: arms, invariants of their figures, the difference row, thread-count
// independence, and the binary end to end.
#include "evolve/evolution.hpp"
#include "experiments/ablation.hpp"
#include "experiments/svg.hpp"
#include "ir/error.hpp"
#include "support/shell.hpp"
#include "support/temp_dir.hpp"

#include <array>
#include <cstdio>
#include <doctest/doctest.h>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <sys/wait.h>

// In a namespace of its own: the test files are compiled several to a unit (unity build).
namespace ablation_test {

using namespace tv;

namespace {

AblationResult small(AblationKind kind, int threads = 0) {
  AblationOptions o;
  o.budget = 80;
  o.seeds = 2;
  o.threads = threads;
  return run_ablation(kind, o);
}

void check_common(const AblationResult& r) {
  REQUIRE(r.arms.size() == 2);
  CHECK(check_citations(r.report).empty());
  REQUIRE(r.report.sections.size() == 1);
  const ReportTable& t = r.report.sections[0].tables.at(0);
  REQUIRE(t.rows.size() >= 3);
  const SeedStudy& a = r.arms[0].study;
  const SeedStudy& b = r.arms[1].study;
  CHECK(t.rows[0][0] == r.arms[0].label);
  CHECK(t.rows[1][0] == r.arms[1].label);
  CHECK(t.rows[0][3] == format_percent(a.test_fraction.median));
  CHECK(t.rows[2][3] == format_points(b.test_fraction.median - a.test_fraction.median));
  CHECK(t.rows[2][5] ==
        format_signed(std::llround(b.kernel_runs.median) - std::llround(a.kernel_runs.median)));
  for (const auto& arm : r.arms) {
    REQUIRE(arm.study.runs.size() == 2);
    for (const auto& run : arm.study.runs) {
      CHECK(run.programs == 80);
      CHECK(run.best_test.fraction_of_oracle <= 1.0 + 1e-12);
      CHECK(run.best_train.fraction_of_oracle <= 1.0 + 1e-12);
      const Counters& c = run.counters;
      CHECK(c.proposed == c.mutator_failed + c.diff_failed + c.parse_failed + c.noop +
                              c.static_reject + c.probe_reject + c.race_reject + c.timing_failed +
                              c.over_budget + c.full);
      CHECK(c.kernel_runs < r.exhaustive_train);
    }
  }
  REQUIRE(r.report.files.size() == 3);
  for (const auto& file : r.report.files) { // (INFO cannot capture a structured binding)
    INFO(file.first);
    CHECK(svg_problems(file.second).empty());
  }
}

std::string read(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

int run_binary(const std::string& args, std::string& out) {
  const auto r = tv::test::run_shell(std::string(TILEVOLVE_BINARY) + " " + args + " 2>&1");
  out += r.out;
  return r.status;
}

} // namespace

TEST_CASE("ablation: names parse and print") {
  for (auto k : {AblationKind::operators, AblationKind::cascade, AblationKind::database,
                 AblationKind::features})
    CHECK(parse_ablation(ablation_name(k)) == k);
  CHECK(!parse_ablation("islands").has_value());
  CHECK(!parse_ablation("").has_value());
}

TEST_CASE("ablation: operators - the one-field arm only tweaks and moves thresholds") {
  const AblationResult r = small(AblationKind::operators);
  check_common(r);
  CHECK(!r.arms[0].mutator.one_field_only);
  CHECK(r.arms[1].mutator.one_field_only);
  for (const auto& run : r.arms[1].study.runs)
    for (const auto& entry : run.per_operator) {
      const std::string& op = entry.first;
      INFO(op);
      // (the seed and the steps after the search are not operators of the mutator)
      CHECK((tv::is_run_step(op) || op == "tweak" || op == "threshold"));
    }
  bool other_ops = false;
  for (const auto& [op, c] : r.arms[0].study.runs[0].per_operator)
    other_ops |= op != "seed" && op != "tweak" && op != "threshold";
  CHECK(other_ops);
}

TEST_CASE("ablation: cascade - without it nothing stops at the probes") {
  const AblationResult r = small(AblationKind::cascade);
  check_common(r);
  CHECK(r.arms[0].options.cascade.enabled);
  CHECK(!r.arms[1].options.cascade.enabled);
  long long probe_rejects_on = 0;
  for (const auto& run : r.arms[0].study.runs)
    probe_rejects_on += run.counters.probe_reject;
  CHECK(probe_rejects_on > 0);
  for (const auto& run : r.arms[1].study.runs)
    CHECK(run.counters.probe_reject == 0);
  CHECK(r.report.text().find("cascade off") != std::string::npos);
}

TEST_CASE("ablation: database - one island against the default") {
  const AblationResult r = small(AblationKind::database);
  check_common(r);
  CHECK(r.arms[0].options.database.islands > 1);
  CHECK(r.arms[1].options.database.islands == 1);
}

TEST_CASE("ablation: features - only the second arm's programs bound N or K") {
  const AblationResult r = small(AblationKind::features);
  check_common(r);
  auto bounds_nk = [](const Program& p) {
    for (const Rule& rule : p.rules)
      for (const Comparison& c : rule.condition.terms)
        if (c.feature == Feature::N || c.feature == Feature::K) return true;
    return false;
  };
  for (const auto& run : r.arms[0].study.runs)
    CHECK(!bounds_nk(run.best.program)); // only M and what derives from M*N (output, tiles)
  CHECK(r.arms[1].mutator.split_features.size() == 3);
}

TEST_CASE("ablation: the result does not depend on the thread count, and bad options throw") {
  const AblationResult one = small(AblationKind::cascade, 1);
  const AblationResult two = small(AblationKind::cascade, 2);
  CHECK(one.report.markdown() == two.report.markdown());
  CHECK(one.report.files == two.report.files);
  AblationOptions o;
  o.seeds = 0;
  CHECK_THROWS_AS(run_ablation(AblationKind::cascade, o), InputError);
  o.seeds = 1;
  o.budget = 10;
  o.split = "model:nosuch";
  CHECK_THROWS_AS(run_ablation(AblationKind::cascade, o), InputError);
}

TEST_CASE("ablation: the binary writes the report and plots, and an unknown ablation exits 2") {
  namespace fs = std::filesystem;
  const tv::test::ScratchDir scratch("tilevolve_ablation_test");
  const fs::path out = scratch.at("out");
  std::string text;
  REQUIRE(run_binary("ablate operators --gpu mi300x --budget 60 --seeds 2 --out " + out.string(),
                     text) == 0);
  CHECK(text.find("Ablation: operators") != std::string::npos);
  CHECK(text.find("one-field edits only") != std::string::npos);
  const std::string md = read(out / "report.md");
  CHECK(md.find("## Ablation: operators") != std::string::npos);
  for (const char* f :
       {"best_score_vs_programs.svg", "speedup_per_test_shape.svg", "kernel_runs.svg"}) {
    INFO(f);
    CHECK(svg_problems(read(out / f)).empty());
  }
  std::string err;
  CHECK(run_binary("ablate nosuch --budget 10 --seeds 1", err) == 2);
  CHECK(err.find("unknown ablation 'nosuch'") != std::string::npos);
}

} // namespace ablation_test
