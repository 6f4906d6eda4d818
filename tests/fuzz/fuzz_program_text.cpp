// Fuzz target for the program parser (ir/text.hpp): any bytes must parse or give a ParseError
// with a position inside the text, never crash, hang or leak; what parses prints back to text
// that parses to the same program (and prints the same again). Seeds in
// tests/fuzz/corpus/program_text/, tokens in tests/fuzz/program_text.dict. Built by
// -DTILEVOLVE_FUZZ=ON (scripts/test.sh); by hand from the repository root:
//
//   clang++ -std=c++20 -O1 -g -fsanitize=fuzzer,address,undefined -I. \
//       tests/fuzz/fuzz_program_text.cpp ir/*.cpp $(pkg-config --libs fmt) -o /tmp/f
//   /tmp/f -max_total_time=60 -dict=tests/fuzz/program_text.dict tests/fuzz/corpus/program_text
#include "ir/text.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const tv::ParseResult r = tv::parse_program(text);
  if (!r.ok()) {
    if (!r.error || r.error->line < 1 || r.error->col < 1 || r.error->message.empty())
      __builtin_trap();
    return 0;
  }
  const std::string printed = tv::print_program(*r.program);
  const tv::ParseResult again = tv::parse_program(printed);
  if (!again.ok() || !(*again.program == *r.program)) __builtin_trap();
  if (tv::print_program(*again.program) != printed) __builtin_trap();
  for (const tv::Rule& rule : r.program->rules) {
    const auto c = tv::parse_config(tv::print_config(rule.config));
    if (!c || !(*c == rule.config)) __builtin_trap();
  }
  return 0;
}
