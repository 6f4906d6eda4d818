#pragma once
/// Reads an aiter Triton GEMM config file (aiter_format.hpp) into a program whose rules reproduce
/// aiter's lookup exactly: for each run of M served by one key, in increasing M, a rule
/// `M <= last M of the run` returns that key's config (neighbouring runs with equal configs
/// share a rule), and the run that reaches the largest M is the default. Like the file, the
/// program does not look at N and K.
///
/// Refused, with the file, line and key named: a top-level key the getter never reads (anything
/// but "any" and M_LEQ_<m> / M_GEQ_<m> with m a plain decimal among 1, 4, 8, ..., 8192), keys
/// out of aiter's order (M_LEQ keys by increasing m, then M_GEQ keys by increasing m, then
/// "any"), an M_GEQ_<m> below the largest M_LEQ bound (the lookup tries every M_LEQ key first, so
/// it would serve other M than its name says), M values no key serves (aiter raises KeyError
/// there), values that are not objects, integer fields out of 1..65536 (0..65536 for the AMD
/// knobs) or of another type, a repeated key. Fields: BLOCK_SIZE_M, BLOCK_SIZE_N, BLOCK_SIZE_K,
/// GROUP_SIZE_M, num_warps, num_stages (required), waves_per_eu, matrix_instr_nonkdim, kpack,
/// and cache_modifier null and NUM_KSPLIT 1 (aiter's defaults, which tilevolve's config means
/// too). A cache modifier, split-K (NUM_KSPLIT above 1) or another field has no place in
/// tilevolve's config: refused, or dropped and listed with drop_unknown_fields.
#include "ir/exporters/json_document.hpp"
#include "ir/program.hpp"

#include <string>
#include <vector>

namespace tv {

/// Options of the aiter importer.
struct AiterImportOptions {
  /// Drop fields tilevolve's config cannot hold (and list them) instead of refusing the file.
  bool drop_unknown_fields = false;
};

/// An imported aiter config file.
struct AiterImport {
  Program program;
  std::vector<std::string> keys;           ///< in file order
  std::vector<std::string> dropped_fields; ///< distinct names (with the value for a cache
                                           ///< modifier or split-K), sorted
  /// What the program stands for, as comment lines: source, keys, the lookup, each key's M range.
  std::vector<std::string> description;
};

/// True when the document looks like an aiter config: an object with a key "any" or a key that
/// starts with "M_LEQ_" or "M_GEQ_".
bool is_aiter_config(const JsonDocument& doc);

/// The import of `doc`; throws InputError naming the source, the line, the key and what was
/// expected.
AiterImport import_aiter_config(const JsonDocument& doc, const AiterImportOptions& o = {});

/// Parses `text` and imports it.
AiterImport import_aiter_config(std::string_view text, std::string_view source,
                                const AiterImportOptions& o = {});

} // namespace tv
