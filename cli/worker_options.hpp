#pragma once
/// The options of the subcommands that start workers (--worker-cmd, --devices, ...).
#include "eval/controller/pool_options.hpp"

#include <CLI/CLI.hpp>
#include <string>

namespace tv {

/// Adds --worker-cmd, --devices, --worker-timeout and the restart limits (--worker-backoff,
/// --worker-max-backoff, --worker-max-failed-starts) to `cmd`; with `timing`, also --reps,
/// --warmup and the fault limits of measuring (--worker-max-faults, --poison-strikes,
/// --poison-config-after).
void add_worker_options(CLI::App& cmd, PoolOptions& pool, bool timing = true);
/// Adds --cache (the measurement file) to `cmd`, defaulting to kDefaultCache.
void add_cache_option(CLI::App& cmd, std::string& cache);
/// The default measurement file, shared by runs started in the same directory.
inline constexpr const char* kDefaultCache = "tilevolve-measurements.csv";
/// Checks the pool options (positive timeout, reps, ...); throws InputError.
void check_worker_options(const PoolOptions& pool);

} // namespace tv
