#pragma once
/// Builds a timing backend from its command-line spelling.
#include "eval/timing_backend.hpp"
#include "models/gpu.hpp"

#include <memory>
#include <optional>
#include <string>

namespace tv {

/// "analytic" (default) or "replay:FILE"; throws InputError for an unknown spec or bad file.
std::unique_ptr<TimingBackend> make_backend(const std::string& spec, const Gpu& gpu);
/// The FILE of a "replay:FILE" spec (possibly empty), or nullopt for any other spec.
std::optional<std::string> replay_file_of(const std::string& spec);

} // namespace tv
