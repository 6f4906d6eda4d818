#pragma once
/// The LLM options of `tilevolve evolve` (--llm, --llm-model, budgets, timeouts, prompts) and the
/// LLM mutator they make.
#include "eval/problem.hpp"
#include "evolve/mutators/llm_mutator.hpp"

#include <CLI/CLI.hpp>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

namespace tv {

/// What the flags say.
struct LlmOptions {
  std::string llm = "mock"; ///< mock | openai:URL | replay:RUN_DIR
  std::string model;
  std::string api_key_env; ///< empty: OPENAI_API_KEY, and its absence is fine
  int concurrency = 1;
  LlmSettings settings; ///< everything else (timeouts, budgets, prompts, ...)
};

/// Adds the LLM flags to `cmd`.
void add_llm_options(CLI::App& cmd, LlmOptions& o);
/// The flags that may go with --resume or --llm replay: (they do not change the run).
bool is_runtime_llm_flag(const std::string& name);

/// True for --llm openai:...; false for mock; throws InputError for anything else but
/// replay:DIR (for which it returns false and sets `replay_dir`).
bool wants_llm_server(const LlmOptions& o, std::string& replay_dir);
/// The settings of a fresh --llm openai:URL run from the flags; throws InputError for a
/// missing --llm-model, a bad model list or URL.
LlmSettings llm_settings_from_flags(const LlmOptions& o);
/// The API key from the environment variable `name`; throws InputError when `required` and
/// it is unset or empty. The key is returned to be sent, never to be shown.
std::string api_key_from_env(const std::string& name, bool required);
/// Builds the mutator for `problem`. For a recorded run (`recorded`: the mutator_settings of
/// `recorded_dir`/config.json) it checks that the prompt templates are still those the run
/// used; throws InputError naming the run and the prompts folder when they changed.
std::unique_ptr<LlmMutator> make_llm_mutator(const Problem& problem, const LlmSettings& settings,
                                             LlmRuntime runtime,
                                             const std::string& recorded_dir = "",
                                             const nlohmann::json* recorded = nullptr);

} // namespace tv
