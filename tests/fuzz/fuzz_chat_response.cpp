// Fuzz target: a server's chat-completions response body (evolve/mutators/chat_response.hpp).
//   clang++ -std=c++20 -fsanitize=fuzzer,address -I. tests/fuzz/fuzz_chat_response.cpp \
//     evolve/mutators/chat_response.cpp evolve/mutators/excerpt.cpp \
//     $(pkg-config --libs fmt) -o /tmp/f && /tmp/f tests/fuzz/corpus/chat_response
#include "evolve/mutators/chat_response.hpp"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view body(reinterpret_cast<const char*>(data), size);
  (void)tv::parse_chat_response(body);
  (void)tv::error_message_of(body);
  return 0;
}
