#pragma once
/// `tilevolve baselines`: the tiling problem laid out, and the reference methods.
#include <CLI/CLI.hpp>

namespace tv {

/// Registers the subcommand on `app`.
void add_baselines_command(CLI::App& app);

} // namespace tv
