// The JSON export and its importer: programs round-trip exactly; bad documents are refused with
// the file, the line and what was expected.
#include "support/export_check.hpp"

#include "ir/error.hpp"
#include "ir/exporters/json_exporter.hpp"
#include "ir/exporters/json_importer.hpp"

#include <doctest/doctest.h>

// In a namespace of its own: the test files are compiled several to a unit (unity build).
namespace json_exporter_test {

using namespace tv;

namespace {

/// The message of the InputError that importing `text` throws ("" when it imports).
std::string import_error(const std::string& text) {
  try {
    import_program_json(text, "doc.json");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

std::string minimal(const std::string& rules,
                    const std::string& dflt =
                        R"({"BM": 64, "BN": 64, "BK": 32, "warps": 4, "stages": 2, "group": 8})") {
  return "{\n  \"format\": \"tilevolve-program\",\n  \"format_version\": 1,\n  \"rules\": " +
         rules + ",\n  \"default\": " + dflt + "\n}\n";
}

} // namespace

TEST_CASE("json export: every program re-imports to the same program") {
  std::vector<Program> programs{test::mixed_export_program()};
  Rng rng(31);
  for (int i = 0; i < 200; ++i)
    programs.push_back(test::random_export_program(rng));
  ExportInfo info;
  info.source = "json_exporter_test";
  info.gpu = "h100";
  info.test = ExportScores{0.9, 1.2, 1.1, 10, true};
  for (const Program& p : programs) {
    const std::string doc = export_json(p, info);
    const Program back = import_program_json(doc, "export.json");
    CHECK(back == p);
    CHECK(hash_value(back) == hash_value(p));
  }
}

TEST_CASE("json export: the document states its provenance and the program as data") {
  const Program p = test::mixed_export_program();
  ExportInfo info;
  info.source = "run directory runs/a";
  info.backend = "analytic";
  const auto j = nlohmann::json::parse(export_json(p, info));
  CHECK(j["format"] == "tilevolve-program");
  CHECK(j["produced_by"]["program_hash"] == program_hash_text(p));
  CHECK(j["produced_by"]["source"] == "run directory runs/a");
  CHECK(j["produced_by"]["gpu"].is_null());
  CHECK(j["produced_by"]["scores"]["train"].is_null());
  CHECK(j["rules"].size() == p.rules.size());
  CHECK(
      j["rules"][1]["if"][0] ==
      nlohmann::json(
          {{"feature", "tiles"}, {"tile_m", 128}, {"tile_n", 128}, {"op", "<="}, {"value", 132}}));
  CHECK(j["rules"][1]["if"][1]["feature"] == "M * N");
  CHECK(j["rules"][2]["return"] == "vendor");
  CHECK(j["rules"][3]["return"]["kpack"] == 2);
  CHECK(j["text"] == print_program(p));
}

TEST_CASE("json import: bad documents name the file, the line and what was expected") {
  CHECK(import_error(minimal("[]")) == "");
  // Line 4 holds the rules array; the bad value sits on line 5.
  CHECK(
      import_error(minimal("[\n    {\"if\": [{\"feature\": \"Q\", \"op\": \"<=\", \"value\": 1}], "
                           "\"return\": \"vendor\"}]")) ==
      "doc.json:5: at /rules/0/if/0/feature: unknown feature (expected \"M\", \"N\", \"K\", "
      "\"M * N\" or \"tiles\")");
  CHECK(
      import_error(minimal("[]", "{\"BM\": 64}")).find("doc.json:5: at /default: missing \"BN\"") ==
      0);
  CHECK(import_error(minimal("[]", "{\"BM\": 0, \"BN\": 1, \"BK\": 1, \"warps\": 1, \"stages\": 1, "
                                   "\"group\": 1}")) ==
        "doc.json:5: at /default/BM: BM must be an integer from 1 to 2147483647");
  CHECK(import_error(minimal("[{\"if\": [{\"feature\": \"M\", \"op\": \"<=\", \"value\": 1.5}], "
                             "\"return\": \"vendor\"}]"))
            .find("at /rules/0/if/0/value: expected value (an integer)") != std::string::npos);
  CHECK(import_error(minimal("[{\"if\": [{\"feature\": \"tiles\", \"op\": \"<=\", \"value\": 1}], "
                             "\"return\": \"vendor\"}]"))
            .find("a \"tiles\" feature needs \"tile_m\"") != std::string::npos);
  CHECK(import_error(minimal("[{\"if\": [], \"return\": \"vendor\", \"extra\": 1}]"))
            .find("at /rules/0/extra: unknown field") != std::string::npos);
  CHECK(import_error("{\"format\": \"tilevolve-program\", \"format_version\": 2}")
            .find("expected \"format_version\": 1") != std::string::npos);
  CHECK(import_error(
            "{\"format\": \"tilevolve-program\",\n \"format_version\": 1,\n \"rules\": [],\n "
            "\"rules\": []}") == "doc.json:4: key \"rules\" appears twice in one object");
  CHECK(import_error("{\"format\": \"tilevolve-program\",\n  \"rules\": [}").find("doc.json:2:") ==
        0);
  CHECK(import_error(std::string(40, '[') + std::string(40, ']')).find("nested deeper") !=
        std::string::npos);
  // nlohmann's parser would stop at a NUL byte and accept "{}": refused instead.
  CHECK(import_error(std::string("{}\0 {\"rules\": 1}", 15)) ==
        "doc.json:1:3: not valid JSON: a NUL byte");
  CHECK(import_error("{\"format\": 1e99999}")
            .find("doc.json:1:12: not valid JSON: number overflow") == 0);
  CHECK(import_error("{\"format\": \"other\"}").find("not a tilevolve program") !=
        std::string::npos);
  // More distinct derived features than a program may use: refused like the text form does.
  std::string many = "[";
  for (int i = 1; i <= 8; ++i)
    many += std::string(i > 1 ? "," : "") +
            "{\"if\": [{\"feature\": \"tiles\", \"tile_m\": " + std::to_string(i) +
            ", \"tile_n\": 1, \"op\": \"<=\", \"value\": 1}], \"return\": \"vendor\"}";
  CHECK(import_error(minimal(many + "]")).find("too many distinct derived features") !=
        std::string::npos);
}

} // namespace json_exporter_test
