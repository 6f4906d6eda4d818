#include "evolve/mutators/llm_budget.hpp"

#include <doctest/doctest.h>

// In a namespace of its own: the test files are compiled several to a unit (unity build).
namespace llm_budget_test {

using namespace tv;

TEST_CASE("llm_budget: requests, tokens and failures in a row stop with their reason") {
  LlmBudget requests({3, 0, 0});
  CHECK(requests.remaining_requests() == 3);
  requests.charge(true, 10, "");
  requests.charge(true, 10, "");
  CHECK(requests.exhausted().empty());
  requests.charge(false, 0, "timeout");
  CHECK(requests.exhausted() == "request budget spent: 3 of 3 requests");
  CHECK(requests.remaining_requests() == 0);

  LlmBudget tokens({0, 10000, 0});
  CHECK(tokens.remaining_requests() == -1);
  tokens.charge(true, 6000, "");
  CHECK(tokens.exhausted().empty());
  tokens.charge(true, 4500, "");
  CHECK(tokens.exhausted() == "token budget spent: 10,500 of 10,000 tokens");

  LlmBudget failures({0, 0, 2});
  failures.charge(false, 0, "connection after 5 attempts: could not connect");
  failures.charge(true, 1, "");
  failures.charge(false, 0, "x");
  CHECK(failures.exhausted().empty()); // not in a row
  failures.charge(false, 0, "connection after 5 attempts: could not connect");
  CHECK(failures.exhausted() == "the LLM server failed 2 requests in a row (last: connection "
                                "after 5 attempts: could not connect)");
  LlmBudget restored({0, 0, 2});
  restored.restore(failures.to_json());
  CHECK(restored.exhausted() == failures.exhausted());
}

TEST_CASE("llm_budget: absurd token counts saturate and still stop the run") {
  const long long huge = 9223372036854775807LL; // what a hostile server reports
  LlmBudget tokens({0, 1000, 0});
  tokens.charge(true, huge, "");
  tokens.charge(true, huge, ""); // would wrap to -2 (and is undefined behaviour)
  CHECK(tokens.tokens() == huge);
  CHECK(tokens.exhausted() == "token budget spent: 9,223,372,036,854,775,807 of 1,000 tokens");
  tokens.charge(true, -5, ""); // never lowers the total
  CHECK(tokens.tokens() == huge);
}

} // namespace llm_budget_test
