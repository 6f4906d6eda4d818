#pragma once
/// Where the shapes of a problem come from: exactly one of a shape CSV, a hipBLASLt log, a
/// model preset or shapes given inline, each turned into a named, weighted shape list.
#include "ir/shape.hpp"

#include <optional>
#include <string>
#include <vector>

namespace tv {

/// The shape sources as given (empty = not given).
struct WorkloadSpec {
  std::string shapes;                     ///< shape CSV (models/shape_file.hpp)
  std::string workload_log;               ///< hipBLASLt log (hipblaslt_log.hpp)
  std::string model;                      ///< model preset name (model_presets.hpp)
  int tp = 0;                             ///< tensor parallelism of the preset (0 = not given: 1)
  std::string tokens;                     ///< token counts of the preset ("" = the default list)
  std::vector<std::string> inline_shapes; ///< "M,N,K[,dtype]" each (inline_shapes.hpp)
};

/// The loaded shapes and how to describe them.
struct Workload {
  std::vector<Shape> shapes;
  std::string source; ///< e.g. "data/shapes/lecture.csv", "model llama3-70b (tp 8)"
  std::string note;   ///< what the reader did, e.g. a hipBLASLt log's summary; may be empty
};

/// Loads the one source `spec` names, or returns nullopt when it names none. Throws
/// InputError when it names more than one, when --tp or --tokens come without --preset, or for
/// bad input in the source.
std::optional<Workload> load_workload(const WorkloadSpec& spec);

} // namespace tv
