// The reference Triton worker (eval/workers/triton_worker.py) on a machine without a GPU: it
// must compile, and without torch its protocol loop must still answer, every stdout line a
// reply, so the controller can say what is missing.
#include "support/shell.hpp"
#include "support/temp_dir.hpp"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <sstream>
#include <string>
#include <vector>

// In a namespace of its own: the test files are compiled several to a unit (unity build).
namespace triton_worker_test {

namespace {

const std::string kWorker = std::string(TILEVOLVE_SOURCE_DIR) + "/eval/workers/triton_worker.py";

bool torch_importable() {
  return tv::test::run_shell("python3 -c 'import torch' >/dev/null 2>&1").status == 0;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line))
    out.push_back(line);
  return out;
}

} // namespace

TEST_CASE("triton_worker: the Python worker compiles") {
  tv::test::ScratchDir dir("tv_worker");
  const auto r = tv::test::run_shell(
      "python3 -c \"import py_compile, sys; py_compile.compile(sys.argv[1], cfile=sys.argv[2], "
      "doraise=True)\" '" +
      kWorker + "' '" + dir.at("w.pyc") + "' 2>&1");
  INFO(r.out);
  CHECK(r.status == 0);
}

TEST_CASE("triton_worker: without torch it answers every request with the reason, on stdout "
          "only replies") {
  if (torch_importable()) {
    MESSAGE("torch is importable here: this check is for machines without it (the GPU check "
            "is scripts/gpu-check.sh)");
    return;
  }
  tv::test::ScratchDir dir("tv_worker");
  const std::string input = dir.write(
      "in.txt", "{\"id\": 0, \"op\": \"hello\", \"protocol\": 1}\n"
                "not json at all\n"
                "{\"id\": 7, \"op\": \"measure\", \"M\": 8, \"N\": 8, \"K\": 8, \"dtype\": "
                "\"bf16\", \"layout\": \"NN\", \"config\": \"vendor\", \"warmup\": 1, \"reps\": "
                "2}\n"
                "{\"id\": 8, \"op\": \"shutdown\"}\n"
                "{\"id\": 9, \"op\": \"measure\"}\n");
  const auto r = tv::test::run_shell("python3 '" + kWorker + "' --device 0 < '" + input + "' 2>'" +
                                     dir.at("err.txt") + "'");
  CHECK(r.status == 0);
  const auto lines = lines_of(r.out);
  REQUIRE(lines.size() == 2); // hello and measure; the garbage line is logged, nothing after
  const auto hello = nlohmann::json::parse(lines[0]);
  CHECK(hello["id"] == 0);
  CHECK(hello["status"] == "error");
  CHECK(hello["protocol"] == 1);
  CHECK(hello["detail"].get<std::string>().rfind("torch not importable", 0) == 0);
  const auto measure = nlohmann::json::parse(lines[1]);
  CHECK(measure["id"] == 7);
  CHECK(measure["status"] == "error");
  CHECK(!measure.contains("seconds"));
  const std::string err = tv::test::read_text(dir.at("err.txt"));
  CHECK(err.find("ignoring a line that is not a request") != std::string::npos);
}

TEST_CASE("triton_worker: the controller reports a worker that cannot run, with its reason") {
  if (torch_importable()) {
    MESSAGE("torch is importable here: skipped (see scripts/gpu-check.sh)");
    return;
  }
  const std::string bin = TILEVOLVE_BINARY;
  const auto devices = tv::test::run_shell(bin + " devices --devices 0 2>&1");
  CHECK(devices.status == 1);
  CHECK(devices.out.find("failed") != std::string::npos);
  CHECK(devices.out.find("the worker cannot run: torch not importable") != std::string::npos);
  tv::test::ScratchDir dir("tv_worker");
  const auto evolve = tv::test::run_shell(bin + " evolve --backend measured --devices 0 --cache '" +
                                          dir.at("m.csv") + "' --budget 10 2>&1");
  CHECK(evolve.status == 2);
  CHECK(evolve.out.find("tilevolve: error: no worker started") != std::string::npos);
  CHECK(evolve.out.find("torch not importable") != std::string::npos);
}

} // namespace triton_worker_test
