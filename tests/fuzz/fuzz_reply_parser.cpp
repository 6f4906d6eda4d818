// Fuzz target: an LLM reply applied to a parent (evolve/mutators/reply_parser.hpp), and the
// child text it makes parsed as a program. Input: the reply, or "parent\0reply".
//   clang++ -std=c++20 -fsanitize=fuzzer,address -I. -DTILEVOLVE_VERSION='"0"' \
//     tests/fuzz/fuzz_reply_parser.cpp \
//     evolve/mutators/reply_parser.cpp evolve/mutators/excerpt.cpp ir/*.cpp \
//     $(pkg-config --libs fmt) -o /tmp/f && /tmp/f tests/fuzz/corpus/reply_parser
#include "evolve/mutators/reply_parser.hpp"
#include "ir/text.hpp"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::string_view kParent =
      "def choose(M, N, K):\n"
      "    if M <= 16:\n"
      "        return Config(BM=16, BN=64, BK=128, warps=4, stages=4, group=1)\n"
      "    return Config(BM=128, BN=128, BK=64, warps=4, stages=3, group=8)\n";
  const std::string_view in(reinterpret_cast<const char*>(data), size);
  std::string_view parent = kParent, reply = in;
  if (const auto nul = in.find('\0'); nul != std::string_view::npos) {
    parent = in.substr(0, nul);
    reply = in.substr(nul + 1);
  }
  const tv::ReplyEdit e = tv::edit_from_reply(reply, parent);
  if (e.ok()) (void)tv::parse_program(e.child_text);
  (void)tv::strip_thinking(reply);
  return 0;
}
