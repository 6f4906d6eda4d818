// Fuzz target for the aiter config importer (ir/exporters/aiter_importer.hpp): any bytes must
// either import or raise InputError, never crash, hang or leak; an imported program must give
// one config on each run of M that aiter's lookup serves from one key, and print and parse back.
// Seeds in tests/fuzz/corpus/aiter_importer/ (a file in aiter's public format with M_GEQ and
// "any", one with M_LEQ_1, a key aiter never reads, a hole, a split-K field). Built with
// -DTILEVOLVE_FUZZ=ON (tests/fuzz/README.md), or by hand from the repository root:
//
//   clang++ -std=c++20 -O1 -g -fsanitize=fuzzer,address,undefined -I. \
//       -DTILEVOLVE_VERSION='"0"' tests/fuzz/fuzz_aiter_importer.cpp \
//       ir/exporters/aiter_importer.cpp ir/exporters/aiter_format.cpp \
//       ir/exporters/json_document.cpp ir/exporters/export_info.cpp \
//       ir/exporters/triton_meta.cpp ir/exporters/m_segments.cpp ir/training_range.cpp \
//       ir/version.cpp ir/text*.cpp ir/program.cpp ir/condition.cpp ir/config.cpp \
//       $(pkg-config --libs fmt) -o /tmp/f
//   /tmp/f -max_total_time=30 -max_len=20000 tests/fuzz/corpus/aiter_importer
#include "ir/error.hpp"
#include "ir/exporters/aiter_format.hpp"
#include "ir/exporters/aiter_importer.hpp"
#include "ir/text.hpp"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    tv::AiterImportOptions o;
    o.drop_unknown_fields = size % 2 == 0;
    const tv::AiterImport imp = tv::import_aiter_config(text, "fuzz.json", o);
    std::vector<tv::AiterKey> keys;
    for (const std::string& k : imp.keys) {
      const auto key = tv::parse_aiter_key(k);
      if (!key) __builtin_trap(); // the importer accepted a key the getter never reads
      keys.push_back(*key);
    }
    const auto at = [](std::int64_t m) {
      tv::Shape s;
      s.M = m;
      return s;
    };
    std::int64_t next = 1;
    for (const tv::AiterRange& r : tv::aiter_ranges(keys)) {
      if (r.lo != next) __builtin_trap(); // a hole in what the accepted file serves
      if (!(imp.program.choose(at(r.lo)) == imp.program.choose(at(r.hi)))) __builtin_trap();
      next = r.hi + 1;
    }
    const tv::ParseResult back = tv::parse_program(tv::print_program(imp.program));
    if (!back.ok() || !(*back.program == imp.program)) __builtin_trap();
  } catch (const tv::InputError&) {
  }
  return 0;
}
