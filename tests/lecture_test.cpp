// The lecture: structure, invariants of its figures, citations of observation sentences,
// thread-count independence, and the binary end to end.
#include "experiments/lecture.hpp"
#include "experiments/svg.hpp"
#include "ir/error.hpp"
#include "support/shell.hpp"
#include "support/temp_dir.hpp"

#include <array>
#include <cctype>
#include <cstdio>
#include <doctest/doctest.h>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <sys/wait.h>

// In a namespace of its own: the test files are compiled several to a unit (unity build).
namespace lecture_test {

using namespace tv;

namespace {

/// The lecture with a small budget, computed once per process.
const LectureResult& small_lecture() {
  static const LectureResult r = [] {
    LectureOptions o;
    o.budget = 150;
    o.seeds = 2;
    return run_lecture(o);
  }();
  return r;
}

long long stage_sum(const Counters& c) {
  return c.mutator_failed + c.diff_failed + c.parse_failed + c.noop + c.static_reject +
         c.probe_reject + c.race_reject + c.timing_failed + c.over_budget + c.full;
}

void check_counters(const EvolutionResult& run) {
  const Counters& c = run.counters;
  CHECK(c.proposed == run.programs);
  CHECK(c.proposed == stage_sum(c));
  Counters ops;
  for (const auto& [op, oc] : run.per_operator)
    ops.add(oc);
  for (const PassReport& pass : run.passes) // the passes after the search time pairs too
    ops.kernel_runs += pass.kernel_runs;
  CHECK(ops.proposed == c.proposed);
  CHECK(ops.kernel_runs == c.kernel_runs);
  CHECK(c.kernel_runs > 0);
  CHECK(c.kernel_runs < run.exhaustive_train_runs);
  CHECK(c.improved <= c.full);
  CHECK(c.new_best <= c.improved);
}

void check_fraction(const SetScore& s) {
  CHECK(s.valid);
  CHECK(s.fraction_of_oracle > 0);
  CHECK(s.fraction_of_oracle <= 1.0 + 1e-12);
}

bool has_digit(const std::string& s) {
  return std::any_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c); });
}

std::string read(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

using Run = tv::test::ShellResult;

/// Runs a shell command line, stdout and stderr captured together.
Run run_shell(const std::string& line) {
  return tv::test::run_shell("(" + line + ") 2>&1");
}

Run run_binary(const std::string& args) {
  return run_shell(std::string(TILEVOLVE_BINARY) + " " + args);
}

} // namespace

TEST_CASE("lecture: four demos, in order, in the text and the Markdown") {
  const LectureResult& r = small_lecture();
  const Report& rep = r.report;
  REQUIRE(rep.sections.size() == 4);
  const std::string text = rep.text(), md = rep.markdown();
  for (int i = 0; i < 4; ++i) {
    const std::string prefix = "Demo " + std::to_string(i + 1) + ":";
    INFO(prefix);
    CHECK(rep.sections[std::size_t(i)].title.rfind(prefix, 0) == 0);
    CHECK(text.find(rep.sections[std::size_t(i)].title) != std::string::npos);
    CHECK(md.find("## " + rep.sections[std::size_t(i)].title) != std::string::npos);
  }
  CHECK(text.find("Demo 1:") < text.find("Demo 2:"));
  CHECK(text.find("Demo 3:") < text.find("Demo 4:"));
  CHECK(text.find("def choose(M, N, K):") != std::string::npos); // the expert and the best
  CHECK(text.find("<<<<<<< SEARCH") != std::string::npos);       // the diff behind the best
  // Plots: referenced from the Markdown only, and each one a valid picture.
  REQUIRE(rep.files.size() == 3);
  for (const auto& file : rep.files) { // (INFO cannot capture a structured binding)
    const std::string& name = file.first;
    const std::string& svg = file.second;
    INFO(name);
    CHECK(md.find("](" + name + ")") != std::string::npos);
    CHECK(text.find(name) == std::string::npos);
    CHECK(svg_problems(svg).empty());
  }
}

TEST_CASE("lecture: every figure quoted in an observation is a cell of its section's tables") {
  const Report& rep = small_lecture().report;
  CHECK(check_citations(rep).empty());
  for (const auto& s : rep.sections) {
    int citations = 0, sentences = 0;
    for (const auto& b : s.blocks)
      for (const auto& o : b.observations) {
        ++sentences;
        for (const auto& seg : o.segments) {
          if (seg.cell) {
            ++citations;
            CHECK(s.cell(*seg.cell) == seg.text);
            CHECK(o.text().find(seg.text) != std::string::npos);
          } else {
            INFO(s.title << ": prose with a number: " << seg.text);
            CHECK(!has_digit(seg.text)); // numbers in sentences come only from tables
          }
        }
      }
    INFO(s.title);
    CHECK(sentences >= 2);
    CHECK(citations >= 4);
  }
}

