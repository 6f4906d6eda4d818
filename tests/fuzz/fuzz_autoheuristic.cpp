// Fuzz target for the PyTorch AutoHeuristic table reader (eval/autoheuristic_data.hpp), the
// replay backend's other format: any bytes must parse or raise InputError naming the source,
// never crash, hang or leak; rows that parse have sane sizes, layouts and times, and
// inductor_shrink keeps their configs sane. Seeds in tests/fuzz/corpus/autoheuristic/. Built by
// -DTILEVOLVE_FUZZ=ON; by hand:
//
//   clang++ -std=c++20 -O1 -g -fsanitize=fuzzer,address,undefined -I. \
//       tests/fuzz/fuzz_autoheuristic.cpp eval/autoheuristic_data.cpp models/csv_fields.cpp \
//       models/json_text.cpp ir/shape.cpp ir/config.cpp $(pkg-config --libs fmt) -o /tmp/f
//   /tmp/f -max_total_time=60 tests/fuzz/corpus/autoheuristic
#include "eval/autoheuristic_data.hpp"
#include "ir/error.hpp"
#include "models/csv_fields.hpp"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  tv::AutoHeuristicData d;
  try {
    d = tv::parse_autoheuristic(text, "fuzz.txt");
  } catch (const tv::InputError& e) {
    if (std::string_view(e.what()).substr(0, 8) != "fuzz.txt") __builtin_trap();
    return 0;
  }
  for (const tv::AutoHeuristicRow& r : d.rows) {
    if (r.M < 1 || r.N < 1 || r.K < 1 || r.M > tv::kMaxShapeDim || r.layout.size() != 2)
      __builtin_trap();
    if (r.seconds && !(*r.seconds >= tv::kMinKernelSeconds && *r.seconds <= tv::kMaxKernelSeconds))
      __builtin_trap();
    if (r.config) {
      const tv::Config c = tv::inductor_shrink(*r.config, r.M, r.N, r.K);
      if (c.BM < 16 || c.BN < 16 || c.BK < 16 || c.warps < 1 || c.BM > r.config->BM + 16)
        __builtin_trap();
    }
  }
  return 0;
}
