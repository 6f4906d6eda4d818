#pragma once
/// `tilevolve splits`: the generalization study over random splits (experiments/split_study).
#include <CLI/CLI.hpp>

namespace tv {

/// Registers the `splits` subcommand on `app`.
void add_splits_command(CLI::App& app);

} // namespace tv
