#pragma once
/// Reads a vLLM or SGLang per-M config file (keys are M values, values Triton meta-parameters,
/// vLLM's optional "triton_version" key) into a program whose rules reproduce the serving
/// stack's nearest-key lookup exactly (nearest_key.hpp): sorted by key, rule i returns key i's
/// config for M up to the midpoint towards the next key (a tie to the key earlier in the file),
/// the last key's config is the default, and neighbouring keys with equal configs share a rule.
///
/// Keys must be plain decimal integers 0 .. kDimMax, distinct (Python's int() also accepts
/// "+1", " 1", "1_0" or "01"; they are refused here, so the program cannot differ from the file);
/// values must be objects with the integer fields BLOCK_SIZE_M, BLOCK_SIZE_N, BLOCK_SIZE_K,
/// GROUP_SIZE_M, num_warps, num_stages (positive) and optionally waves_per_eu,
/// matrix_instr_nonkdim, kpack (non-negative). Any other field (SPLIT_K, USE_TMA, ...) has no
/// place in tilevolve's config: it is refused, or dropped and listed with drop_unknown_fields.
#include "ir/exporters/json_document.hpp"
#include "ir/program.hpp"

#include <optional>
#include <string>
#include <vector>

namespace tv {

/// Options of the vLLM/SGLang importer.
struct VllmImportOptions {
  /// Drop fields tilevolve's config cannot hold (and list them) instead of refusing the file.
  bool drop_unknown_fields = false;
};

/// An imported per-M config file.
struct VllmImport {
  Program program;
  std::vector<std::int64_t> keys; ///< in file order
  std::optional<std::string> triton_version;
  std::vector<std::string> dropped_fields; ///< distinct names, sorted
  /// What the program stands for, as comment lines: source, keys, the lookup, each key's M range.
  std::vector<std::string> description;
};

/// True when the document looks like a per-M config: a non-empty object whose keys are
/// digit strings or "triton_version".
bool is_vllm_config(const JsonDocument& doc);

/// The import of `doc`; throws InputError naming the source, the line and what was expected.
VllmImport import_vllm_config(const JsonDocument& doc, const VllmImportOptions& o = {});

/// Parses `text` and imports it.
VllmImport import_vllm_config(std::string_view text, std::string_view source,
                              const VllmImportOptions& o = {});

} // namespace tv
