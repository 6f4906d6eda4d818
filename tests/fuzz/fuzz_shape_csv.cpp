// Fuzz target for the shape CSV reader (models/shape_file.hpp): any bytes must parse or raise
// InputError naming the source, never crash, hang or leak; what parses has sane shapes, and
// writing it back as CSV (when its names can be written) reads back the same shapes. Seeds in
// tests/fuzz/corpus/shape_csv/. Built by -DTILEVOLVE_FUZZ=ON; by hand:
//
//   clang++ -std=c++20 -O1 -g -fsanitize=fuzzer,address,undefined -I. \
//       tests/fuzz/fuzz_shape_csv.cpp models/shape_file.cpp models/csv_fields.cpp ir/shape.cpp \
//       $(pkg-config --libs fmt) -o /tmp/f
//   /tmp/f -max_total_time=60 tests/fuzz/corpus/shape_csv
#include "ir/error.hpp"
#include "models/csv_fields.hpp"
#include "models/shape_file.hpp"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  std::vector<tv::Shape> shapes;
  try {
    shapes = tv::parse_shape_csv(text, "fuzz.csv");
  } catch (const tv::InputError& e) {
    if (std::string_view(e.what()).substr(0, 8) != "fuzz.csv") __builtin_trap();
    return 0;
  }
  double sum = 0;
  for (const tv::Shape& s : shapes) {
    if (s.M < 1 || s.N < 1 || s.K < 1 || s.M > tv::kMaxShapeDim || s.N > tv::kMaxShapeDim ||
        s.K > tv::kMaxShapeDim || !(s.weight >= 0) || s.name.empty())
      __builtin_trap();
    sum += s.weight;
  }
  if (!(sum > 0) || !std::isfinite(sum)) __builtin_trap();
  std::string csv;
  try {
    csv = tv::format_shape_csv(shapes);
  } catch (const tv::InputError&) {
    return 0; // e.g. a name that starts with '#' in a file whose first column is not the name
  }
  if (tv::parse_shape_csv(csv, "again.csv") != shapes) __builtin_trap();
  return 0;
}
