#pragma once
/// The options every problem-based subcommand shares (--gpu, the shape sources --shapes,
/// --workload-log, --preset/--tp/--tokens and --inline, --keep, --split, --backend, ...).
#include "eval/problem.hpp"

#include <CLI/CLI.hpp>

namespace tv {

/// The GPU profile of every command that takes a problem when --gpu is not given (the
/// lecture alone keeps the course's H100).
inline constexpr const char* kDefaultGpu = "mi300x";

/// Which of the problem options a subcommand takes.
enum class ProblemOptionSet {
  all,        ///< --gpu, the shape sources, --keep, --test-shapes, --split, --split-seed,
              ///< --backend, --expert
  over_seeds, ///< all but --test-shapes and --split-seed: the caller sets the split seed
};

/// Adds the problem options of `which` to `cmd`; `spec` must outlive the parse. Marks
/// spec.gpu as a default (a replay file may pick the profile) until --gpu is given; the
/// default is kDefaultGpu.
/// The model preset is --preset (`--model`, which meant a preset or the LLM's model, is refused
/// with both names: cli/retired_options.hpp). `model_alias` is no longer read.
void add_problem_options(CLI::App& cmd, ProblemSpec& spec,
                         ProblemOptionSet which = ProblemOptionSet::all, bool model_alias = true);
/// The fewest test shapes whose score tells held-out generalization apart from chance.
inline constexpr std::size_t kFewTestShapes = 10;
/// Warns on stderr when `p` is split into train and test and its test half has fewer than
/// kFewTestShapes shapes: a test score on so few decides nothing.
void warn_if_few_test_shapes(const Problem& p);
/// Adds --gpu alone (for subcommands whose problem is otherwise fixed); `gpu` holds the
/// default, and --help says so where it is not kDefaultGpu.
void add_gpu_option(CLI::App& cmd, std::string& gpu);

} // namespace tv
