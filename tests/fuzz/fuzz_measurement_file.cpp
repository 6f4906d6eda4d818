// Fuzz target for the measurement file reader (eval/measurement_cache.hpp, versions 1 and 2):
// any bytes must parse or raise InputError, never crash, hang or leak; every record read
// formats and reads back the same (its text fields with line breaks flattened to spaces, as
// the writer documents). Not part of the CMake build. Seeds in
// tests/fuzz/corpus/measurement_file/. From the repository root:
//
//   clang++ -std=c++20 -O1 -g -fsanitize=fuzzer,address,undefined -I. \
//       tests/fuzz/fuzz_measurement_file.cpp eval/measurement_cache.cpp eval/measurement.cpp \
//       models/csv_fields.cpp ir/shape.cpp ir/config.cpp $(pkg-config --libs fmt) -o /tmp/f
//   /tmp/f -max_total_time=30 -max_len=8192 tests/fuzz/corpus/measurement_file
#include "eval/measurement_cache.hpp"
#include "ir/error.hpp"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace {
/// `s` as the writer stores it: carriage returns and newlines become spaces.
std::string flat(std::string s) {
  for (char& c : s)
    if (c == '\n' || c == '\r') c = ' ';
  return s;
}
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const tv::MeasurementFile f = tv::parse_measurement_file(text, "fuzz.csv");
    for (const tv::MeasurementRecord& r : f.records) {
      if (r.result.ok() != std::isfinite(r.result.seconds)) __builtin_trap();
      if (f.version == 2) {
        const std::string again = std::string(tv::kMeasurementCacheV2Line) + "\n" +
                                  std::string(tv::kMeasurementCacheV2Header) + "\n" +
                                  tv::format_record_v2(r) + "\n";
        const tv::MeasurementFile back = tv::parse_measurement_file(again, "again.csv");
        tv::MeasurementRecord want = r;
        for (std::string* t : {&want.gpu, &want.device, &want.worker, &want.result.detail})
          *t = flat(*t);
        if (back.records.size() != 1 || !(back.records[0] == want)) __builtin_trap();
      }
    }
  } catch (const tv::InputError&) {
  }
  return 0;
}
