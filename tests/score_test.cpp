// Weighted and plain scores, and the end-to-end uplift, on a table small enough to work out
// by hand.
#include "eval/report_format.hpp"
#include "eval/score.hpp"

#include "support/fixtures.hpp"

#include <doctest/doctest.h>

#include <cmath>

// In a namespace of its own: the test files are compiled several to a unit (unity build).
namespace score_test {

using namespace tv;

namespace {

/// Two shapes x two configs: config 0 takes 2 s on shape a and 1 s on b, config 1 the reverse.
TimeTable two_by_two(double weight_a, double weight_b) {
  Shape a = test::shape(16, 4096, 4096), b = test::shape(4096, 4096, 4096);
  a.name.assign(1, 'a'); // (assign: GCC 12 raises a false -Wrestrict for `= "a"` here)
  b.name.assign(1, 'b');
  a.weight = weight_a;
  b.weight = weight_b;
  TimeMatrix t = {{2.0, 1.0}, {1.0, 2.0}};
  return TimeTable({a, b}, {test::cfg(128, 128, 64, 4, 3, 8), test::cfg(64, 64, 32, 4, 3, 8)},
                   std::move(t), false);
}

} // namespace

TEST_CASE("score: weighted geomeans, plain geomeans and the uplift of total weighted time") {
  const TimeTable t = two_by_two(3, 1);
  const Scorer s(t, {0, 1}, test::constant_program(t.configs()[0]));
  CHECK(s.weighted());
  const SetScore p = s.score(test::constant_program(t.configs()[1]));
  REQUIRE(p.valid);
  CHECK(p.weighted);
  // Speedups 2 (a) and 0.5 (b); weights 3/4 and 1/4.
  CHECK(p.speedup_vs_expert == doctest::Approx(std::sqrt(2.0)));
  CHECK(p.plain_speedup_vs_expert == doctest::Approx(1.0));
  // Total weighted time: expert 3 x 2 + 1 x 1 = 7, program 3 x 1 + 1 x 2 = 5.
  CHECK(p.uplift == doctest::Approx(7.0 / 5.0));
  // Oracle 1 s on both: fractions 1 (a) and 0.5 (b).
  CHECK(p.fraction_of_oracle == doctest::Approx(std::pow(0.5, 0.25)));
  CHECK(p.plain_fraction_of_oracle == doctest::Approx(std::sqrt(0.5)));
  const SetScore o = s.oracle();
  CHECK(o.uplift == doctest::Approx(7.0 / 4.0));
  CHECK(s.score(test::constant_program(t.configs()[0])).uplift == doctest::Approx(1.0));

  const auto j = score_json(p);
  CHECK(j["weighted"] == true);
  CHECK(j["uplift"].get<double>() == doctest::Approx(1.4));
  CHECK(j["plain_speedup_vs_expert"].get<double>() == doctest::Approx(1.0));
  SetScore bad;
  bad.problem = "x has no time";
  CHECK(score_json(bad)["uplift"].is_null());
  CHECK(fmt_uplift(p) == "1.400x");
  CHECK(fmt_uplift(bad) == "n/a");
}

TEST_CASE("score: with equal weights the plain figures are the weighted ones") {
  const TimeTable t = two_by_two(2, 2);
  const Scorer s(t, {0, 1}, test::constant_program(t.configs()[0]));
  CHECK_FALSE(s.weighted());
  const SetScore p = s.score(test::constant_program(t.configs()[1]));
  CHECK_FALSE(p.weighted);
  CHECK(p.speedup_vs_expert == doctest::Approx(p.plain_speedup_vs_expert));
  CHECK(p.fraction_of_oracle == doctest::Approx(p.plain_fraction_of_oracle));
  CHECK(p.uplift == doctest::Approx(1.0)); // 2 + 1 against 1 + 2
}

TEST_CASE("score: the methods table shows uplift and plain figures only when weights differ") {
  const TimeTable t = two_by_two(3, 1);
  const Scorer s(t, {0, 1}, test::constant_program(t.configs()[0]));
  MethodResult m;
  m.label = "program";
  m.train = m.test = s.score(test::constant_program(t.configs()[1]));
  const std::string w = methods_table({m});
  CHECK(w.find("train uplift") != std::string::npos);
  CHECK(w.find("1.400x") != std::string::npos);
  CHECK(w.find("Plain (every shape counted once):") != std::string::npos);
  CHECK(w.find("1.000x") != std::string::npos); // the plain speedup

  const TimeTable e = two_by_two(1, 1);
  const Scorer se(e, {0, 1}, test::constant_program(e.configs()[0]));
  m.train = m.test = se.score(test::constant_program(e.configs()[1]));
  const std::string u = methods_table({m});
  CHECK(u.find("uplift") == std::string::npos);
  CHECK(u.find("Plain") == std::string::npos);
}

TEST_CASE("score: the methods table prints kernel runs with thousands separators, as the cost "
          "table does") {
  const TimeTable t = two_by_two(1, 1);
  const Scorer s(t, {0, 1}, test::constant_program(t.configs()[0]));
  MethodResult m;
  m.label = "per-M table (7 rules)";
  m.train = m.test = s.score(test::constant_program(t.configs()[1]));
  m.kernel_runs = 113168;
  MethodResult none = m;
  none.label = "expert";
  none.kernel_runs = 0;
  const std::string table = methods_table({none, m});
  INFO(table);
  CHECK(table.find("113,168") != std::string::npos);
  CHECK(table.find("113168") == std::string::npos);
  // weighted figures: the same column
  const TimeTable w = two_by_two(3, 1);
  const Scorer sw(w, {0, 1}, test::constant_program(w.configs()[0]));
  m.train = m.test = sw.score(test::constant_program(w.configs()[1]));
  m.kernel_runs = 2262336;
  CHECK(methods_table({m}).find("2,262,336") != std::string::npos);
}

} // namespace score_test
