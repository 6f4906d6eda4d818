// Regression tests for what the fuzz targets in tests/fuzz/ found, each with the exact input
// (also kept in the target's seed corpus, tests/fuzz/corpus/<reader>/regression_*).
#include "eval/measurement_cache.hpp"
#include "eval/problem.hpp"
#include "evolve/checkpoint.hpp"
#include "evolve/evolution.hpp"
#include "evolve/mock_llm.hpp"
#include "evolve/mutators/exchange_log.hpp"
#include "ir/error.hpp"
#include "models/data_dir.hpp"

#include "support/shell.hpp"
#include "support/temp_dir.hpp"

#include <doctest/doctest.h>
#include <fstream>
#include <string>

// In a namespace of its own: the test files are compiled several to a unit (unity build).
namespace fuzz_regressions_test {

using namespace tv;

namespace {

/// Found by fuzz_measurement_cache: a quoted gpu field holding NUL bytes and a carriage return
/// parsed, but format_record wrote it back differently (it turns line breaks into spaces).
const std::string kControlCharacterInField(
    "\xef\xbb\xbf# tilevolve-measurements v1\x0d\x0agpu,M,N,K,dtype,BM,BN,BK,warps,stages,"
    "group,waves_per_eu,matrix_instr_nonkdim,kpack,status,seconds,detail\x0d\x0a\"odd,gp\x00"
    "\x00\x00\x00\x00x\x00\x00\x00\x00\x00!1 \xb9\x00\x00\x00\x00\x00\x00\x00\x00rix_instr"
    "_nonkdim,kpack,status,seconds,detail\x0d\x00\x00\x00\x00\x00\x80\x00\x00\x00\x00\x00\x00"
    "\xf9\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x09\x09\x09\x09"
    "\x09\x09\x09\x09\x09\x09\x09\x09\x09\x09\x09\x09\x09\x09\x09u\",7,3,1,f32,16,16,16,1,"
    "1,1,0,,,timeout,,\x0d\x0ah1qe\x00  \"z  \x00 a\x00\x00"
    "00\x91\x91\x91\x91\x91\x91\x91"
    "\x91                            \x91\x91\x91\x91\x91\x91\x91\x91\x91\x91\x91\x91\x91\x91"
    "\x91\x91\x91\x91\x91\xff\xff\xffw\x91(\x91\x91\x91\x91\x91\x91\x91\x91\x91\x91\x91\x91"
    "\x91\x91\x91\x91\x91\x91\x91\x91\x91\x91\x91\x91\x91\x91\x91\x91\x91\x91\x91\x91\x91\x91"
    "\x91\x91\x91\x91\x91\x91\x91\x91,1,1,1,bf16,16,16,16,1,1,1,,,,ok,   1e-9,\xd2Rn&\xfe\x7f"
    "\x00\x00 \x0d \x0a",
    481);

/// What fuzz_checkpoint does with one input: the state wrapped in a valid envelope for a small
/// run (4 inline shapes, analytic h100, split none, budget 0), then resumed. Returns the
/// InputError message ("" when the run resumed).
std::string resume_with_state(const std::string& state_text) {
  ProblemSpec spec;
  spec.gpu = "h100";
  spec.inline_shapes = {"1,4096,4096", "16,4096,4096", "128,4096,4096", "4096,4096,4096"};
  spec.split = "none";
  const auto problem = load_problem(spec);
  MockLlm mutator(problem->gpu, mock_options_for(*problem, {}));
  EvolutionOptions options;
  options.budget = 0;
  options.checkpoint_every = 8;
  test::ScratchDir dir("tilevolve_fuzz_regression");
  const std::string fp = run_fingerprint(Evolution::run_config(*problem, mutator, options));
  dir.write("checkpoint.json", checkpoint_text(nlohmann::json::parse(state_text), fp));
  dir.write("events.ndjson", "");
  try {
    Evolution(*problem, mutator, options, dir.path).resume();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

} // namespace

TEST_CASE("fuzz regressions: a measurement field with control characters is refused") {
  std::string message;
  try {
    parse_measurement_cache(kControlCharacterInField, "m.csv");
  } catch (const InputError& e) {
    message = e.what();
  }
  CHECK(message == "m.csv:3: gpu holds the control character \\x00 (expected printable text)");
  // A tab stays allowed, and a carriage return inside a field is refused too.
  const std::string top = std::string(kMeasurementCacheVersionLine) + "\n" +
                          std::string(kMeasurementCacheHeader) + "\n";
  const std::string row = "h100,128,4096,4096,bf16,128,128,64,4,3,8,,,,ok,1e-05,";
  CHECK(parse_measurement_cache(top + row + "a\tb\n", "m.csv").at(0).result.detail == "a\tb");
  try {
    parse_measurement_cache(top + row + "\"a\rb\"\n", "m.csv");
    FAIL("a carriage return inside a field was accepted");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()) ==
          "m.csv:3: detail holds the control character \\x0d (expected printable text)");
  }
}

TEST_CASE("fuzz regressions: a checkpoint number too large for its integer is refused") {
  // Found by fuzz_checkpoint: "seen" held 4286454987783536553814, which nlohmann reads as a
  // double; get<std::uint64_t>() cast it (undefined behaviour, reported by UBSan).
  const std::string exact = test::read_text(
      std::string(TILEVOLVE_SOURCE_DIR) + "/tests/fuzz/corpus/checkpoint/regression_float_id.json");
  REQUIRE(exact.size() == 18600);
  CHECK(resume_with_state(exact) ==
        "checkpoint: field 'seen' has the wrong type (element 4: expected an integer)");
  // The same for every integer field and for negative, fractional and huge values.
  CHECK(resume_with_state(R"({"seeded": true, "done": 1.5})") ==
        "checkpoint: field 'done' has the wrong type (expected an integer)");
  CHECK(resume_with_state(R"({"seeded": true, "done": 0, "next_id": -1})") ==
        "checkpoint: field 'next_id' has the wrong type (expected a non-negative integer in "
        "range)");
  CHECK(resume_with_state(R"({"seeded": true, "done": 0, "next_id": 1e300})") ==
        "checkpoint: field 'next_id' has the wrong type (expected an integer)");
  CHECK(resume_with_state(R"({"seeded": "yes"})") ==
        "checkpoint: field 'seeded' has the wrong type (expected true or false)");
}

TEST_CASE("fuzz regressions: an exchange record with a status out of int's range is refused") {
  // Found by fuzz_exchange_log: "status": 4.29e58 reached nlohmann's get<int>(), a cast of a
  // double out of range (undefined behaviour, reported by UBSan).
  const std::string exact =
      test::read_text(std::string(TILEVOLVE_SOURCE_DIR) +
                      "/tests/fuzz/corpus/exchange_log/regression_status_out_of_range.ndjson");
  REQUIRE(exact.size() == 1226);
  std::string message;
  try {
    std::uint64_t valid = 0;
    (void)ExchangeRecording::parse(exact, "x.ndjson", &valid);
  } catch (const InputError& e) {
    message = e.what();
  }
  CHECK(message == "x.ndjson:1: field 'status' has the wrong type (expected an integer)");
  // An integer too large for int is refused as well, and a plain one still reads.
  const std::string line = "{\"request\": 0, \"model\": \"m\", \"digest\": \"d\", \"body\": \"b\", "
                           "\"attempt\": 0, \"final\": true, \"status\": STATUS, \"outcome\": "
                           "\"ok\", \"error\": \"\", \"reply\": \"r\", \"prompt_tokens\": 1, "
                           "\"completion_tokens\": 1, \"usage\": true, \"latency_s\": 0.1, "
                           "\"retry_after_s\": 0, \"wait_s\": 0}\n";
  const auto with_status = [&](const std::string& status) {
    std::string text = line;
    text.replace(text.find("STATUS"), 6, status);
    try {
      std::uint64_t valid = 0;
      (void)ExchangeRecording::parse(text, "x.ndjson", &valid);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  CHECK(with_status("200") == "");
  CHECK(with_status("4294967296") ==
        "x.ndjson:1: field 'status' has the wrong type (the integer is out of range)");
}

} // namespace fuzz_regressions_test
