// What a run writes for the dashboard: per_shape.json holds the table's times of the best
// program and of the baselines (the vendor library labelled), and new_best events carry the
// best's held-out figures and text.
#include "evolve/viewer_data.hpp"

#include "eval/report_format.hpp"
#include "eval/training_coverage.hpp"
#include "ir/simplify.hpp"
#include "ir/text.hpp"
#include "models/data_dir.hpp"
#include "support/fixtures.hpp"

#include <cmath>
#include <doctest/doctest.h>

// In a namespace of its own: the test files are compiled several to a unit (unity build).
namespace viewer_data_test {

using namespace tv;

TEST_CASE("viewer data: per_shape.json has every shape's times for the best and the baselines") {
  const Problem& p = test::lecture_problem("h100");
  ViewerData vd(p);
  const Program best = parse_program_or_throw(
      "def choose(M, N, K):\n"
      "    if M <= 64:\n"
      "        return Config(BM=64, BN=64, BK=128, warps=4, stages=5, group=8)\n"
      "    return Config(BM=128, BN=128, BK=64, warps=4, stages=3, group=8)\n",
      "best");
  const auto doc = vd.per_shape(17, best);
  CHECK(doc["format"] == "tilevolve-per-shape");
  CHECK(doc["best_id"] == 17);
  CHECK(doc["best_program"] == print_program(best));
  REQUIRE(doc["shapes"].size() == 88);
  const auto train_times = p.train->program_times(best);
  std::size_t train_seen = 0;
  for (const auto& row : doc["shapes"]) {
    const int r = p.table->shape_index(row["shape"].get<std::string>());
    REQUIRE(r >= 0);
    const Shape& s = p.shape(std::size_t(r));
    CHECK(row["configs"]["best"] == best.choose(s).brief());
    CHECK(row["configs"]["expert"] == p.expert.choose(s).brief());
    const double t =
        p.table->time(std::size_t(r), std::size_t(p.table->config_index(best.choose(s))));
    CHECK(row["times"]["best"].get<double>() == t);
    CHECK(row["times"]["oracle"].get<double>() == p.table->oracle_time(std::size_t(r)));
    CHECK(row["times"]["oracle"].get<double>() <= row["times"]["per_m_table"].get<double>());
    CHECK_FALSE(row["times"].contains("vendor")); // the analytic model has no vendor library
    if (row["split"] == "train") CHECK(t == train_times[train_seen++]);
  }
  CHECK(train_seen == p.train_rows.size());
  // Each shape says whether it is in the training range of the program the exports ship (the
  // simplified best): every training shape is, and the test shapes outside are as many as the
  // run's summary counts.
  const Program shipped = simplify(best);
  const TrainingRange range = problem_training_range(p, shipped);
  std::size_t outside = 0;
  for (const auto& row : doc["shapes"]) {
    const Shape& s = p.shape(std::size_t(p.table->shape_index(row["shape"].get<std::string>())));
    CHECK(row["in_training_range"] == range.contains(shipped, s));
    if (row["split"] == "train") CHECK(row["in_training_range"] == true);
    if (row["split"] == "test" && row["in_training_range"] == false) ++outside;
  }
  CHECK(outside == test_coverage(p, shipped, range).outside);
  // The methods' figures are the scorer's.
  const auto& methods = doc["methods"];
  REQUIRE(methods.back()["key"] == "best");
  CHECK(methods.back()["test"] == score_json(p.test->score(best)));
  CHECK(methods.front()["key"] == "expert");
}

TEST_CASE("viewer data: new_best fields are the held-out figures and the program text") {
  const Problem& p = test::lecture_problem("h100");
  ViewerData vd(p);
  const auto f = vd.best_fields(p.expert);
  CHECK(f["program"] == print_program(p.expert));
  CHECK(f["test"].get<double>() == doctest::Approx(1.0));
  CHECK(f["test_of_oracle"].get<double>() == p.test->score(p.expert).fraction_of_oracle);
  CHECK(f["train_of_oracle"].get<double>() == p.train->score(p.expert).fraction_of_oracle);
}

TEST_CASE("viewer data: with vendor dispatch the vendor library's times and choices show") {
  ProblemSpec spec;
  spec.gpu = "h100";
  spec.backend = "replay:" + data_path("replay/h100_mm.txt");
  spec.shapes = data_path("replay/h100_shapes.csv");
  spec.expert = data_path("experts/h100_inductor.py");
  spec.vendor_dispatch = true;
  const auto p = load_problem(spec);
  ViewerData vd(*p);
  const Program best = parse_program_or_throw("def choose(M, N, K):\n"
                                              "    if M >= 1024:\n"
                                              "        return \"vendor\"\n"
                                              "    return Config(BM=64, BN=64, BK=64, warps=4, "
                                              "stages=3, group=8)\n",
                                              "best");
  const auto doc = vd.per_shape(3, best);
  CHECK(doc["vendor_dispatch"] == true);
  int vendor_rows = 0;
  for (const auto& row : doc["shapes"]) {
    REQUIRE(row["times"].contains("vendor"));
    if (row["M"].get<long long>() >= 1024) {
      ++vendor_rows;
      CHECK(row["configs"]["best"] == "vendor");
      CHECK(row["times"]["best"] == row["times"]["vendor"]);
    } else {
      CHECK(row["configs"]["best"] == "64x64x64 w4 s3 g8");
    }
  }
  CHECK(vendor_rows > 0);
}

} // namespace viewer_data_test