TEST_CASE("lecture: fractions of the oracle are at most 1 and the oracle is 100%") {
  const LectureResult& r = small_lecture();
  for (const auto& m : r.baselines) {
    check_fraction(m.train);
    check_fraction(m.test);
  }
  for (const auto& s : r.splits) {
    INFO(s.spec);
    CHECK(s.train_shapes + s.test_shapes == r.shapes);
    for (const auto& m : s.baselines) {
      check_fraction(m.train);
      check_fraction(m.test);
      if (m.key == "oracle") {
        CHECK(m.train.fraction_of_oracle == doctest::Approx(1.0));
        CHECK(m.test.fraction_of_oracle == doctest::Approx(1.0));
      }
      if (m.key == "expert") CHECK(m.train.speedup_vs_expert == doctest::Approx(1.0));
    }
    REQUIRE(s.evolved.runs.size() == 2);
    for (const auto& run : s.evolved.runs) {
      check_fraction(run.best_train);
      check_fraction(run.best_test);
      check_counters(run);
    }
    CHECK(s.evolved.test_fraction.min <= s.evolved.test_fraction.median);
    CHECK(s.evolved.test_fraction.median <= s.evolved.test_fraction.max);
    CHECK(s.evolved.test_fraction.max <= 1.0 + 1e-12);
  }
  // In the printed tables too: no "of oracle" cell above 100%, and the oracle rows say 100.0%.
  for (const auto& sec : r.report.sections)
    for (const auto& t : sec.tables)
      for (std::size_t c = 0; c < t.header.size(); ++c) {
        if (t.header[c].find("of oracle") == std::string::npos) continue;
        for (const auto& row : t.rows) {
          if (c >= row.size() || row[c].empty() || row[c].back() != '%') continue;
          INFO(sec.title << ": " << row[0] << " " << row[c]);
          CHECK(std::stod(row[c]) <= 100.0);
          if (row[0].find("oracle") != std::string::npos ||
              (row.size() > 1 && row[1].find("oracle") != std::string::npos))
            CHECK(row[c] == "100.0%");
        }
      }
}

TEST_CASE("lecture: demo 2 is seed 0 of the random split and its figures hang together") {
  const LectureResult& r = small_lecture();
  const EvolutionResult& run = r.run;
  const EvolutionResult& seed0 = r.splits.at(0).evolved.runs.at(0);
  CHECK(run.best.id == seed0.best.id);
  CHECK(run.best.score == seed0.best.score);
  CHECK(run.counters.kernel_runs == seed0.counters.kernel_runs);
  CHECK(run.programs == 150);
  check_counters(run);
  REQUIRE(!run.improvements.empty());
  CHECK(run.improvements.front().op == "seed");
  for (std::size_t i = 1; i < run.improvements.size(); ++i) {
    CHECK(run.improvements[i].program > run.improvements[i - 1].program);
    CHECK(run.improvements[i].score > run.improvements[i - 1].score);
  }
  CHECK(run.improvements.back().score == run.best.score);
  CHECK(r.simplified_equivalent);
  CHECK(run.best_simplified.rules.size() <= run.best.program.rules.size());
  CHECK(r.simplified_train.fraction_of_oracle ==
        doctest::Approx(run.best_train.fraction_of_oracle));
  CHECK(r.simplified_test.fraction_of_oracle == doctest::Approx(run.best_test.fraction_of_oracle));
}

TEST_CASE("lecture: demo 4's cost table adds up and matches the run's counters") {
  const LectureResult& r = small_lecture();
  const Section& d4 = r.report.sections.at(3);
  const ReportTable& t = d4.tables.at(0);
  auto count = [&](std::size_t row) {
    std::string s = t.rows.at(row).at(1);
    std::erase(s, ',');
    return std::stoll(s);
  };
  const Counters& c = r.cost.counters;
  CHECK(count(0) == c.proposed);
  CHECK(count(1) + count(2) + count(3) + count(4) == count(0)); // stages add up to proposed
  CHECK(count(1) == c.static_reject);
  CHECK(count(2) == c.probe_reject);
  CHECK(count(3) == c.full);
  CHECK(count(5) == c.kernel_runs);
  CHECK(count(5) < count(7)); // evolution < exhaustive on the training shapes
  CHECK(count(7) == r.cost.exhaustive_train);
  CHECK(count(8) == r.cost.exhaustive_all);
  CHECK(count(7) == (long long)r.configs * (long long)r.splits[0].train_shapes);
  CHECK(count(9) == 0);
  CHECK(count(10) == (long long)r.configs);
}

