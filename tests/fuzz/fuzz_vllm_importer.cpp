// Fuzz target for the vLLM/SGLang config importer (ir/exporters/vllm_importer.hpp): any bytes
// must either import or raise InputError, never crash, hang or leak; an imported program must
// give, at every M probed, the config of the key nearest to M (ties to the earlier key), and
// print and parse back. Not part of the CMake build. Seeds in tests/fuzz/corpus/vllm_importer/
// (a vLLM MoE file with triton_version and AMD knobs, keys out of order with ties, an SGLang file,
// a SPLIT_K field, a bad key). From the repository root:
//
//   clang++ -std=c++20 -O1 -g -fsanitize=fuzzer,address,undefined -I. \
//       tests/fuzz/fuzz_vllm_importer.cpp ir/exporters/vllm_importer.cpp \
//       ir/exporters/json_document.cpp ir/exporters/nearest_key.cpp ir/exporters/triton_meta.cpp \
//       ir/text*.cpp ir/program.cpp ir/condition.cpp ir/config.cpp $(pkg-config --libs fmt) \
//       -o /tmp/f
//   /tmp/f -max_total_time=30 -max_len=20000 tests/fuzz/corpus/vllm_importer
#include "ir/error.hpp"
#include "ir/exporters/nearest_key.hpp"
#include "ir/exporters/vllm_importer.hpp"
#include "ir/text.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    tv::VllmImportOptions o;
    o.drop_unknown_fields = size % 2 == 0;
    const tv::VllmImport imp = tv::import_vllm_config(text, "fuzz.json", o);
    if (imp.keys.empty()) __builtin_trap();
    // The config of each key, by probing the program at the key itself.
    const auto at = [](std::int64_t m) {
      tv::Shape s;
      s.M = m;
      return s;
    };
    std::vector<std::int64_t> probes;
    for (const std::int64_t k : imp.keys)
      for (const std::int64_t d : {-2, -1, 0, 1, 2})
        if (k + d >= 1 && k + d <= tv::kDimMax) probes.push_back(k + d);
    for (const std::int64_t m : probes)
      if (!(imp.program.choose(at(m)) == imp.program.choose(at(tv::nearest_key(imp.keys, m)))))
        __builtin_trap();
    const tv::ParseResult back = tv::parse_program(tv::print_program(imp.program));
    if (!back.ok() || !(*back.program == imp.program)) __builtin_trap();
  } catch (const tv::InputError&) {
  }
  return 0;
}
