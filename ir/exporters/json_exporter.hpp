#pragma once
/// The JSON export: the program as data, re-importable with `tilevolve import` (json_importer).
///
///     {"format": "tilevolve-program", "format_version": 1,
///      "produced_by": {tool, source, program_hash, rules, gpu, backend, scores, ...},
///      "semantics": "...",
///      "rules": [{"if": [{"feature": "M", "op": "<=", "value": 16},
///                        {"feature": "tiles", "tile_m": 128, "tile_n": 128, "op": "<=",
///                         "value": 132}],
///                 "return": {"BM": 16, "BN": 64, "BK": 128, "warps": 4, "stages": 4, "group": 1}},
///                {"if": [{"feature": "M * N", "op": ">=", "value": 1048576}], "return":
///                "vendor"}],
///      "default": {"BM": 128, ...},
///      "text": "def choose(M, N, K): ..."}
///
/// Features are "M", "N", "K", "M * N" and "tiles" (with tile_m, tile_n); ops < <= > >= ==; a
/// config is an object with BM, BN, BK, warps, stages, group and optionally waves_per_eu,
/// matrix_instr_nonkdim, kpack, or the string "vendor". "text" is the program's text form, for
/// reading only: the importer takes rules and default.
#include "ir/exporters/export_info.hpp"
#include "ir/program.hpp"

#include <string>

namespace tv {

/// The value of "format" that marks a tilevolve program.
inline constexpr std::string_view kProgramJsonFormat = "tilevolve-program";

/// The document text (2-space indents, ending in a newline).
std::string export_json(const Program& p, const ExportInfo& info);

} // namespace tv
