// Fuzz target for the SEARCH/REPLACE engine (ir/diff.hpp). The input is a reply, or a program
// text and a reply separated by a NUL byte. parse_diff and apply_diff must never crash; apply
// reports one outcome per block; and format_diff of the parsed blocks parses back to the same
// blocks (issue 13: fence lines inside SEARCH text were lost). Seeds in
// tests/fuzz/corpus/diff/, tokens in tests/fuzz/diff.dict. Built by -DTILEVOLVE_FUZZ=ON; by hand:
//
//   clang++ -std=c++20 -O1 -g -fsanitize=fuzzer,address,undefined -I. \
//       tests/fuzz/fuzz_diff.cpp ir/diff.cpp -o /tmp/f
//   /tmp/f -max_total_time=60 -dict=tests/fuzz/diff.dict tests/fuzz/corpus/diff
#include "ir/diff.hpp"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const std::size_t nul = input.find('\0');
  const std::string_view text = nul == std::string_view::npos ? input : input.substr(0, nul);
  const std::string_view reply = nul == std::string_view::npos ? input : input.substr(nul + 1);

  const std::vector<tv::DiffBlock> blocks = tv::parse_diff(reply);
  const tv::DiffResult r = tv::apply_diff(text, blocks);
  if (r.blocks.size() != blocks.size()) __builtin_trap();
  // Applying the same blocks again to the result never crashes either (a second edit round).
  (void)tv::apply_diff(r.text, blocks);
  if (tv::parse_diff(tv::format_diff(blocks)) != blocks) __builtin_trap();
  return 0;
}
