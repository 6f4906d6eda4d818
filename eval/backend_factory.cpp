#include "eval/backend_factory.hpp"

#include "eval/analytic_backend.hpp"
#include "ir/error.hpp"

#include <fmt/format.h>

namespace tv {

std::unique_ptr<TimingBackend> make_backend(const std::string& spec, const Gpu& gpu) {
  if (spec.empty() || spec == "analytic") return std::make_unique<AnalyticBackend>(gpu);
  throw InputError(fmt::format("unknown backend '{}' (expected analytic or replay:FILE)", spec));
}

} // namespace tv
