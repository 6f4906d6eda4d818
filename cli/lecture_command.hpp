#pragma once
/// `tilevolve lecture`: the four lecture demos (problem, one run, generalization, cost).
#include <CLI/CLI.hpp>

namespace tv {

/// Registers the subcommand on `app`.
void add_lecture_command(CLI::App& app);

} // namespace tv
