// The benchmarks' verdict: a missed target prints MISSED and makes the exit status 1.
#include "bench/bench_target.hpp"

#include <cmath>
#include <doctest/doctest.h>
#include <stdexcept>
#include <string>

// In a namespace of its own: the test files are compiled several to a unit (unity build).
namespace bench_target_test {

using tv::bench::Target;

TEST_CASE("bench_target: a figure on the wrong side of its bound is MISSED, and the exit is 1") {
  const Target rss{"peak RSS", 1897, 1024, true, "MB"};
  CHECK_FALSE(tv::bench::met(rss));
  CHECK(tv::bench::verdict_line(rss) == "target: peak RSS < 1024 MB: MISSED (1897 MB)");
  const Target fast{"median time", 0.71, 2, true, "s"};
  CHECK(tv::bench::met(fast));
  CHECK(tv::bench::verdict_line(fast) == "target: median time < 2 s: met (0.71 s)");
  const Target rate{"shape evaluations", 58.2, 1, false, "M/s"};
  CHECK(tv::bench::met(rate));
  CHECK(tv::bench::verdict_line(rate) == "target: shape evaluations >= 1 M/s: met (58.2 M/s)");
  CHECK_FALSE(tv::bench::met({"busy", 89.9, 90, false, "%"}));
  CHECK_FALSE(tv::bench::met({"edge", 2, 2, true, "s"})); // "< 2 s" is not met by 2 s
  CHECK_FALSE(tv::bench::met({"nan", std::nan(""), 2, true, "s"}));
  CHECK(tv::bench::exit_status({fast, rate}) == 0);
  CHECK(tv::bench::exit_status({fast, rss, rate}) == 1);
  CHECK(tv::bench::exit_status({}) == 0);
}

TEST_CASE("bench_target: arguments parse strictly, --help prints the usage, and an error is exit "
          "status 2") {
  CHECK(tv::bench::integer("12") == 12);
  CHECK(tv::bench::integer("-3") == -3);
  CHECK_THROWS_AS(tv::bench::integer("12x"), std::invalid_argument);
  CHECK_THROWS_AS(tv::bench::integer(""), std::invalid_argument);
  CHECK_THROWS_AS(tv::bench::integer("3.5"), std::invalid_argument);
  CHECK_THROWS_AS(tv::bench::integer("99999999999999999999"), std::out_of_range);
  CHECK(tv::bench::number("0.05") == 0.05);
  CHECK_THROWS_AS(tv::bench::number("0.05s"), std::invalid_argument);
  CHECK_THROWS_AS(tv::bench::number("1e400"), std::out_of_range);
  std::string arg0 = "bench", help = "--help", bad = "x";
  char* with_help[] = {arg0.data(), bad.data(), help.data()};
  int calls = 0;
  const auto body = [&](int argc, char** argv) {
    ++calls;
    return argc > 1 ? int(tv::bench::integer(argv[1])) : 0;
  };
  CHECK(tv::bench::run(3, with_help, "Usage: bench [n]", body) == 0);
  CHECK(calls == 0); // --help anywhere: the body does not run
  char* with_bad[] = {arg0.data(), bad.data()};
  CHECK(tv::bench::run(2, with_bad, "Usage: bench [n]", body) == 2);
  CHECK(calls == 1);
  std::string seven = "7";
  char* with_seven[] = {arg0.data(), seven.data()};
  CHECK(tv::bench::run(2, with_seven, "Usage: bench [n]", body) == 7);
}

} // namespace bench_target_test
