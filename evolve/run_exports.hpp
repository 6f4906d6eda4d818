#pragma once
/// The exports a run directory holds of its best program (simplified: same decisions for every
/// shape): exports/best.hpp (C++17 header), exports/best_heuristic.py (Python, Triton
/// meta-parameters), exports/best_triton.py (triton.Config list and autotune pruner) and
/// exports/best.json (re-importable), each stating the run, GPU, backend and scores at its top.
/// vLLM files need N, K and a device and are written by the CLI (`evolve --export-vllm`,
/// `tilevolve export RUN_DIR --format vllm`).
#include "eval/problem.hpp"
#include "evolve/evolution.hpp"

#include <string>

namespace tv {

/// Writes the exports of `r`'s best program into `dir`/exports (created if missing);
/// throws InputError when a file cannot be written.
void write_run_exports(const std::string& dir, const Problem& problem, const EvolutionResult& r);

} // namespace tv
