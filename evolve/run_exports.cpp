#include "evolve/run_exports.hpp"

#include "eval/export_provenance.hpp"
#include "eval/training_coverage.hpp"
#include "evolve/run_dir.hpp"
#include "ir/error.hpp"
#include "ir/exporters/cpp_exporter.hpp"
#include "ir/exporters/json_exporter.hpp"
#include "ir/exporters/python_exporter.hpp"
#include "ir/exporters/triton_exporter.hpp"
#include "ir/version.hpp"

#include <filesystem>
#include <fmt/format.h>

namespace tv {

void write_run_exports(const std::string& dir, const Problem& problem, const EvolutionResult& r) {
  const std::string out = dir + "/exports";
  std::error_code ec;
  std::filesystem::create_directories(out, ec);
  if (ec) throw InputError(fmt::format("{}: cannot create the directory: {}", out, ec.message()));
  const Program& p = r.best_simplified;
  ExportInfo info = export_info(
      problem, r.best_train, r.best_test, fmt::format("tilevolve {} (tilevolve evolve)", version()),
      fmt::format("run directory {}: its best program (id {}, simplified: redundant rules "
                  "removed, each shape gets the config the original gives it) after {} programs",
                  dir, r.best.id, r.programs));
  info.training = problem_training_range(problem, p);
  atomic_write(out + "/best.hpp", export_cpp(p, info));
  atomic_write(out + "/best_heuristic.py", export_python(p, info));
  atomic_write(out + "/best_triton.py", export_triton(p, info));
  atomic_write(out + "/best.json", export_json(p, info));
}

} // namespace tv
