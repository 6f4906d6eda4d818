#pragma once
/// `tilevolve score PROGRAM`: the baselines' figures for one program.
#include <CLI/CLI.hpp>

namespace tv {

/// Registers the subcommand on `app`.
void add_score_command(CLI::App& app);

} // namespace tv
