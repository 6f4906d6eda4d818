#pragma once
/// `tilevolve measure`: fill the measurement file for a shape set (dense search, data for
/// baselines, oracles and later replays).
#include <CLI/CLI.hpp>

namespace tv {

/// Registers the subcommand on `app`.
void add_measure_command(CLI::App& app);

} // namespace tv
