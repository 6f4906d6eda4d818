#pragma once
/// Options the tool no longer takes, each refused with what to give instead, whatever the
/// subcommand. `--model` meant a model preset, or with `--llm openai:URL` the LLM's model: one
/// word for two things. It is now `--preset NAME` (the GEMMs of a model) or `--llm-model NAME`
/// (the LLM server's model), one meaning each.
#include <string>

namespace CLI {
class App;
}

namespace tv {

/// Takes every retired option off the subcommands of `app` (so that no --help lists it).
void remove_retired_options(CLI::App& app);
/// The message for the first retired option on the command line (`--model`, `--model=X`;
/// arguments after `--` are not options), or "" when there is none: "--model is no longer an
/// option: give --preset NAME for a model's GEMMs or --llm-model NAME for the LLM's model".
std::string retired_option_message(int argc, const char* const* argv);

} // namespace tv
