// Strict JSON reading (models/json_text.hpp) and the readers built on it: GPU profiles, the
// model table, AutoHeuristic headers, checkpoints. Issue 13: a repeated key was accepted (one of
// the values silently won).
#include "eval/autoheuristic_data.hpp"
#include "evolve/checkpoint.hpp"
#include "ir/error.hpp"
#include "models/gpu.hpp"
#include "models/json_text.hpp"
#include "models/workloads/model_presets.hpp"

#include "support/fixtures.hpp"
#include "support/shell.hpp"

#include <doctest/doctest.h>
#include <functional>
#include <string>

// In a namespace of its own: the test files are compiled several to a unit (unity build).
namespace json_text_test {

using namespace tv;

namespace {

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

std::string parse_error(const std::string& text) {
  return error_of([&] { parse_json_text(text, "f.json"); });
}

} // namespace

TEST_CASE("json_text: repeated keys are refused with their position and object") {
  CHECK(parse_error("{\"a\": 1, \"b\": 2}") == "");
  CHECK(parse_error("{\"a\": 1, \"a\": 2}") ==
        "f.json:1:13: duplicate key 'a' in the top-level object (a JSON object must not repeat a "
        "key)");
  CHECK(parse_error("{\"x\": {\"y\": [1, {\"k\": 1,\n \"k\": 2}]}}") ==
        "f.json:2:5: duplicate key 'k' in object 'x.y[1]' (a JSON object must not repeat a key)");
  // The same key in two objects is fine.
  CHECK(parse_error("{\"x\": {\"k\": 1}, \"y\": {\"k\": 1}, \"z\": [{\"k\": 1}, {\"k\": 2}]}") ==
        "");
  CHECK(parse_error("{\"a\": 1}").empty());
  CHECK(parse_json_text("{\"a\": [1, 2.5, \"s\", null, true]}", "f")["a"][1] == 2.5);
}

TEST_CASE("json_text: malformed text names the line and column") {
  CHECK(parse_error("{\n  \"a\": ,\n}").find("f.json:2:8: malformed JSON: syntax error") == 0);
  CHECK(parse_error("").find("f.json:1:1: malformed JSON") == 0);
  CHECK(parse_error("{\"a\": 1e999}").find("f.json:1:7: malformed JSON: number overflow") == 0);
  CHECK(parse_error(std::string("{\"a\": \"\xff\xfe\"}")).find("malformed JSON") !=
        std::string::npos);
  CHECK(parse_error(std::string("\0\1\2", 3)).find("f.json:1:1: malformed JSON") == 0);
  CHECK(parse_error("{\"a\": NaN}").find("malformed JSON") != std::string::npos);
  // Nesting is bounded while parsing (issue 65: memory grew with the square of the depth).
  CHECK(parse_error(std::string(100000, '[')) ==
        "f.json:1:513: JSON nested deeper than 512 levels");
  CHECK(text_position("ab\ncd", 4) == "2:2");
  CHECK(text_position("ab\ncd", 0) == "1:1");
  CHECK(text_position("ab", 99) == "1:3");
}

TEST_CASE("json_text: every JSON reader refuses a repeated key") {
  // GPU profile.
  std::string profile = test::read_text(data_path("gpus/h100.json"));
  const auto at = profile.find("\"units\": 132,");
  REQUIRE(at != std::string::npos);
  profile.insert(at, "\"units\": 1,\n  ");
  std::string e = error_of([&] { parse_gpu_profile(profile, "h100.json"); });
  CHECK(e.find("h100.json:6:") == 0);
  CHECK(e.find("duplicate key 'units' in the top-level object") != std::string::npos);
  // Model table.
  e = error_of([] {
    parse_model_table("{\"format\": \"tilevolve-models\", \"version\": 1, \"version\": 1}",
                      "m.json");
  });
  CHECK(e.find("m.json:1:") == 0);
  CHECK(e.find("duplicate key 'version'") != std::string::npos);
  // AutoHeuristic header line.
  e = error_of(
      [] { parse_autoheuristic("{\"name\": \"mm\", \"name\": \"bmm\"}\nm,k,n\n", "ah.txt"); });
  CHECK(e.find("ah.txt:1: expected a JSON object describing the dataset (column ") == 0);
  CHECK(e.find("duplicate key 'name'") != std::string::npos);
  // Checkpoint: a repeated key inside the state.
  const std::string fp = "0123456789abcdef";
  std::string cp = checkpoint_text({{"done", 1}}, fp);
  CHECK(checkpoint_state(cp, "cp.json", fp)["done"] == 1);
  cp.replace(cp.find("{\"done\":1}"), 10, "{\"done\":1,\"done\":2}");
  e = error_of([&] { checkpoint_state(cp, "cp.json", fp); });
  CHECK(e.find("corrupt or truncated checkpoint: cp.json:1:") == 0);
  CHECK(e.find("duplicate key 'done' in object 'state'") != std::string::npos);
}

TEST_CASE("json_text: the checkpoint envelope is checked field by field") {
  const std::string fp = "00000000000000aa";
  const std::string good = checkpoint_text({{"x", 1}}, fp);
  const auto err = [&](const std::string& text, const std::string& want) {
    const std::string e = error_of([&] { checkpoint_state(text, "cp.json", fp); });
    INFO(e);
    CHECK(e.find(want) != std::string::npos);
  };
  err(good.substr(0, good.size() / 2), "corrupt or truncated checkpoint: cp.json:1:");
  err("{\"format\": 7}", "not a tilevolve checkpoint");
  err("{\"format\": \"tilevolve-checkpoint\"}", "version (none) is not supported");
  err("{\"format\": \"tilevolve-checkpoint\", \"version\": \"2\"}",
      "version \"2\" is not supported");
  err("{\"format\": \"tilevolve-checkpoint\", \"version\": 2, \"state\": 5}", "checksum mismatch");
  CHECK(error_of([&] {
          checkpoint_state(good, "cp.json", "ffffffffffffffff");
        }).find("different run configuration") != std::string::npos);
}

} // namespace json_text_test
