#pragma once
/// `tilevolve evolve`: evolve a tiling heuristic from the expert (the main job).
#include <CLI/CLI.hpp>

namespace tv {

/// Registers the subcommand on `app`.
void add_evolve_command(CLI::App& app);

} // namespace tv
