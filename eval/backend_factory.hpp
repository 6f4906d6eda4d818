#pragma once
/// Builds a timing backend from its command-line spelling.
#include "eval/timing_backend.hpp"
#include "models/gpu.hpp"

#include <memory>
#include <string>

namespace tv {

/// "analytic" (default) or "replay:FILE"; throws InputError for an unknown spec or bad file.
std::unique_ptr<TimingBackend> make_backend(const std::string& spec, const Gpu& gpu);

} // namespace tv
