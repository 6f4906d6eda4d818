#pragma once
/// `tilevolve serve`: the live web dashboard of the runs under a directory.
#include <CLI/CLI.hpp>

namespace tv {

/// Registers the subcommand on `app`.
void add_serve_command(CLI::App& app);

} // namespace tv
