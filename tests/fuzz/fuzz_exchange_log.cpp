// Fuzz target: a recorded exchange log (evolve/mutators/exchange_log.hpp), as --llm replay:
// and --resume read it; InputError is the expected answer to a damaged file.
//   clang++ -std=c++20 -fsanitize=fuzzer,address -I. tests/fuzz/fuzz_exchange_log.cpp \
//     evolve/mutators/exchange_log.cpp evolve/mutators/chat_attempt.cpp \
//     evolve/mutators/excerpt.cpp $(pkg-config --libs fmt) -o /tmp/f && \
//     /tmp/f tests/fuzz/corpus/exchange_log
#include "evolve/mutators/exchange_log.hpp"
#include "ir/error.hpp"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    std::uint64_t valid = 0;
    const auto rec = tv::ExchangeRecording::parse(text, "fuzz.ndjson", &valid);
    for (std::uint64_t n = 0; n < 4; ++n)
      for (const auto& r : rec.of(n))
        (void)tv::record_line(r);
  } catch (const tv::InputError&) {
  }
  return 0;
}
