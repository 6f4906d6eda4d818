#pragma once
/// The options every problem-based subcommand shares (--gpu, --shapes, --split, ...).
#include "eval/problem.hpp"

#include <CLI/CLI.hpp>

namespace tv {

/// Adds --gpu, --shapes, --test-shapes, --split, --split-seed, --backend and --expert to `cmd`.
void add_problem_options(CLI::App& cmd, ProblemSpec& spec);

} // namespace tv
