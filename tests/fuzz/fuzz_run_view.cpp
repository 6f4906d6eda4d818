// Fuzz target for the dashboard's run directory reader (serve/run_view.hpp with the event
// follower, per_shape.json and config.json readers): any bytes in a run's files must give a
// state, never a crash, hang or leak; and following the stream in two steps must give the
// same state as reading it at once. Not part of the CMake build. The input is split at 0x01
// bytes into events.ndjson, per_shape.json and config.json. Seeds in
// tests/fuzz/corpus/run_view/. From the repository root, after ./scripts/build.sh (eval and
// models come from the build's static libraries: the reader only calls their static-reject
// reason classifier, and Debian's clang 14 does not compile models/workloads/model_presets.cpp):
//
//   clang++ -std=c++20 -O1 -g -fsanitize=fuzzer,address,undefined -fopenmp -I. \
//       -DTILEVOLVE_VERSION='"0"' tests/fuzz/fuzz_run_view.cpp serve/run_view.cpp \
//       serve/event_follower.cpp serve/watched_file.cpp serve/per_shape_view.cpp \
//       serve/program_view.cpp serve/line_diff.cpp serve/path_safety.cpp ir/*.cpp \
//       build/libtv_eval.a build/libtv_models.a $(pkg-config --libs fmt yaml-cpp) -o /tmp/f
//   /tmp/f -max_total_time=60 -max_len=20000 tests/fuzz/corpus/run_view
#include "serve/run_view.hpp"
#include "tests/support/temp_dir.hpp"

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

namespace {

void write(const std::filesystem::path& p, std::string_view text) {
  std::ofstream(p, std::ios::binary | std::ios::trunc)
      .write(text.data(), std::streamsize(text.size()));
}

/// The part of the state that must not depend on how the stream was read.
nlohmann::json stable(const tv::RunView& v) {
  nlohmann::json s = v.state();
  s.erase("updated_seconds_ago");
  s.erase("status"); // depends on the clock
  return s;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // Removed at exit (libFuzzer ends with exit() when its time or runs are up).
  static const tv::test::ScratchDir scratch("tilevolve_fuzz_run_view");
  const std::filesystem::path dir = scratch.path;
  const std::string_view in(reinterpret_cast<const char*>(data), size);
  std::string_view parts[3];
  std::size_t start = 0;
  for (int i = 0; i < 3 && start <= in.size(); ++i) {
    const std::size_t end = i == 2 ? in.size() : std::min(in.find('\x01', start), in.size());
    parts[i] = in.substr(start, end - start);
    start = end + 1;
  }
  write(dir / "per_shape.json", parts[1]);
  write(dir / "config.json", parts[2]);

  // Half of the stream, then all of it.
  write(dir / "events.ndjson", parts[0].substr(0, parts[0].size() / 2));
  tv::RunView step(dir, "fuzz");
  step.update();
  (void)step.state().dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  write(dir / "events.ndjson", parts[0]);
  step.update();
  tv::RunView once(dir, "fuzz");
  once.update();
  const auto a = stable(step), b = stable(once);
  (void)a.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  (void)once.per_shape().dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  if (a["counters"] != b["counters"] || a["improvements"] != b["improvements"] ||
      a["lineage"] != b["lineage"] || a["best"] != b["best"])
    __builtin_trap();
  return 0;
}
