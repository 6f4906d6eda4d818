#include "eval/backend_factory.hpp"

#include "eval/analytic_backend.hpp"
#include "eval/backends/measured_backend.hpp"
#include "eval/replay_backend.hpp"
#include "ir/error.hpp"

#include <fmt/format.h>

namespace tv {

std::unique_ptr<TimingBackend> make_backend(const std::string& spec, const Gpu& gpu,
                                            const PoolOptions& workers, const std::string& cache) {
  if (spec.empty() || spec == "analytic") return std::make_unique<AnalyticBackend>(gpu);
  if (spec == "measured") {
    if (cache.empty())
      throw InputError("backend 'measured' needs a measurement file: it is for tilevolve "
                       "evolve (--cache FILE); tilevolve measure fills a cache, and "
                       "--backend replay:FILE reads one in every subcommand");
    return std::make_unique<MeasuredBackend>(gpu, workers, cache);
  }
  if (const auto f = replay_file_of(spec)) {
    const std::string& file = *f;
    if (file.empty())
      throw InputError(spec.rfind("table:", 0) == 0
                           ? "backend 'table:' needs a file, e.g. table:data/replay/h200_triton.csv"
                           : "backend 'replay:' needs a file, e.g. replay:data/replay/h100_mm.txt");
    // Default rows: see ReplayFilter (AutoHeuristic data: bf16 and f16, all four layouts).
    ReplayFilter filter;
    filter.table = spec.rfind("table:", 0) == 0;
    return std::make_unique<ReplayBackend>(file, filter, gpu);
  }
  throw InputError(fmt::format(
      "unknown backend '{}' (expected analytic, replay:FILE, table:FILE or measured)", spec));
}

std::optional<std::string> replay_file_of(const std::string& spec) {
  if (spec.rfind("replay:", 0) == 0) return spec.substr(7);
  if (spec.rfind("table:", 0) == 0) return spec.substr(6);
  return std::nullopt;
}

std::string table_hint(const std::string& spec) {
  if (spec.rfind("replay:", 0) != 0) return "";
  const std::string file = spec.substr(7);
  return fmt::format("; if tilevolve measure wrote {0}, --backend table:{0} reads it as a table "
                     "(the configs it timed on every shape, one median per pair)",
                     file);
}

} // namespace tv
