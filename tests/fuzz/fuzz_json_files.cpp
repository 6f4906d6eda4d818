// Fuzz target for the JSON files of tilevolve's own that a user may hand-edit and no other
// target reads: a run's config.json as `evolve --resume` reads it (evolve/run_dir.hpp, then its
// problem through problem_spec_from_json) and the model table (models/workloads/
// model_presets.hpp, data/models/models.json under TILEVOLVE_DATA). Any bytes must read or
// raise InputError naming the file, never crash, hang, leak or recurse as deep as they nest
// (issue 65). The first byte picks the reader (even: config.json, odd: the model table); the
// rest is the file. Seeds in tests/fuzz/corpus/json_files/ (deep nesting among them). Built by
// -DTILEVOLVE_FUZZ=ON (links the tv_ libraries).
#include "eval/problem.hpp"
#include "evolve/run_dir.hpp"
#include "ir/error.hpp"
#include "models/workloads/model_presets.hpp"
#include "tests/support/temp_dir.hpp"

#include <cstddef>
#include <cstdint>
#include <fstream>
#include <string>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  // Removed at exit (libFuzzer ends with exit() when its time or runs are up).
  static const tv::test::ScratchDir scratch("tilevolve_fuzz_json_files");
  const std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  try {
    if (data[0] % 2 == 0) {
      std::ofstream(scratch.at("config.json"), std::ios::binary | std::ios::trunc)
          .write(text.data(), std::streamsize(text.size()));
      const nlohmann::json cfg = tv::read_run_config(scratch.path);
      (void)tv::problem_spec_from_json(cfg["problem"], scratch.at("config.json"));
    } else {
      for (const tv::ModelPreset& m : tv::parse_model_table(text, "models.json"))
        (void)m.name.size();
    }
  } catch (const tv::InputError& e) {
    const std::string_view what = e.what();
    if (what.find("config.json") == std::string_view::npos &&
        what.find("models.json") == std::string_view::npos)
      __builtin_trap(); // a refusal that does not name the file
  }
  return 0;
}
