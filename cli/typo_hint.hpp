#pragma once
/// Messages for a mistyped word on the command line that name the nearest valid subcommand or
/// option (ir/nearest_word.hpp).
#include <string>

namespace CLI {
class App;
}

namespace tv {

/// The message for a command line whose first word is not a subcommand of `app`, or "" when
/// it is one (or is an option): "unknown subcommand 'evolv' (did you mean 'evolve'?; ...)".
std::string unknown_subcommand_message(const CLI::App& app, int argc, const char* const* argv);
/// The message for arguments CLI11 did not expect in the parsed subcommand of `app`
/// (ExtrasError): names each unknown option and the nearest valid one, or "" when none of
/// the extras is an option.
std::string unexpected_arguments_message(const CLI::App& app);

} // namespace tv
