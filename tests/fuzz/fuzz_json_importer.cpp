// Fuzz target for the JSON program importer (ir/exporters/json_importer.hpp): any bytes must
// either import or raise InputError, never crash, hang or leak; an imported program must print,
// parse back to itself and export to JSON that imports to itself. Not part of the CMake build.
// Seeds in tests/fuzz/corpus/json_importer/ (exports of a mixed program, an empty rule list, a
// vendor default, a bad feature, a duplicate key). From the repository root:
//
//   clang++ -std=c++20 -O1 -g -fsanitize=fuzzer,address,undefined -I. \
//       tests/fuzz/fuzz_json_importer.cpp ir/exporters/json_importer.cpp \
//       ir/exporters/json_document.cpp ir/exporters/json_exporter.cpp \
//       ir/exporters/export_info.cpp ir/text*.cpp ir/program.cpp ir/condition.cpp ir/config.cpp \
//       ir/version.cpp -DTILEVOLVE_VERSION='"fuzz"' $(pkg-config --libs fmt) -o /tmp/f
//   /tmp/f -max_total_time=30 -max_len=20000 tests/fuzz/corpus/json_importer
#include "ir/error.hpp"
#include "ir/exporters/json_exporter.hpp"
#include "ir/exporters/json_importer.hpp"
#include "ir/text.hpp"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const tv::Program p = tv::import_program_json(text, "fuzz.json");
    const tv::ParseResult back = tv::parse_program(tv::print_program(p));
    if (!back.ok() || !(*back.program == p)) __builtin_trap();
    if (!(tv::import_program_json(tv::export_json(p, tv::ExportInfo{}), "again.json") == p))
      __builtin_trap();
  } catch (const tv::InputError&) {
  }
  return 0;
}
