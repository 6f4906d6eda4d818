// Fuzz target: a user's prompt template (evolve/mutators/prompt_template.hpp); InputError is
// the expected answer to bad text.
//   clang++ -std=c++20 -fsanitize=fuzzer,address -I. tests/fuzz/fuzz_prompt_template.cpp \
//     evolve/mutators/prompt_template.cpp evolve/mutators/excerpt.cpp \
//     $(pkg-config --libs fmt) -o /tmp/f && /tmp/f tests/fuzz/corpus/prompt_template
#include "evolve/mutators/prompt_template.hpp"
#include "ir/error.hpp"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::vector<std::string> known{"parent", "gpu_limits", "units"};
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const auto t = tv::PromptTemplate::parse(text, "fuzz.txt", known, {"parent"});
    (void)t.fill({{"parent", "def choose(M, N, K):"}, {"gpu_limits", "-"}, {"units", "132"}});
  } catch (const tv::InputError&) {
  }
  return 0;
}
