#include "evolve/mutators/llm_stats.hpp"
#include "ir/number_text.hpp"

#include "eval/text_table.hpp"
#include "evolve/mutators/token_count.hpp"
#include "ir/error.hpp"

#include <fmt/format.h>

namespace tv {

namespace {

nlohmann::json model_json(const ModelStats& m) {
  return {{"requests", m.requests},
          {"ok", m.ok},
          {"failed", m.failed},
          {"attempts", m.attempts},
          {"no_usage", m.no_usage},
          {"failures", m.failures},
          {"final_failures", m.final_failures},
          {"prompt_tokens", m.prompt_tokens},
          {"completion_tokens", m.completion_tokens},
          {"tokens", add_tokens(m.prompt_tokens, m.completion_tokens)},
          {"latency_s", m.latency_s},
          {"mean_latency_s", m.attempts ? m.latency_s / double(m.attempts) : 0.0},
          {"wait_s", m.wait_s}};
}

ModelStats model_from_json(const nlohmann::json& j) {
  try {
    ModelStats m;
    m.requests = j.at("requests").get<long long>();
    m.ok = j.at("ok").get<long long>();
    m.failed = j.at("failed").get<long long>();
    m.attempts = j.at("attempts").get<long long>();
    m.no_usage = j.at("no_usage").get<long long>();
    m.failures = j.at("failures").get<std::map<std::string, long long>>();
    m.final_failures = j.at("final_failures").get<std::map<std::string, long long>>();
    m.prompt_tokens = j.at("prompt_tokens").get<long long>();
    m.completion_tokens = j.at("completion_tokens").get<long long>();
    m.latency_s = j.at("latency_s").get<double>();
    m.wait_s = j.at("wait_s").get<double>();
    return m;
  } catch (const nlohmann::json::exception& e) {
    throw InputError(fmt::format("LLM statistics: {}", e.what()));
  }
}

std::string kinds_text(const std::map<std::string, long long>& m) {
  std::string out;
  for (const auto& [k, v] : m)
    out += (out.empty() ? "" : ", ") + fmt::format("{} {}", k, v);
  return out.empty() ? "none" : out;
}

void add_into(ModelStats& t, const ModelStats& m) {
  t.requests += m.requests;
  t.ok += m.ok;
  t.failed += m.failed;
  t.attempts += m.attempts;
  t.no_usage += m.no_usage;
  for (const auto& [k, v] : m.failures)
    t.failures[k] += v;
  for (const auto& [k, v] : m.final_failures)
    t.final_failures[k] += v;
  t.prompt_tokens = add_tokens(t.prompt_tokens, m.prompt_tokens);
  t.completion_tokens = add_tokens(t.completion_tokens, m.completion_tokens);
  t.latency_s += m.latency_s;
  t.wait_s += m.wait_s;
}

} // namespace

void LlmStats::add(const std::string& model, const ChatOutcome& outcome) {
  ModelStats& m = models_[model];
  ++m.requests;
  for (const ChatAttempt& a : outcome.attempts) {
    ++m.attempts;
    if (!a.ok()) ++m.failures[std::string(failure_kind_name(a.failure))];
    m.prompt_tokens = add_tokens(m.prompt_tokens, a.prompt_tokens);
    m.completion_tokens = add_tokens(m.completion_tokens, a.completion_tokens);
    m.latency_s += a.latency_s;
    m.wait_s += a.wait_s;
  }
  if (outcome.ok()) {
    ++m.ok;
    if (!outcome.last().has_usage) ++m.no_usage;
  } else {
    ++m.failed;
    if (!outcome.attempts.empty())
      ++m.final_failures[std::string(failure_kind_name(outcome.last().failure))];
  }
}

ModelStats LlmStats::total() const {
  ModelStats t;
  for (const auto& [name, m] : models_)
    add_into(t, m);
  return t;
}

long long LlmStats::tokens() const {
  const ModelStats t = total();
  return add_tokens(t.prompt_tokens, t.completion_tokens);
}

nlohmann::json LlmStats::to_json() const {
  nlohmann::json j{{"total", model_json(total())}, {"models", nlohmann::json::object()}};
  for (const auto& [name, m] : models_)
    j["models"][name] = model_json(m);
  return j;
}

LlmStats LlmStats::from_json(const nlohmann::json& j) {
  LlmStats s;
  if (!j.is_object() || !j.contains("models") || !j["models"].is_object())
    throw InputError("LLM statistics: field 'models' missing");
  for (const auto& [name, m] : j["models"].items())
    s.models_[name] = model_from_json(m);
  return s;
}

} // namespace tv

namespace tv {

std::string llm_stats_text(const nlohmann::json& stats) {
  const LlmStats s = LlmStats::from_json(stats);
  TextTable t({"LLM model", "requests", "failed", "attempts", "prompt tokens", "completion tokens",
               "mean latency"});
  auto row = [&t](const std::string& name, const ModelStats& m) {
    t.add({name, thousands(m.requests), thousands(m.failed), thousands(m.attempts),
           thousands(m.prompt_tokens), thousands(m.completion_tokens),
           fmt::format("{:.2f} s", m.attempts ? m.latency_s / double(m.attempts) : 0.0)});
  };
  for (const auto& [name, m] : s.by_model())
    row(name, m);
  const ModelStats total = s.total();
  if (s.by_model().size() > 1) row("all models", total);
  std::string out = t.str();
  out += fmt::format("Failed attempts by kind: {}; requests that failed for good: {}.\n",
                     kinds_text(total.failures), kinds_text(total.final_failures));
  out +=
      fmt::format("Tokens: {} ({} prompt + {} completion){}; time spent waiting for answers, "
                  "summed over attempts: {:.1f} s; backoff waits: {:.1f} s.\n",
                  thousands(add_tokens(total.prompt_tokens, total.completion_tokens)),
                  thousands(total.prompt_tokens), thousands(total.completion_tokens),
                  total.no_usage ? fmt::format(", {} replies without usage", total.no_usage) : "",
                  total.latency_s, total.wait_s);
  return out;
}

} // namespace tv
