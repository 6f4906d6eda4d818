#pragma once
/// Reads a program back from the JSON export (see json_exporter.hpp for the format). The text is
/// untrusted: every field is checked, and the program must be one the text form accepts (tile
/// sizes, at most kMaxDerivedFeatures derived features), so that it prints and parses back.
#include "ir/exporters/json_document.hpp"
#include "ir/program.hpp"

#include <string_view>

namespace tv {

/// True when the document is a tilevolve program (its "format" is kProgramJsonFormat).
bool is_program_json(const JsonDocument& doc);

/// The program in `doc`; throws InputError naming the source, the line and what was expected.
Program import_program_json(const JsonDocument& doc);

/// Parses `text` and imports it (throws InputError for any problem).
Program import_program_json(std::string_view text, std::string_view source);

} // namespace tv
