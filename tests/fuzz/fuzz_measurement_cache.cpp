// Fuzz target for tilevolve's measurement file reader (eval/measurement_cache.hpp), the replay
// backend's own format: any bytes must parse or raise InputError naming the source, never
// crash, hang or leak; every record that parses is written back by format_record to a line that
// parses to the same record. Seeds in tests/fuzz/corpus/measurement_cache/. Built by
// -DTILEVOLVE_FUZZ=ON; by hand:
//
//   clang++ -std=c++20 -O1 -g -fsanitize=fuzzer,address,undefined -I. \
//       tests/fuzz/fuzz_measurement_cache.cpp eval/measurement_cache.cpp eval/measurement.cpp \
//       models/csv_fields.cpp ir/shape.cpp ir/config.cpp $(pkg-config --libs fmt) -o /tmp/f
//   /tmp/f -max_total_time=60 tests/fuzz/corpus/measurement_cache
#include "eval/measurement_cache.hpp"
#include "ir/error.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  std::vector<tv::MeasurementRecord> records;
  try {
    records = tv::parse_measurement_cache(text, "fuzz.csv");
  } catch (const tv::InputError& e) {
    if (std::string_view(e.what()).substr(0, 8) != "fuzz.csv") __builtin_trap();
    return 0;
  }
  std::string again = std::string(tv::kMeasurementCacheVersionLine) + "\n" +
                      std::string(tv::kMeasurementCacheHeader) + "\n";
  for (const tv::MeasurementRecord& r : records)
    again += tv::format_record(r) + "\n";
  if (tv::parse_measurement_cache(again, "again.csv") != records) __builtin_trap();
  return 0;
}
