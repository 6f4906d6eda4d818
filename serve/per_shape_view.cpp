#include "serve/per_shape_view.hpp"

#include "ir/bounded_json.hpp"

#include <cmath>
#include <fmt/format.h>

namespace tv {

namespace {

using json = nlohmann::json;

/// A finite positive number at `key`, or nullopt.
std::optional<double> positive(const json& j, const char* key) {
  if (!j.is_object()) return std::nullopt;
  const auto it = j.find(key);
  if (it == j.end() || !it->is_number()) return std::nullopt;
  const double v = it->get<double>();
  return std::isfinite(v) && v > 0 ? std::optional<double>(v) : std::nullopt;
}

/// A string at `key` of at most `max` bytes, else "".
std::string text_field_or_empty(const json& j, const char* key, std::size_t max = 200) {
  if (!j.is_object()) return "";
  const auto it = j.find(key);
  if (it == j.end() || !it->is_string()) return "";
  std::string s = it->get<std::string>();
  if (s.size() > max) s.resize(max);
  return s;
}

json integer(const json& j, const char* key) {
  if (!j.is_object()) return nullptr;
  const auto it = j.find(key);
  if (it == j.end() || !it->is_number_integer()) return nullptr;
  return *it;
}

json figures(const json& s) {
  json out = json::object();
  for (const char* k : {"speedup_vs_expert", "fraction_of_oracle", "uplift"}) {
    const auto v = positive(s, k);
    out[k] = v ? json(*v) : json();
  }
  return out;
}

json fail(const std::string& why) {
  return {{"error", why}};
}

} // namespace

json per_shape_view(const std::string& raw) {
  json doc;
  try {
    JsonReadOptions how;
    how.duplicate_keys = DuplicateKeys::keep_last;
    doc = read_json(raw, "per_shape.json", how);
  } catch (const JsonReadError& e) {
    return fail(e.kind == JsonReadError::Kind::too_deep
                    ? fmt::format("per_shape.json is nested deeper than {} levels", kMaxJsonDepth)
                    : std::string("per_shape.json is not JSON"));
  }
  if (!doc.is_object() || text_field_or_empty(doc, "format") != "tilevolve-per-shape")
    return fail("per_shape.json is not a tilevolve per-shape document");
  if (integer(doc, "version") != json(1))
    return fail("per_shape.json has an unsupported version (expected 1)");
  json out{{"best_id", integer(doc, "best_id")},
           {"vendor_dispatch",
            doc.find("vendor_dispatch") != doc.end() && *doc.find("vendor_dispatch") == json(true)},
           {"exhaustive_train_runs", integer(doc, "exhaustive_train_runs")}};
  json methods = json::array();
  if (const auto it = doc.find("methods"); it != doc.end() && it->is_array())
    for (const json& m : *it) {
      const std::string key = text_field_or_empty(m, "key", 40);
      if (key.empty()) continue;
      methods.push_back({{"key", key},
                         {"label", text_field_or_empty(m, "label")},
                         {"train", figures(m.value("train", json()))},
                         {"test", figures(m.value("test", json()))}});
    }
  out["methods"] = std::move(methods);
  json shapes = json::array();
  const auto it = doc.find("shapes");
  if (it == doc.end() || !it->is_array()) return fail("per_shape.json has no shapes array");
  for (const json& s : *it) {
    if (!s.is_object()) return fail("per_shape.json: a shape entry is not an object");
    const json times = s.value("times", json::object());
    const json configs = s.value("configs", json::object());
    json row{{"shape", text_field_or_empty(s, "shape")},
             {"M", integer(s, "M")},
             {"N", integer(s, "N")},
             {"K", integer(s, "K")},
             {"dtype", text_field_or_empty(s, "dtype", 16)},
             {"layout", text_field_or_empty(s, "layout", 4)},
             {"split", text_field_or_empty(s, "split", 16)}};
    const auto range = s.find("in_training_range");
    row["in_training_range"] = range != s.end() && range->is_boolean() ? *range : json();
    const auto w = positive(s, "weight");
    row["weight"] = w ? json(*w) : json();
    const auto expert = positive(times, "expert");
    json speedup = json::object(), cfg = json::object();
    for (const char* key : kPerShapeMethods) {
      const std::string c = text_field_or_empty(configs, key, 80);
      if (!c.empty()) cfg[key] = c;
      const auto t = positive(times, key);
      if (t || !c.empty()) speedup[key] = expert && t ? json(*expert / *t) : json();
    }
    row["configs"] = std::move(cfg);
    row["speedup"] = std::move(speedup);
    shapes.push_back(std::move(row));
  }
  out["shapes"] = std::move(shapes);
  return out;
}

} // namespace tv
