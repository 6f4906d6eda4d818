#pragma once
/// `tilevolve import FILE [-o PROGRAM]`: a vLLM/SGLang per-M config file, an aiter GEMM config
/// file (or a JSON export) becomes a program file that evolution can start from (`evolve --expert
/// PROGRAM`).
#include <CLI/CLI.hpp>

namespace tv {

/// Registers the subcommand on `app`.
void add_import_command(CLI::App& app);

} // namespace tv
