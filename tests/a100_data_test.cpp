// The A100 tables in data/replay/ (trimmed from the public AutoHeuristic dataset by
// scripts/trim_autoheuristic.py): each is exactly the script's output on the shared source when
// ../shared is present, replays with the a100 profile picked from its JSON line, and a random
// -> HF pair replays from two files at once. The evolve runs are end to end on the real binary.
#include "eval/problem.hpp"
#include "eval/replay_backend.hpp"
#include "models/data_dir.hpp"
#include "models/shape_file.hpp"
#include "support/shell.hpp"
#include "support/temp_dir.hpp"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

// In a namespace of its own: the test files are compiled several to a unit (unity build).
namespace a100_data_test {

using namespace tv;
namespace fs = std::filesystem;

namespace {

/// One committed table: its stem, the shared source and the script's extra arguments.
struct A100Table {
  std::string data, shapes, source, args;
  std::size_t keys;
};

const std::string kShared = TILEVOLVE_SOURCE_DIR "/../shared/data/autoheuristic/";
const std::string kTrim = "--gpu a100 --dtypes f16 --one-layout NT,NN,TN,TT --medians";

std::vector<A100Table> tables() {
  return {{"a100_mm.txt", "a100_shapes.csv", "a100_mm.txt", kTrim, 258},
          {"a100_hf_mm.txt", "a100_hf_shapes.csv", "a100_hf_train_mm.txt", kTrim, 211},
          {"a100_timm_mm.txt", "a100_timm_shapes.csv", "a100_timm_train_mm.txt",
           kTrim + " --exclude " + kShared + "a100_hf_train_mm.txt --max-keys 300", 300}};
}

std::string replay(const std::string& name) {
  return data_path("replay/" + name);
}

} // namespace

TEST_CASE("a100 data: each committed table is the trim script's output on the shared file") {
  test::ScratchDir dir("tv_a100_trim");
  for (const A100Table& t : tables()) {
    CAPTURE(t.data);
    CHECK(fs::file_size(replay(t.data)) < 2'000'000); // small enough to commit
    if (!fs::exists(kShared + t.source)) {
      MESSAGE("skipped: " << kShared + t.source << " is absent");
      continue;
    }
    const auto made = test::run_shell(
        "python3 " TILEVOLVE_SOURCE_DIR "/scripts/trim_autoheuristic.py " + kShared + t.source +
        " " + dir.at("d.txt") + " " + dir.at("s.csv") + " " + t.args + " 2>/dev/null");
    REQUIRE(made.status == 0);
    CHECK(test::read_text(dir.at("d.txt")) == test::read_text(replay(t.data)));
    CHECK(test::read_text(dir.at("s.csv")) == test::read_text(replay(t.shapes)));
  }
}

TEST_CASE("a100 data: the trimmed HF table replays the full file's medians") {
  if (!fs::exists(kShared + "a100_hf_train_mm.txt")) {
    MESSAGE("skipped: the shared A100 HF file is absent");
    return;
  }
  const Gpu a100 = find_gpu("a100");
  ReplayFilter f16;
  f16.dtypes = {DType::f16};
  ReplayBackend full(kShared + "a100_hf_train_mm.txt", f16, a100);
  ReplayBackend trimmed(replay("a100_hf_mm.txt"), ReplayFilter{}, a100);
  CHECK(full.configs() == trimmed.configs());
  const std::vector<Shape> shapes = load_shape_file(replay("a100_hf_shapes.csv"));
  const TimeTable a = full.table(shapes), b = trimmed.table(shapes);
  int differ = 0, finite = 0;
  for (std::size_t r = 0; r < shapes.size(); ++r)
    for (std::size_t c = 0; c < a.configs().size(); ++c) {
      const double x = a.time(r, c), y = b.time(r, c);
      finite += std::isfinite(y);
      differ +=
          std::isfinite(x) != std::isfinite(y) || (std::isfinite(x) && std::abs(x - y) > 1e-12 * x);
    }
  CHECK(differ == 0);
  CHECK(finite > 0);
  for (const Shape& s : shapes)
    CHECK(full.vendor_time(s).value_or(-1) == doctest::Approx(trimmed.vendor_time(s).value_or(-2)));
}

TEST_CASE("a100 data: each table replays with the a100 profile picked from its JSON line") {
  for (const A100Table& t : tables()) {
    CAPTURE(t.data);
    ProblemSpec spec;
    spec.gpu_is_default = true; // "h100" is only the default
    spec.backend = "replay:" + replay(t.data);
    const auto p = load_problem(spec); // the expert passes the a100 static check
    CHECK(p->gpu.name == "a100");
    const std::vector<Shape> keys = load_shape_file(replay(t.shapes));
    REQUIRE(p->table->shapes().size() == t.keys);
    REQUIRE(keys.size() == t.keys);
    std::set<std::string> table_labels, csv_labels;
    for (std::size_t i = 0; i < keys.size(); ++i) {
      table_labels.insert(p->table->shapes()[i].label());
      csv_labels.insert(keys[i].label());
    }
    CHECK(table_labels == csv_labels); // the file's keys are the shape CSV's shapes
    CHECK(p->train_rows.size() + p->test_rows.size() == t.keys);
    const SetScore oracle = p->test->oracle();
    CHECK(oracle.valid);
    CHECK(oracle.speedup_vs_expert >= 1.0);
  }
}

TEST_CASE("a100 data: random -> HF replays two files, the test shapes from the second") {
  ProblemSpec spec;
  spec.gpu_is_default = true;
  spec.backend = "replay:" + replay("a100_mm.txt") + "," + replay("a100_hf_mm.txt");
  spec.shapes = replay("a100_shapes.csv");
  spec.test_shapes = replay("a100_hf_shapes.csv");
  const auto p = load_problem(spec);
  CHECK(p->gpu.name == "a100");
  CHECK(p->train_rows.size() == 258);
  CHECK(p->test_rows.size() == 211);
  for (std::size_t r : p->test_rows) {
    bool timed = false;
    for (std::size_t c = 0; c < p->table->configs().size(); ++c)
      timed = timed || std::isfinite(p->table->time(r, c));
    CHECK(timed);
  }
  // The HF file alone has no random shape: its keys do not time the training set.
  spec.backend = "replay:" + replay("a100_hf_mm.txt");
  CHECK_THROWS(load_problem(spec));
}

TEST_CASE(
    "a100 data: a short evolve runs on HF half/half, on HF -> timm and on the analytic model") {
  const std::string bin = TILEVOLVE_BINARY;
  const std::string dir = TILEVOLVE_SOURCE_DIR "/data/replay/";
  const auto half = test::run_shell(bin + " evolve --backend replay:" + dir +
                                    "a100_hf_mm.txt --budget 30 --json 2>/dev/null");
  REQUIRE(half.status == 0);
  const auto h = nlohmann::json::parse(half.out);
  CHECK(h["problem"]["gpu"] == "a100");
  CHECK(h["problem"]["train_shapes"] == 106); // the random half of the 211 HF keys
  const auto pair =
      test::run_shell(bin + " evolve --backend replay:" + dir + "a100_hf_mm.txt," + dir +
                      "a100_timm_mm.txt --shapes " + dir + "a100_hf_shapes.csv --test-shapes " +
                      dir + "a100_timm_shapes.csv --budget 30 --json 2>/dev/null");
  REQUIRE(pair.status == 0);
  const auto j = nlohmann::json::parse(pair.out);
  CHECK(j["problem"]["gpu"] == "a100");
  CHECK(j["problem"]["train_shapes"] == 211);
  CHECK(j["problem"]["test_shapes"] == 300);
  CHECK(j["problem"]["test_shapes_file"] == dir + "a100_timm_shapes.csv");
  CHECK(j["problem"]["configs"] == 29);
  // The analytic model takes the profile too (the lecture's expert passes its static check).
  const auto analytic = test::run_shell(bin + " evolve --gpu a100 --budget 30 --json 2>/dev/null");
  REQUIRE(analytic.status == 0);
  CHECK(nlohmann::json::parse(analytic.out)["problem"]["gpu"] == "a100");
}

} // namespace a100_data_test
