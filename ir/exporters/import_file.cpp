#include "ir/exporters/import_file.hpp"

#include "ir/error.hpp"
#include "ir/exporters/aiter_importer.hpp"
#include "ir/exporters/json_importer.hpp"
#include "ir/text.hpp"

#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace tv {

ImportedProgram read_any_program_text(std::string_view text, const std::string& source,
                                      const VllmImportOptions& o) {
  std::size_t i = text.substr(0, 3) == "\xEF\xBB\xBF" ? 3 : 0;
  while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i])))
    ++i;
  ImportedProgram r;
  if (i < text.size() && text[i] == '{') {
    const JsonDocument doc(text, source);
    if (is_program_json(doc)) {
      r.kind = "tilevolve JSON program";
      r.program = import_program_json(doc);
    } else if (is_aiter_config(doc)) {
      r.kind = "aiter config";
      AiterImportOptions ao;
      ao.drop_unknown_fields = o.drop_unknown_fields;
      AiterImport a = import_aiter_config(doc, ao);
      r.program = std::move(a.program);
      r.description = std::move(a.description);
    } else {
      r.kind = "vLLM/SGLang config";
      VllmImport v = import_vllm_config(doc, o);
      r.program = std::move(v.program);
      r.description = std::move(v.description);
    }
    return r;
  }
  r.kind = "program text";
  r.program = parse_program_or_throw(text, source);
  return r;
}

ImportedProgram read_any_program(const std::string& path, const VllmImportOptions& o) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw InputError(path + ": expected a program file, got a directory");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path + ": cannot open: " + std::strerror(errno));
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) throw InputError(path + ": cannot read");
  return read_any_program_text(ss.str(), path, o);
}

} // namespace tv
