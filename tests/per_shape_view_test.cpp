// The per-shape view read from per_shape.json: speedups over the expert, vendor configs kept
// as "vendor", the training-range mark kept, and documents that are not per-shape files refused
// with a reason.
#include "serve/per_shape_view.hpp"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

// In a namespace of its own: the test files are compiled several to a unit (unity build).
namespace per_shape_view_test {

using namespace tv;
using json = nlohmann::json;

namespace {

json document() {
  return {
      {"format", "tilevolve-per-shape"},
      {"version", 1},
      {"best_id", 42},
      {"vendor_dispatch", true},
      {"exhaustive_train_runs", 1000},
      {"methods",
       {{{"key", "expert"},
         {"label", "expert"},
         {"train", {{"speedup_vs_expert", 1.0}, {"fraction_of_oracle", 0.8}}},
         {"test", {{"speedup_vs_expert", 1.0}, {"fraction_of_oracle", 0.7}}}},
        {{"key", "best"}, {"label", "best program #42"}, {"train", "bad"}, {"test", nullptr}}}},
      {"shapes",
       {{{"shape", "a:M1"},
         {"M", 1},
         {"N", 4096},
         {"K", 4096},
         {"dtype", "bf16"},
         {"weight", 2.0},
         {"split", "train"},
         {"in_training_range", true},
         {"configs", {{"expert", "16x64x128 w4 s4 g1"}, {"best", "vendor"}, {"oracle", "vendor"}}},
         {"times", {{"expert", 4e-6}, {"best", 2e-6}, {"oracle", 2e-6}, {"vendor", 2e-6}}}},
        {{"shape", "b:M8192"},
         {"M", 8192},
         {"N", 4096},
         {"K", 4096},
         {"split", "test"},
         {"in_training_range", false},
         {"configs", {{"expert", "128x128x64 w4 s3 g8"}, {"best", "256x128x64 w8 s4 g8"}}},
         {"times", {{"expert", 1e-3}, {"best", nullptr}, {"oracle", -1.0}}}}}}};
}

} // namespace

TEST_CASE("per-shape view: speedups over the expert, vendor configs labelled, bad times null, "
          "the training-range mark kept") {
  const json v = per_shape_view(document().dump());
  REQUIRE_FALSE(v.contains("error"));
  CHECK(v["best_id"] == 42);
  CHECK(v["vendor_dispatch"] == true);
  CHECK(v["exhaustive_train_runs"] == 1000);
  REQUIRE(v["shapes"].size() == 2);
  const json& a = v["shapes"][0];
  CHECK(a["configs"]["best"] == "vendor");
  CHECK(a["speedup"]["best"].get<double>() == doctest::Approx(2.0));
  CHECK(a["speedup"]["vendor"].get<double>() == doctest::Approx(2.0));
  CHECK(a["speedup"]["expert"].get<double>() == doctest::Approx(1.0));
  CHECK(a["weight"] == 2.0);
  CHECK_FALSE(a["speedup"].contains("per_m_table"));
  const json& b = v["shapes"][1];
  CHECK(b["speedup"]["best"].is_null());        // its config has no time
  CHECK_FALSE(b["speedup"].contains("oracle")); // a negative time is no time, and no config
  CHECK(b["weight"].is_null());
  // The training-range mark passes through: true, false, or null for anything else.
  CHECK(a["in_training_range"] == true);
  CHECK(b["in_training_range"] == false);
  json d = document();
  d["shapes"][0]["in_training_range"] = "no";
  d["shapes"][1].erase("in_training_range");
  const json w = per_shape_view(d.dump());
  CHECK(w["shapes"][0]["in_training_range"].is_null());
  CHECK(w["shapes"][1]["in_training_range"].is_null());
  // Methods: figures that are not numbers become null.
  REQUIRE(v["methods"].size() == 2);
  CHECK(v["methods"][0]["test"]["fraction_of_oracle"] == 0.7);
  CHECK(v["methods"][1]["train"]["speedup_vs_expert"].is_null());
}

TEST_CASE("per-shape view: other documents are refused with the reason") {
  CHECK(per_shape_view("{").contains("error"));
  CHECK(per_shape_view("[]")["error"] == "per_shape.json is not a tilevolve per-shape document");
  json d = document();
  d["version"] = 2;
  CHECK(per_shape_view(d.dump())["error"].get<std::string>().find("version") != std::string::npos);
  d = document();
  d["shapes"] = "many";
  CHECK(per_shape_view(d.dump())["error"] == "per_shape.json has no shapes array");
  d = document();
  d["shapes"][1] = 5;
  CHECK(per_shape_view(d.dump())["error"] == "per_shape.json: a shape entry is not an object");
  d = document();
  d["vendor_dispatch"] = "yes"; // a wrong type is not an error, just not true
  CHECK(per_shape_view(d.dump())["vendor_dispatch"] == false);
}

} // namespace per_shape_view_test
