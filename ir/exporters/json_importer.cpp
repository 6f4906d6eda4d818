#include "ir/exporters/json_importer.hpp"

#include "ir/error.hpp"
#include "ir/exporters/json_exporter.hpp"
#include "ir/text.hpp"

#include <fmt/format.h>
#include <set>

namespace tv {

namespace {

using Json = nlohmann::ordered_json;

/// Rules one imported program may have (far more than any evolved program).
constexpr std::size_t kMaxRules = 100000;
/// Comparisons one rule may have.
constexpr std::size_t kMaxTerms = 64;

class Reader {
public:
  explicit Reader(const JsonDocument& doc) : doc_(doc) {}

  Program program() {
    const Json& root = doc_.root();
    check_keys(
        root, "",
        {"format", "format_version", "produced_by", "semantics", "rules", "default", "text"});
    if (!root.contains("format_version") || !root["format_version"].is_number_integer() ||
        root["format_version"].get<std::int64_t>() != 1)
      doc_.fail(root.contains("format_version") ? "/format_version" : "",
                "expected \"format_version\": 1 (the only version this tilevolve reads)");
    Program p;
    if (!root.contains("rules") || !root["rules"].is_array())
      doc_.fail(root.contains("rules") ? "/rules" : "", "expected \"rules\": an array of rules");
    const Json& rules = root["rules"];
    if (rules.size() > kMaxRules)
      doc_.fail("/rules", fmt::format("{} rules; at most {}", rules.size(), kMaxRules));
    for (std::size_t i = 0; i < rules.size(); ++i)
      p.rules.push_back(rule(rules[i], json_pointer_child("/rules", i)));
    if (!root.contains("default"))
      doc_.fail("", "expected \"default\": the config returned when no rule holds");
    p.default_config = config(root["default"], "/default");
    // The program must be one the text form accepts, so that it prints and parses back.
    const ParseResult back = parse_program(print_program(p));
    if (!back.ok()) doc_.fail("", "not a program tilevolve can use: " + back.error->message);
    return p;
  }

private:
  void check_keys(const Json& j, const std::string& at,
                  std::initializer_list<const char*> allowed) {
    if (!j.is_object()) doc_.fail(at, "expected an object");
    for (auto it = j.begin(); it != j.end(); ++it) {
      bool known = false;
      for (const char* a : allowed)
        known = known || it.key() == a;
      if (!known) {
        std::string list;
        for (const char* a : allowed)
          list += std::string(list.empty() ? "" : ", ") + a;
        doc_.fail(json_pointer_child(at, it.key()),
                  fmt::format("unknown field (expected one of {})", list));
      }
    }
  }

  std::int64_t integer(const Json& j, const std::string& at, const char* what) {
    if (!j.is_number_integer()) doc_.fail(at, fmt::format("expected {} (an integer)", what));
    if (j.is_number_unsigned() && j.get<std::uint64_t>() > std::uint64_t(INT64_MAX))
      doc_.fail(at, fmt::format("{} does not fit in 64 bits", what));
    return j.get<std::int64_t>();
  }

  int small_int(const Json& j, const std::string& at, const char* what, int lo) {
    const std::int64_t v = integer(j, at, what);
    if (v < lo || v > INT32_MAX)
      doc_.fail(at, fmt::format("{} must be an integer from {} to {}", what, lo, INT32_MAX));
    return int(v);
  }

  Config config(const Json& j, const std::string& at) {
    if (j.is_string()) {
      if (j.get<std::string>() != "vendor")
        doc_.fail(at, "expected a config object or \"vendor\" (the vendor library)");
      return vendor_config();
    }
    check_keys(j, at,
               {"BM", "BN", "BK", "warps", "stages", "group", "waves_per_eu",
                "matrix_instr_nonkdim", "kpack"});
    Config c;
    const auto required = [&](const char* key) {
      if (!j.contains(key)) doc_.fail(at, fmt::format("missing \"{}\" (a positive integer)", key));
      return small_int(j[key], json_pointer_child(at, key), key, 1);
    };
    c.BM = required("BM");
    c.BN = required("BN");
    c.BK = required("BK");
    c.warps = required("warps");
    c.stages = required("stages");
    c.group = required("group");
    const auto knob = [&](const char* key) -> std::optional<int> {
      if (!j.contains(key)) return std::nullopt;
      return small_int(j[key], json_pointer_child(at, key), key, 0);
    };
    c.waves_per_eu = knob("waves_per_eu");
    c.matrix_instr_nonkdim = knob("matrix_instr_nonkdim");
    c.kpack = knob("kpack");
    return c;
  }

