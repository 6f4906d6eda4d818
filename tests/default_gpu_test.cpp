// One default GPU: every command that takes a problem uses mi300x when --gpu is not given (the
// README's first command); the lecture keeps the course's H100 and says so in --help.
#include "support/shell.hpp"
#include "support/text_match.hpp"

#include "models/gpu.hpp"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>
#include <string>

// In a namespace of its own: the test files are compiled several to a unit (unity build).
namespace default_gpu_test {

namespace {

using tv::test::contains;
using tv::test::squeezed;

tv::test::ShellResult tilevolve(const std::string& args) {
  return tv::test::run_shell(std::string(TILEVOLVE_BINARY) + " " + args + " 2>/dev/null");
}

} // namespace

TEST_CASE("default_gpu: evolve, baselines and score agree on mi300x without --gpu") {
  const auto b = tilevolve("baselines --json");
  REQUIRE(b.status == 0);
  const auto bj = nlohmann::json::parse(b.out);
  CHECK(bj["problem"]["gpu"] == "mi300x");
  const auto e = tilevolve("evolve --budget 8 --json");
  REQUIRE(e.status == 0);
  const auto ej = nlohmann::json::parse(e.out);
  CHECK(ej["problem"]["gpu"] == "mi300x");
  // The same problem: the same baselines on the same test half.
  CHECK(ej["baselines"]["per_m_table"]["test"] == bj["methods"]["per_m_table"]["test"]);
  const auto s = tilevolve("score " + std::string(TILEVOLVE_SOURCE_DIR) +
                           "/data/experts/lecture_amd.py --json");
  REQUIRE(s.status == 0);
  const auto sj = nlohmann::json::parse(s.out);
  CHECK(sj["problem"]["gpu"] == "mi300x");
  CHECK(sj["train"]["speedup_vs_expert"].get<double>() == doctest::Approx(1.0)); // AMD expert
}

TEST_CASE("default_gpu: --help shows mi300x for every problem command, h100 for the lecture") {
  for (const char* cmd :
       {"evolve", "baselines", "score", "splits", "ablate", "measure", "export"}) {
    INFO(cmd);
    const auto h = tilevolve(std::string(cmd) + " --help");
    CHECK(h.status == 0);
    CHECK(contains(h.out, "=mi300x"));
  }
  const auto l = tilevolve("lecture --help");
  CHECK(l.status == 0);
  CHECK(contains(l.out, "--gpu TEXT=h100"));
  CHECK(contains(squeezed(l.out), "this command's default; the other commands default to mi300x"));
}

TEST_CASE("default_gpu: --help lists every profile of data/gpus, a100 included") {
  std::string want;
  for (const std::string& name : tv::known_gpus())
    want += (want.empty() ? "" : ", ") + name;
  CHECK(contains(want, "a100, h100"));
  for (const char* command : {"evolve", "splits", "baselines", "lecture"}) {
    INFO(command);
    const auto help = tilevolve(std::string(command) + " --help");
    REQUIRE(help.status == 0);
    CHECK(contains(squeezed(help.out), "a name from data/gpus (" + want + ")"));
  }
}

} // namespace default_gpu_test