TEST_CASE("lecture: demo 1 shows the eight layers and the chosen oracle shapes") {
  const LectureResult& r = small_lecture();
  CHECK(r.shapes == 88);
  const ReportTable& layers = r.report.sections.at(0).tables.at(0);
  CHECK(layers.rows.size() == 8);
  CHECK(r.oracle_rows.size() == 7);
  for (const auto& o : r.oracle_rows) {
    INFO(o.shape.label());
    CHECK(o.oracle_seconds > 0);
    CHECK(o.expert_seconds >= o.oracle_seconds);
    CHECK(o.near_ties >= 1); // the oracle itself
  }
}

TEST_CASE("lecture: the result does not depend on the thread count") {
  LectureOptions o;
  o.budget = 80;
  o.seeds = 2;
  o.threads = 1;
  const LectureResult one = run_lecture(o);
  o.threads = 2;
  const LectureResult two = run_lecture(o);
  CHECK(one.report.text() == two.report.text());
  CHECK(one.report.markdown() == two.report.markdown());
  CHECK(one.report.files == two.report.files);
}

TEST_CASE("lecture: bad options are input errors") {
  LectureOptions o;
  o.budget = 10;
  o.seeds = 0;
  CHECK_THROWS_AS(run_lecture(o), InputError);
  o.seeds = 1;
  o.budget = -1;
  CHECK_THROWS_AS(run_lecture(o), InputError);
  o.budget = 10;
  o.gpu = "nosuch";
  CHECK_THROWS_AS(run_lecture(o), InputError);
}

TEST_CASE("lecture: works on an AMD profile") {
  LectureOptions o;
  o.gpu = "mi300x";
  o.budget = 60;
  o.seeds = 1;
  const LectureResult r = run_lecture(o);
  CHECK(r.gpu_name == "mi300x");
  CHECK(check_citations(r.report).empty());
  CHECK(r.report.text().find("AMD Instinct MI300X") != std::string::npos);
  for (const auto& s : r.splits)
    for (const auto& run : s.evolved.runs) {
      check_fraction(run.best_test);
      check_counters(run);
    }
}

TEST_CASE("lecture: the binary prints the demos and writes report.md and well-formed plots") {
  namespace fs = std::filesystem;
  const tv::test::ScratchDir scratch("tilevolve_lecture_test");
  const fs::path base = scratch.path;
  fs::create_directories(base / "cwd");
  const fs::path out = base / "out";
  const Run r = run_binary("lecture --budget 100 --seeds 2 --out " + out.string());
  REQUIRE(r.status == 0);
  for (const char* h : {"Demo 1:", "Demo 2:", "Demo 3:", "Demo 4:", "Observations:"})
    CHECK(r.out.find(h) != std::string::npos);
  const std::string md = read(out / "report.md");
  CHECK(md.rfind("# tilevolve lecture", 0) == 0);
  CHECK(md.find("## Demo 4:") != std::string::npos);
  CHECK(md.find("| --- |") != std::string::npos);
  int svgs = 0;
  for (const auto& e : fs::directory_iterator(out)) {
    if (e.path().extension() != ".svg") continue;
    ++svgs;
    const std::string svg = read(e.path());
    INFO(e.path().string());
    CHECK(svg.rfind("<svg", 0) == 0);
    CHECK(svg_problems(svg).empty());
    CHECK(svg.find("NaN") == std::string::npos);
    CHECK(svg.find("nan") == std::string::npos);
    CHECK(md.find("](" + e.path().filename().string() + ")") != std::string::npos);
  }
  CHECK(svgs == 3);

  // Without --out nothing is written (not even into the working directory).
  const Run quiet = run_shell("cd " + (base / "cwd").string() + " && " + TILEVOLVE_BINARY +
                              " lecture --budget 20 --seeds 1 --gpu mi300x");
  CHECK(quiet.status == 0);
  CHECK(fs::is_empty(base / "cwd"));
  CHECK(quiet.out.find("Report written") == std::string::npos);

  const Run bad = run_binary("lecture --seeds 0");
  CHECK(bad.status == 2);
  CHECK(bad.out.find("tilevolve: error: --seeds: expected an integer from 1 to 10000, got '0'") !=
        std::string::npos);
}

} // namespace lecture_test