  Comparison term(const Json& j, const std::string& at) {
    check_keys(j, at, {"feature", "tile_m", "tile_n", "op", "value"});
    Comparison t;
    if (!j.contains("feature") || !j["feature"].is_string())
      doc_.fail(at, "expected \"feature\": \"M\", \"N\", \"K\", \"M * N\" or \"tiles\"");
    const std::string f = j["feature"].get<std::string>();
    const std::string fat = json_pointer_child(at, "feature");
    if (f == "M")
      t.feature = Feature::M;
    else if (f == "N")
      t.feature = Feature::N;
    else if (f == "K")
      t.feature = Feature::K;
    else if (f == "M * N")
      t.feature = Feature::MN;
    else if (f == "tiles")
      t.feature = Feature::tiles;
    else
      doc_.fail(fat, "unknown feature (expected \"M\", \"N\", \"K\", \"M * N\" or \"tiles\")");
    const bool tiles = t.feature == Feature::tiles;
    for (const char* key : {"tile_m", "tile_n"}) {
      if (j.contains(key) != tiles)
        doc_.fail(at, tiles ? fmt::format("a \"tiles\" feature needs \"{}\"", key)
                            : fmt::format("\"{}\" belongs to the \"tiles\" feature only", key));
      if (tiles) {
        const std::int64_t v = integer(j[key], json_pointer_child(at, key), key);
        if (v < 1 || v > kMaxTileSize)
          doc_.fail(json_pointer_child(at, key),
                    fmt::format("{} must be an integer from 1 to {}", key, kMaxTileSize));
        (std::string_view(key) == "tile_m" ? t.tile_m : t.tile_n) = int(v);
      }
    }
    if (!j.contains("op") || !j["op"].is_string())
      doc_.fail(at, "expected \"op\": one of \"<\", \"<=\", \">\", \">=\", \"==\"");
    const std::string op = j["op"].get<std::string>();
    bool found = false;
    for (CmpOp o : {CmpOp::lt, CmpOp::le, CmpOp::gt, CmpOp::ge, CmpOp::eq})
      if (cmp_op_text(o) == op) t.op = o, found = true;
    if (!found)
      doc_.fail(json_pointer_child(at, "op"),
                "unknown operator (expected \"<\", \"<=\", \">\", \">=\" or \"==\")");
    if (!j.contains("value")) doc_.fail(at, "expected \"value\": the integer compared with");
    t.value = integer(j["value"], json_pointer_child(at, "value"), "value");
    return t;
  }

  Rule rule(const Json& j, const std::string& at) {
    check_keys(j, at, {"if", "return"});
    Rule r;
    if (!j.contains("if") || !j["if"].is_array())
      doc_.fail(j.contains("if") ? json_pointer_child(at, "if") : at,
                "expected \"if\": an array of comparisons (all must hold; [] = always)");
    const Json& terms = j["if"];
    if (terms.size() > kMaxTerms)
      doc_.fail(json_pointer_child(at, "if"),
                fmt::format("{} comparisons; at most {} per rule", terms.size(), kMaxTerms));
    for (std::size_t i = 0; i < terms.size(); ++i)
      r.condition.terms.push_back(
          term(terms[i], json_pointer_child(json_pointer_child(at, "if"), i)));
    if (!j.contains("return")) doc_.fail(at, "expected \"return\": a config or \"vendor\"");
    r.config = config(j["return"], json_pointer_child(at, "return"));
    return r;
  }

  const JsonDocument& doc_;
};

} // namespace

bool is_program_json(const JsonDocument& doc) {
  const auto& r = doc.root();
  return r.is_object() && r.contains("format") && r["format"].is_string() &&
         r["format"].get<std::string>() == kProgramJsonFormat;
}

Program import_program_json(const JsonDocument& doc) {
  if (!is_program_json(doc))
    doc.fail(
        doc.root().is_object() && doc.root().contains("format") ? "/format" : "",
        fmt::format("not a tilevolve program (expected \"format\": \"{}\")", kProgramJsonFormat));
  return Reader(doc).program();
}

Program import_program_json(std::string_view text, std::string_view source) {
  return import_program_json(JsonDocument(text, std::string(source)));
}

} // namespace tv
