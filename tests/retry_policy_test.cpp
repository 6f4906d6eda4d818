#include "evolve/mutators/retry_policy.hpp"

#include <doctest/doctest.h>

// In a namespace of its own: the test files are compiled several to a unit (unity build).
namespace retry_policy_test {

using namespace tv;

TEST_CASE("retry_policy: exponential backoff with seeded jitter, Retry-After as a floor") {
  RetryPolicy p;
  p.backoff_s = 1;
  p.max_wait_s = 10;
  for (int retry = 1; retry <= 3; ++retry) {
    const double base = double(1 << (retry - 1));
    const double w = p.wait(retry, -1, 42);
    CHECK(w >= 0.5 * base);
    CHECK(w < base);
    CHECK(w == p.wait(retry, -1, 42)); // same seed, same wait
  }
  CHECK(p.wait(1, -1, 1) != p.wait(1, -1, 2));
  CHECK(p.wait(1, 3.5, 1) == 3.5);
  CHECK(p.wait(1, 99, 1) == 10); // capped
  CHECK(p.wait(9, -1, 1) == 10);
}

TEST_CASE("retry_policy: Retry-After headers") {
  CHECK(parse_retry_after("2") == 2);
  CHECK(parse_retry_after(" 0.25 ") == 0.25);
  CHECK(parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT") == -1);
  CHECK(parse_retry_after("-1") == -1);
  CHECK(parse_retry_after("") == -1);
  CHECK(parse_retry_after("3s") == -1);
}

} // namespace retry_policy_test
