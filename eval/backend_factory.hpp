#pragma once
/// Builds a timing backend from its command-line spelling.
#include "eval/controller/pool_options.hpp"
#include "eval/timing_backend.hpp"
#include "models/gpu.hpp"

#include <memory>
#include <optional>
#include <string>

namespace tv {

/// "analytic" (default), "replay:FILE", "table:FILE" (a measurement file read as a complete
/// table, ReplayFilter::table), or "measured" (workers started with `workers`, the
/// measurement file `cache`); throws InputError for an unknown spec, a bad file, or workers
/// that cannot start.
std::unique_ptr<TimingBackend> make_backend(const std::string& spec, const Gpu& gpu,
                                            const PoolOptions& workers = {},
                                            const std::string& cache = "");
/// The FILE of a "replay:FILE" or "table:FILE" spec (possibly empty), or nullopt for any
/// other spec.
std::optional<std::string> replay_file_of(const std::string& spec);

/// For a "replay:FILE" spec, the sentence a failed replay of a file that `tilevolve measure`
/// wrote ends with: that "table:FILE" reads it as a table. Empty for any other spec.
std::string table_hint(const std::string& spec);

} // namespace tv
