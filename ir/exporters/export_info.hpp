#pragma once
/// What produced an export: the provenance every exported file states at its top.
///
/// Map of ir/exporters/ (one file per format, the importers beside them): export_info.hpp (this
/// file) holds the provenance; triton_meta.hpp names a config's fields the way Triton, vLLM and
/// SGLang do; cpp_exporter, python_exporter, triton_exporter, json_exporter and vllm_exporter
/// write the formats; m_segments.hpp cuts a program's decisions along M and nearest_key.hpp
/// states vLLM's nearest-key lookup, both shared by the vLLM exporter and importer;
/// json_document.hpp reads untrusted JSON with line numbers; json_importer and vllm_importer
/// read programs back, import_file.hpp tells the formats apart.
#include "ir/program.hpp"

#include <cstddef>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace tv {

/// Figures of a program on one shape set, as an export states them.
struct ExportScores {
  double fraction_of_oracle = 0; ///< (weighted) geomean of oracle time / program time
  double speedup_vs_expert = 0;  ///< (weighted) geomean of expert time / program time
  std::optional<double> uplift;  ///< total weighted time of the expert / of the program
  std::size_t shapes = 0;
  bool weighted = false; ///< the shapes carry workload weights (geomeans are weighted)
};

/// What produced an export. The IR knows nothing of runs and problems, so the caller fills
/// this plain struct; the program hash is computed from the program itself.
struct ExportInfo {
  std::string tool;    ///< "tilevolve 0.1.0 (tilevolve export)"; empty = "tilevolve VERSION"
  std::string source;  ///< e.g. "program file best.py", "run directory runs/a (its best program)"
  std::string gpu;     ///< e.g. "mi300x (AMD Instinct MI300X 192GB)"; empty = not known
  std::string backend; ///< e.g. "analytic"; empty = not known
  std::optional<ExportScores> train, test;
  /// Where the scores come from, or why there are none.
  std::string scores_note;
  /// More lines, e.g. how a vendor region was written.
  std::vector<std::string> notes;
};

/// "0x" and 16 hex digits of hash_value(p).
std::string program_hash_text(const Program& p);

/// The provenance as lines of printable ASCII without comment markers: tool and source, program
/// hash and rule count, GPU and backend, scores (or why none), notes. Each line is safe inside a
/// `//` or `#` comment (control characters, non-ASCII bytes and a line-final backslash become
/// '?').
std::vector<std::string> provenance_lines(const Program& p, const ExportInfo& info);

/// The same facts as a JSON object (tool, source, program_hash, rules, gpu, backend, scores,
/// scores_note, notes); unknown values are null.
nlohmann::ordered_json provenance_json(const Program& p, const ExportInfo& info);

/// `text` made safe for a one-line comment (see provenance_lines).
std::string comment_safe(std::string_view text);

} // namespace tv
