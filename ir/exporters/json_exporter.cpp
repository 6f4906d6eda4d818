#include "ir/exporters/json_exporter.hpp"

#include "ir/text.hpp"

namespace tv {

namespace {

nlohmann::ordered_json config_json(const Config& c) {
  if (c.vendor) return "vendor";
  nlohmann::ordered_json j{{"BM", c.BM},       {"BN", c.BN},         {"BK", c.BK},
                           {"warps", c.warps}, {"stages", c.stages}, {"group", c.group}};
  if (c.waves_per_eu) j["waves_per_eu"] = *c.waves_per_eu;
  if (c.matrix_instr_nonkdim) j["matrix_instr_nonkdim"] = *c.matrix_instr_nonkdim;
  if (c.kpack) j["kpack"] = *c.kpack;
  return j;
}

nlohmann::ordered_json term_json(const Comparison& t) {
  nlohmann::ordered_json j{{"feature", std::string(feature_name(t.feature))}};
  if (t.feature == Feature::tiles) {
    j["tile_m"] = t.tile_m;
    j["tile_n"] = t.tile_n;
  }
  j["op"] = std::string(cmp_op_text(t.op));
  j["value"] = t.value;
  return j;
}

} // namespace

std::string export_json(const Program& p, const ExportInfo& info) {
  nlohmann::ordered_json j;
  j["format"] = std::string(kProgramJsonFormat);
  j["format_version"] = 1;
  j["produced_by"] = provenance_json(p, info);
  j["semantics"] =
      "choose(M, N, K): the first rule whose conditions all hold returns its config, else the "
      "default. Features: M, N, K; 'M * N' and 'tiles' = cdiv(M, tile_m) * cdiv(N, tile_n) "
      "count M and N below 1 as 1 and saturate at (2**63 - 1) // 4. 'vendor' = call the vendor "
      "library (cuBLAS, hipBLASLt).";
  j["rules"] = nlohmann::ordered_json::array();
  for (const auto& r : p.rules) {
    nlohmann::ordered_json terms = nlohmann::ordered_json::array();
    for (const auto& t : r.condition.terms)
      terms.push_back(term_json(t));
    j["rules"].push_back({{"if", terms}, {"return", config_json(r.config)}});
  }
  j["default"] = config_json(p.default_config);
  j["text"] = print_program(p);
  // Strings from the caller (file names) may not be UTF-8: replace what is not.
  return j.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
}

} // namespace tv
