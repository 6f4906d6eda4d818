#pragma once
/// What produced an export: the provenance every exported file states at its top.
///
/// Map of ir/exporters/ (one file per format, the importers beside them): export_info.hpp (this
/// file) holds the provenance; triton_meta.hpp names a config's fields the way Triton, vLLM and
/// SGLang do; cpp_exporter, python_exporter, triton_exporter, json_exporter, vllm_exporter and
/// aiter_exporter write the formats, training_range_code.hpp the in_training_range function of
/// the code exports; m_segments.hpp cuts a program's decisions along M, nearest_key.hpp states
/// vLLM's nearest-key lookup and aiter_format.hpp aiter's files and bucket lookup, each shared by
/// an exporter and its importer; json_document.hpp reads untrusted JSON with line numbers;
/// json_importer, vllm_importer and aiter_importer read programs back, import_file.hpp tells the
/// formats apart.
#include "ir/program.hpp"
#include "ir/training_range.hpp"

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
  /// Where the training shapes were (ir/training_range.hpp), for the program exported; nullopt
  /// when not known (a program file exported without problem options).
  std::optional<TrainingRange> training;
};

/// "0x" and 16 hex digits of hash_value(p).
std::string program_hash_text(const Program& p);

/// The provenance as lines of printable ASCII without comment markers: tool and source, program
/// hash and rule count, GPU and backend, scores (or why none), the training range, notes. Each line
/// is safe inside a
/// `//` or `#` comment (control characters, non-ASCII bytes and a line-final backslash become
/// '?').
std::vector<std::string> provenance_lines(const Program& p, const ExportInfo& info);

/// The same facts as a JSON object (tool, source, program_hash, rules, gpu, backend, scores,
/// scores_note, training_range (training_range_json), notes); unknown values are null.
nlohmann::ordered_json provenance_json(const Program& p, const ExportInfo& info);

/// `text` made safe for a one-line comment (see provenance_lines).
std::string comment_safe(std::string_view text);

/// The training range of `info` for the program `p` it describes: info.training when it fits
/// `p`, its box alone for every branch when it does not (see box_only_range), nullopt when none.
std::optional<TrainingRange> export_training_range(const Program& p, const ExportInfo& info);

} // namespace tv
