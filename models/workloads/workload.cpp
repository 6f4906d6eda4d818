#include "models/workloads/workload.hpp"

#include "ir/error.hpp"
#include "models/shape_file.hpp"
#include "models/workloads/hipblaslt_log.hpp"
#include "models/workloads/inline_shapes.hpp"
#include "models/workloads/model_presets.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace tv {

std::optional<Workload> load_workload(const WorkloadSpec& spec) {
  std::vector<std::string> given;
  if (!spec.shapes.empty()) given.push_back("--shapes");
  if (!spec.workload_log.empty()) given.push_back("--workload-log");
  if (!spec.model.empty()) given.push_back("--preset");
  if (!spec.inline_shapes.empty()) given.push_back("--inline");
  if (given.size() > 1)
    throw InputError(fmt::format("give one shape source, not {} (choose one of --shapes, "
                                 "--workload-log, --preset, --inline)",
                                 fmt::join(given, " and ")));
  if (spec.model.empty() && (spec.tp != 0 || !spec.tokens.empty()))
    throw InputError(
        fmt::format("{} only applies to --preset", spec.tp != 0 ? "--tp" : "--tokens"));
  if (given.empty()) return std::nullopt;

  Workload w;
  if (!spec.shapes.empty()) {
    w.shapes = load_shape_file(spec.shapes);
    w.source = spec.shapes;
  } else if (!spec.workload_log.empty()) {
    HipblasltLog log = load_hipblaslt_log(spec.workload_log);
    w.note = "hipBLASLt log: " + log.summary();
    w.shapes = std::move(log.shapes);
    w.source = spec.workload_log;
  } else if (!spec.model.empty()) {
    const ModelPreset m = find_model(spec.model);
    const int tp = spec.tp == 0 ? 1 : spec.tp;
    const std::vector<std::int64_t> tokens =
        spec.tokens.empty() ? default_token_counts() : parse_token_counts(spec.tokens);
    w.shapes = preset_shapes(m, tp, tokens);
    w.source = fmt::format("model {}{}", m.name, tp > 1 ? fmt::format(" (tp {})", tp) : "");
    w.note = fmt::format("model preset {} ({}, {} architecture, dimensions from {}), tp {}, "
                         "token counts {}: {} GEMMs",
                         m.name, m.hf_repo, m.architecture, "data/models/models.json", tp,
                         fmt::join(tokens, ","), w.shapes.size());
  } else {
    w.shapes = parse_inline_shapes(spec.inline_shapes);
    w.source = "--inline";
  }
  return w;
}

} // namespace tv
