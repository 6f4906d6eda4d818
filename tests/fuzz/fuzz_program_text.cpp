// Fuzz target for the program parser (ir/text.hpp): any bytes must parse or give a ParseError
// with a position inside the text, never crash, hang or leak; what parses prints back to text
// that parses to the same program (and prints the same again), and its wave guards
// (ir/wave_guards.hpp) keep every sample shape's config and print to text that parses. Seeds in
// tests/fuzz/corpus/program_text/, tokens in tests/fuzz/program_text.dict. Built by
// -DTILEVOLVE_FUZZ=ON (scripts/test.sh); by hand from the repository root:
//
//   clang++ -std=c++20 -O1 -g -fsanitize=fuzzer,address,undefined -I. -DTILEVOLVE_VERSION='"0"' \
//       tests/fuzz/fuzz_program_text.cpp ir/*.cpp $(pkg-config --libs fmt) -o /tmp/f
//   /tmp/f -max_total_time=60 -dict=tests/fuzz/program_text.dict tests/fuzz/corpus/program_text
#include "ir/text.hpp"
#include "ir/wave_guards.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

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
  // Wave guards over a few shapes from the input's own bytes: every shape keeps its config, and
  // the guarded program stays within the language (derived features included).
  std::vector<tv::Shape> shapes;
  for (std::size_t i = 0; i + 2 < size && shapes.size() < 8; i += 3) {
    tv::Shape s;
    s.M = 1 + std::int64_t(data[i]) * 37;
    s.N = 1 + std::int64_t(data[i + 1]) * 61;
    s.K = 1 + std::int64_t(data[i + 2]) * 13;
    shapes.push_back(s);
  }
  const int units = 1 + int(size % 304);
  const tv::GuardedWaves g = tv::guard_waves(*r.program, shapes, units);
  for (const tv::Shape& s : shapes)
    if (!(g.program.choose(s) == r.program->choose(s))) __builtin_trap();
  const tv::ParseResult guarded = tv::parse_program(tv::print_program(g.program));
  if (!guarded.ok() || !(*guarded.program == g.program)) __builtin_trap();
  return 0;
}
