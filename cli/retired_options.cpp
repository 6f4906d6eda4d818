#include "cli/retired_options.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <string_view>

namespace tv {

namespace {

struct Retired {
  std::string_view name;
  std::string_view instead; ///< what to give instead, for the message
};

constexpr Retired kRetired[] = {
    {"--model", "it meant a model preset, or with --llm openai:URL the LLM's model; give "
                "--preset NAME for a model's GEMMs (llama3-8b, mixtral-8x7b, ...: tilevolve "
                "evolve --help lists them) or --llm-model NAME for the model of the LLM server "
                "of --llm openai:URL"},
};

} // namespace

void remove_retired_options(CLI::App& app) {
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; }))
    for (const Retired& r : kRetired)
      if (CLI::Option* opt = sub->get_option_no_throw(std::string(r.name))) sub->remove_option(opt);
}

std::string retired_option_message(int argc, const char* const* argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--") break; // what follows is not an option
    for (const Retired& r : kRetired) {
      const bool with_value = arg.size() > r.name.size() &&
                              arg.substr(0, r.name.size()) == r.name && arg[r.name.size()] == '=';
      if (arg == r.name || with_value)
        return fmt::format("{} is no longer an option: {}", r.name, r.instead);
    }
  }
  return "";
}

} // namespace tv
