#pragma once
/// `tilevolve export PROGRAM --format cpp|python|triton|json|vllm|aiter`: a heuristic a kernel
/// library or serving stack can ship, stating at its top what produced it.
#include <CLI/CLI.hpp>

namespace tv {

/// Registers the subcommand on `app`.
void add_export_command(CLI::App& app);

} // namespace tv
