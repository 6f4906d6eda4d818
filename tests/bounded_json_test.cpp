// The one bounded reading path for untrusted JSON (ir/bounded_json.hpp), issue 65: nesting is
// refused past kMaxJsonDepth while the text is parsed, with the file, line and column; the
// reader itself does not recurse (a document nested 200,000 deep reads when the limit allows
// it); repeated keys are refused with the object's path or the last one kept; keys keep their
// file order in linear time.
#include "ir/bounded_json.hpp"
#include "ir/error.hpp"

#include <chrono>
#include <doctest/doctest.h>
#include <string>

// In a namespace of its own: the test files are compiled several to a unit (unity build).
namespace bounded_json_test {

using namespace tv;

namespace {

/// `depth` arrays inside one another, around `inner`.
std::string nested_arrays(std::size_t depth, const std::string& inner = "") {
  return std::string(depth, '[') + inner + std::string(depth, ']');
}

std::string error_of(const std::string& text, const JsonReadOptions& o = {}) {
  try {
    read_json(text, "f.json", o);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

JsonReadError::Kind kind_of(const std::string& text, const JsonReadOptions& o = {}) {
  try {
    read_json(text, "f.json", o);
  } catch (const JsonReadError& e) {
    return e.kind;
  }
  FAIL("read without an error: " << text.substr(0, 40));
  return JsonReadError::Kind::malformed;
}

} // namespace

TEST_CASE("bounded json: nesting up to kMaxJsonDepth reads, one level more is refused where "
          "it opens") {
  static_assert(kMaxJsonDepth == 512);
  CHECK(read_json(nested_arrays(512, "1"), "f.json").dump() == nested_arrays(512, "1"));
  CHECK(error_of(nested_arrays(513)) == "f.json:1:513: JSON nested deeper than 512 levels");
  CHECK(kind_of(nested_arrays(513)) == JsonReadError::Kind::too_deep);
  // Objects count as arrays do; the position is the line and column of the brace.
  std::string objects = "{\n";
  for (int i = 0; i < 600; ++i)
    objects += "\"a\": {";
  CHECK(error_of(objects) == "f.json:2:3072: JSON nested deeper than 512 levels");
  // Refused where it goes over, before the parser reaches a syntax error further on.
  CHECK(error_of(std::string(1000000, '[')) == "f.json:1:513: JSON nested deeper than 512 levels");
  // A smaller limit where a reader wants one.
  JsonReadOptions o;
  o.max_depth = 2;
  CHECK(error_of("[[1], [[2]]]", o) == "f.json:1:8: JSON nested deeper than 2 levels");
  CHECK(read_json("[[1], [2]]", "f.json", o).size() == 2);
}

TEST_CASE("bounded json: the reader keeps its own stack: 200,000 levels read when allowed, "
          "and 1,000,000 are refused at once") {
  JsonReadOptions o;
  o.max_depth = 200000;
  const nlohmann::json deep = read_json(nested_arrays(200000), "f.json", o);
  CHECK(deep.is_array());
  // (Destroying it is iterative in nlohmann::json 3.11; dumping it would not be.)
  const auto start = std::chrono::steady_clock::now();
  CHECK(kind_of("{\"splits\": " + nested_arrays(1000000) + "}") == JsonReadError::Kind::too_deep);
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(2));
}

TEST_CASE("bounded json: syntax errors and numbers out of range name the line and column") {
  CHECK(error_of("{\n  \"a\": ,\n}").find("f.json:2:8: malformed JSON: syntax error") == 0);
  CHECK(error_of("").find("f.json:1:1: malformed JSON") == 0);
  CHECK(error_of("{\"a\":\n   1e999}") ==
        "f.json:2:4: malformed JSON: number overflow parsing '1e999'");
  CHECK(error_of("[1] [2]").find("f.json:1:5: malformed JSON: syntax error") == 0);
  CHECK(kind_of("{\"a\": NaN}") == JsonReadError::Kind::malformed);
  JsonReadOptions o;
  o.malformed = "not valid JSON";
  CHECK(error_of("[", o).find("f.json:1:2: not valid JSON: ") == 0);
}

TEST_CASE("bounded json: a repeated key is refused with its object's path, or the last kept") {
  CHECK(error_of("{\"a\": 1, \"a\": 2}") ==
        "f.json:1:13: duplicate key 'a' in the top-level object (a JSON object must not "
        "repeat a key)");
  CHECK(error_of("{\"x\": {\"y\": [0, {\"k\": 1,\n\"k\": 2}]}}") ==
        "f.json:2:4: duplicate key 'k' in object 'x.y[1]' (a JSON object must not repeat a key)");
  CHECK(error_of("[{}, [{\"b\": {\"c\": 1, \"c\": 1}}]]").find("in object '[1][0].b'") !=
        std::string::npos);
  CHECK(kind_of("{\"a\": 1, \"a\": 2}") == JsonReadError::Kind::duplicate_key);
  JsonReadOptions last;
  last.duplicate_keys = DuplicateKeys::keep_last;
  CHECK(read_json("{\"a\": 1, \"b\": 3, \"a\": {\"z\": 2}}", "f.json", last) ==
        nlohmann::json::parse("{\"a\": {\"z\": 2}, \"b\": 3}"));
  const nlohmann::ordered_json o =
      read_ordered_json("{\"b\": 1, \"a\": 2, \"b\": [3]}", "f.json", last);
  CHECK(o.dump() == "{\"b\":[3],\"a\":2}");
  CHECK(error_of("{\"b\": 1, \"a\": 2, \"b\": [3]}").find("duplicate key 'b'") !=
        std::string::npos);
}

TEST_CASE("bounded json: an ordered document keeps the file's key order, in linear time") {
  const nlohmann::ordered_json small =
      read_ordered_json("{\"z\": 1, \"a\": [true, null, \"s\", -2, 3.5], \"m\": {}}", "f.json");
  CHECK(small.dump() == "{\"z\":1,\"a\":[true,null,\"s\",-2,3.5],\"m\":{}}");
  // 200,000 keys: nlohmann::ordered_json::parse looks each up in a vector (minutes); an index
  // per object makes it linear.
  std::string text = "{";
  for (int i = 0; i < 200000; ++i)
    text += (i ? ",\"" : "\"") + std::to_string(i) + "\":" + std::to_string(i);
  text += "}";
  const auto start = std::chrono::steady_clock::now();
  const nlohmann::ordered_json big = read_ordered_json(text, "f.json");
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(10));
  REQUIRE(big.size() == 200000);
  CHECK(big.begin().key() == "0");
  CHECK((--big.end()).key() == "199999");
  CHECK(big["123456"] == 123456);
}

} // namespace bounded_json_test
