// Fuzz target for the hipBLASLt log reader (models/workloads/hipblaslt_log.hpp): any bytes
// must either parse or raise InputError, never crash, hang or leak. Not part of the CMake
// build. Seeds in tests/fuzz/corpus/hipblaslt_log/ (sample serving lines, batched and bare-map
// entries, skipped entries, a malformed line). From the repository root:
//
//   clang++ -std=c++20 -O1 -g -fsanitize=fuzzer,address,undefined -I. \
//       tests/fuzz/fuzz_hipblaslt_log.cpp models/workloads/hipblaslt_log.cpp \
//       models/csv_fields.cpp ir/shape.cpp $(pkg-config --libs fmt yaml-cpp) -o /tmp/f
//   /tmp/f -max_total_time=30 -max_len=20000 tests/fuzz/corpus/hipblaslt_log
#include "ir/error.hpp"
#include "models/workloads/hipblaslt_log.hpp"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const tv::HipblasltLog log = tv::parse_hipblaslt_log(text, "fuzz.yaml", "fuzz");
    // What a caller does with the result: every shape is sane and the summary prints.
    for (const tv::Shape& s : log.shapes)
      if (s.M < 1 || s.N < 1 || s.K < 1 || !(s.weight > 0) || s.layout.size() != 2)
        __builtin_trap();
    (void)log.summary();
  } catch (const tv::InputError&) {
  }
  return 0;
}
