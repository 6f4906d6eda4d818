#include "ir/error.hpp"
#include "models/data_dir.hpp"
#include "models/workloads/workload.hpp"

#include <doctest/doctest.h>

// In a namespace of its own: the test files are compiled several to a unit (unity build).
namespace workload_test {

using namespace tv;

TEST_CASE("workload: exactly one shape source, each described") {
  WorkloadSpec none;
  CHECK(!load_workload(none));

  WorkloadSpec csv;
  csv.shapes = data_path("shapes/lecture.csv");
  const auto c = load_workload(csv);
  REQUIRE(c);
  CHECK(c->shapes.size() == 88);
  CHECK(c->source == csv.shapes);
  CHECK(c->note.empty());

  WorkloadSpec log;
  log.workload_log = data_path("workloads/llama3_8b_vllm_mi300x.yaml");
  const auto l = load_workload(log);
  REQUIRE(l);
  CHECK(l->source == log.workload_log);
  CHECK(l->note.rfind("hipBLASLt log: 25 entries, 25 kept -> 25 GEMMs", 0) == 0);

  WorkloadSpec model;
  model.model = "llama3-70b";
  model.tp = 8;
  model.tokens = "1,128";
  const auto m = load_workload(model);
  REQUIRE(m);
  CHECK(m->shapes.size() == 8);
  CHECK(m->shapes[1].name == "llama3-70b-tp8:qkv:M128");
  CHECK(m->source == "model llama3-70b (tp 8)");
  CHECK(m->note.find("meta-llama/Meta-Llama-3-70B") != std::string::npos);

  WorkloadSpec in;
  in.inline_shapes = {"16,4096,4096"};
  const auto i = load_workload(in);
  REQUIRE(i);
  CHECK(i->shapes.size() == 1);
  CHECK(i->source == "--inline");
}

TEST_CASE("workload: two sources, or --tp and --tokens without --preset, are errors") {
  WorkloadSpec two;
  two.shapes = "a.csv";
  two.model = "llama3-8b";
  two.inline_shapes = {"1,2,3"};
  CHECK_THROWS_WITH_AS(load_workload(two),
                       "give one shape source, not --shapes and --preset and --inline (choose "
                       "one of --shapes, --workload-log, --preset, --inline)",
                       InputError);
  WorkloadSpec tp;
  tp.tp = 8;
  tp.shapes = data_path("shapes/lecture.csv");
  CHECK_THROWS_WITH_AS(load_workload(tp), "--tp only applies to --preset", InputError);
  WorkloadSpec tokens;
  tokens.tokens = "1";
  CHECK_THROWS_WITH_AS(load_workload(tokens), "--tokens only applies to --preset", InputError);
}

} // namespace workload_test
