// The benchmarks' verdict: a missed target prints MISSED and makes the exit status 1.
#include "bench/bench_target.hpp"

#include <cmath>
#include <doctest/doctest.h>

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

} // namespace bench_target_test
