#pragma once
/// The fake worker (tests/fake_worker) as a worker command, for controller tests.
#include <string>

namespace tv::test {

/// A worker command template running the fake worker with `args` on device {device}.
inline std::string fake_worker_cmd(const std::string& args = "") {
  return std::string("'") + TILEVOLVE_FAKE_WORKER + "' --device {device}" +
         (args.empty() ? "" : " " + args);
}

} // namespace tv::test
