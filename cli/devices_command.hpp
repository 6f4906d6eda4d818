#pragma once
/// `tilevolve devices`: start the workers and show what each reports (device, backend, worker).
#include <CLI/CLI.hpp>

namespace tv {

/// Registers the subcommand on `app`.
void add_devices_command(CLI::App& app);

} // namespace tv
