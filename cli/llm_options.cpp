#include "cli/llm_options.hpp"

#include "evolve/mutators/secret_mask.hpp"
#include "ir/error.hpp"

#include <cstdlib>
#include <filesystem>
#include <fmt/format.h>

namespace tv {

void add_llm_options(CLI::App& cmd, LlmOptions& o) {
  LlmSettings& s = o.settings;
  cmd.add_option("--llm", o.llm,
                 "who proposes the edits: mock (the deterministic mock LLM), openai:URL (an "
                 "OpenAI-compatible "
                 "chat-completions server such as vLLM, Ollama or llama.cpp: URL like "
                 "http://127.0.0.1:8000/v1; https works, with TLS from Debian's cpp-httplib "
                 "build), or replay:RUN_DIR (rerun a recorded LLM run from its "
                 "llm_exchanges.ndjson, no server; all settings come from that run)")
      ->capture_default_str();
  cmd.add_option(
      "--llm-model", o.model,
      "LLM model name, or an ensemble with weights: a:0.8,b:0.2 (each request's model is "
      "drawn from the run's seed; a weight is the number after the last ':')");
  cmd.add_option("--api-key-env", o.api_key_env,
                 "environment variable holding the API key (default OPENAI_API_KEY; when it is "
                 "unset no Authorization header is sent). The key is sent in the Authorization "
                 "header only and never printed or written");
  cmd.add_option("--llm-concurrency", o.concurrency,
                 "LLM requests in flight (the results do not depend on it)")
      ->capture_default_str();
  cmd.add_option("--llm-timeout", s.http.read_timeout_s,
                 "seconds a request may take, however slowly its answer trickles in, before it "
                 "times out (and is retried)")
      ->capture_default_str();
  cmd.add_option("--llm-connect-timeout", s.http.connect_timeout_s,
                 "seconds to connect to the server")
      ->capture_default_str();
  cmd.add_option("--llm-retries", s.retry.retries,
                 "retries of a request after a timeout, a broken connection, HTTP 429 or 5xx")
      ->capture_default_str();
  cmd.add_option("--llm-backoff", s.retry.backoff_s,
                 "seconds before the first retry; doubles with each retry, with seeded jitter, "
                 "and never less than the server's Retry-After")
      ->capture_default_str();
  cmd.add_option("--llm-max-wait", s.retry.max_wait_s,
                 "longest wait between attempts in seconds, Retry-After included")
      ->capture_default_str();
  cmd.add_option("--llm-ca-cert", s.http.ca_cert_file,
                 "CA certificate file (PEM) that an https server's certificate must chain to "
                 "(default: the system's store)");
  cmd.add_option("--max-requests", s.limits.max_requests,
                 "stop the run cleanly after this many LLM requests (0 = no limit)")
      ->capture_default_str();
  cmd.add_option("--max-tokens", s.limits.max_tokens,
                 "stop the run cleanly once the LLM has used this many tokens, prompt plus "
                 "completion, as the server's usage fields report them (0 = no limit; checked "
                 "between batches, so the last batch may go over)")
      ->capture_default_str();
  cmd.add_option("--llm-max-failures", s.limits.max_failures_in_a_row,
                 "stop the run after this many LLM requests in a row failed for good (0 = never)")
      ->capture_default_str();
  cmd.add_option("--temperature", s.temperature, "sampling temperature of the LLM")
      ->capture_default_str();
  cmd.add_option("--max-reply-tokens", s.max_reply_tokens,
                 "max_tokens of each LLM request (0 = the server's default)")
      ->capture_default_str();
  cmd.add_option("--prompts", s.prompts_dir,
                 "folder with the prompt templates system.txt, diff_request.txt and "
                 "full_rewrite.txt (default: tilevolve's prompts/)");
  cmd.add_option("--prompt-mode", s.prompt_mode,
                 "auto (ask for SEARCH/REPLACE edits; for the whole program after two edits of "
                 "the same parent did not apply), diff or full")
      ->capture_default_str();
}

bool is_runtime_llm_flag(const std::string& name) {
  return name == "--llm-concurrency";
}

bool wants_llm_server(const LlmOptions& o, std::string& replay_dir) {
  replay_dir.clear();
  if (o.llm == "mock") return false;
  if (o.llm.rfind("openai:", 0) == 0) return true;
  if (o.llm.rfind("replay:", 0) == 0) {
    replay_dir = o.llm.substr(7);
    if (replay_dir.empty()) throw InputError("--llm replay: needs a run directory: replay:DIR");
    return false;
  }
  throw InputError(fmt::format("--llm '{}': expected mock, openai:URL or replay:RUN_DIR",
                               url_without_userinfo(o.llm)));
}

LlmSettings llm_settings_from_flags(const LlmOptions& o) {
  LlmSettings s = o.settings;
  s.url = o.llm.substr(7);
  if (o.model.empty())
    throw InputError(
        "--llm openai:URL needs --llm-model NAME (the server's model; a:0.8,b:0.2 for an "
        "ensemble)");
  s.models = ModelEnsemble::parse(o.model);
  s.api_key_env = o.api_key_env.empty() ? "OPENAI_API_KEY" : o.api_key_env;
  // Paths are recorded absolute, so that --resume and replay find them from anywhere.
  if (!s.prompts_dir.empty()) s.prompts_dir = std::filesystem::absolute(s.prompts_dir).string();
  if (!s.http.ca_cert_file.empty())
    s.http.ca_cert_file = std::filesystem::absolute(s.http.ca_cert_file).string();
  Endpoint::parse(s.url); // the URL is checked before the problem is loaded
  return s;
}

std::string api_key_from_env(const std::string& name, bool required) {
  const char* v = std::getenv(name.c_str());
  if (v && *v) return v;
  if (required)
    throw InputError(
        fmt::format("--api-key-env {}: the environment variable {} is not set", name, name));
  return "";
}

std::unique_ptr<LlmMutator> make_llm_mutator(const Problem& problem, const LlmSettings& settings,
                                             LlmRuntime runtime, const std::string& recorded_dir,
                                             const nlohmann::json* recorded) {
  auto m = std::make_unique<LlmMutator>(settings, prompt_target_for(problem), std::move(runtime));
  if (recorded) {
    const std::string was = recorded->value("prompts_digest", "");
    const std::string now = m->settings().value("prompts_digest", "");
    if (was != now)
      throw InputError(fmt::format(
          "{}: the run was made with other prompt templates than those in {} now (digest {} "
          "then, {} now); restore that run's prompt files to continue or replay it",
          recorded_dir,
          settings.prompts_dir.empty() ? LlmPrompts::default_dir() : settings.prompts_dir, was,
          now));
  }
  return m;
}

} // namespace tv
