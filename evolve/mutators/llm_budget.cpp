#include "evolve/mutators/llm_budget.hpp"
#include "ir/number_text.hpp"

#include "evolve/mutators/token_count.hpp"
#include "ir/error.hpp"

#include <fmt/format.h>

namespace tv {

void LlmBudget::charge(bool ok, long long tokens, const std::string& error) {
  ++requests_;
  tokens_ = add_tokens(tokens_, tokens);
  if (ok) {
    failures_in_a_row_ = 0;
  } else {
    ++failures_in_a_row_;
    last_error_ = error;
  }
}

std::string LlmBudget::exhausted() const {
  if (limits_.max_requests > 0 && requests_ >= limits_.max_requests)
    return fmt::format("request budget spent: {} of {} requests", thousands(requests_),
                       thousands(limits_.max_requests));
  if (limits_.max_tokens > 0 && tokens_ >= limits_.max_tokens)
    return fmt::format("token budget spent: {} of {} tokens", thousands(tokens_),
                       thousands(limits_.max_tokens));
  if (limits_.max_failures_in_a_row > 0 && failures_in_a_row_ >= limits_.max_failures_in_a_row)
    return fmt::format("the LLM server failed {} requests in a row (last: {})", failures_in_a_row_,
                       last_error_);
  return "";
}

bool LlmBudget::gave_out() const {
  return limits_.max_failures_in_a_row > 0 && failures_in_a_row_ >= limits_.max_failures_in_a_row;
}

long long LlmBudget::remaining_requests() const {
  if (limits_.max_requests <= 0) return -1;
  return std::max(0LL, limits_.max_requests - requests_);
}

nlohmann::json LlmBudget::to_json() const {
  return {{"requests", requests_},
          {"tokens", tokens_},
          {"failures_in_a_row", failures_in_a_row_},
          {"last_error", last_error_}};
}

void LlmBudget::restore(const nlohmann::json& j) {
  try {
    requests_ = j.at("requests").get<long long>();
    tokens_ = j.at("tokens").get<long long>();
    failures_in_a_row_ = j.at("failures_in_a_row").get<long long>();
    last_error_ = j.at("last_error").get<std::string>();
  } catch (const nlohmann::json::exception& e) {
    throw InputError(fmt::format("LLM budget state: {}", e.what()));
  }
}

} // namespace tv
