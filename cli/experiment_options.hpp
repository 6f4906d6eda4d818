#pragma once
/// What the experiment subcommands (lecture, ablate, splits) share: the thread count of their
/// independent runs and the report directory.
#include <CLI/CLI.hpp>

#include <string>

namespace tv {

/// Adds --threads (threads for the independent runs; results do not depend on it).
void add_threads_option(CLI::App& cmd, int& threads);
/// Throws InputError when `out` names something that exists and is not a directory (checked
/// before any run, so a bad --out costs nothing).
void check_report_dir(const std::string& out);

} // namespace tv
