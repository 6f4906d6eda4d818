#pragma once
/// Reading a program from any form tilevolve writes or imports: the text form (`def choose`),
/// the JSON export, a vLLM/SGLang per-M config file or an aiter GEMM config file, told apart by
/// their content.
#include "ir/exporters/vllm_importer.hpp"
#include "ir/program.hpp"

#include <string>
#include <vector>

namespace tv {

/// A program read from a file and what it was.
struct ImportedProgram {
  Program program;
  /// "program text", "tilevolve JSON program", "vLLM/SGLang config" or "aiter config"
  std::string kind;
  /// Comment lines describing an imported lookup table (empty for the other forms).
  std::vector<std::string> description;
};

/// Reads `path`: JSON (the first non-space character is '{') is a tilevolve program when its
/// "format" says so, an aiter config when a key is "any" or starts with M_LEQ_ or M_GEQ_, else a
/// vLLM/SGLang config (options: drop_unknown_fields applies to both configs); anything else is
/// program text. Throws
/// InputError naming the file, the line and what was expected.
ImportedProgram read_any_program(const std::string& path, const VllmImportOptions& o = {});

/// The same for text already read (`source` names it in messages).
ImportedProgram read_any_program_text(std::string_view text, const std::string& source,
                                      const VllmImportOptions& o = {});

} // namespace tv
