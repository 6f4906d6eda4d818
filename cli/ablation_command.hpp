#pragma once
/// `tilevolve ablate operators|cascade|database`: one part of the system changed, over seeds.
#include <CLI/CLI.hpp>

namespace tv {

/// Registers the subcommand on `app`.
void add_ablation_command(CLI::App& app);

} // namespace tv
