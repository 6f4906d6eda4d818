// What the analytic model predicts for the configs a run may try: leaf exploration's prior and
// the analytic seed's table.
#include "evolve/model_times.hpp"
#include "models/analytic_model.hpp"
#include "models/launch.hpp"
#include "models/time_table.hpp"
#include "support/fixtures.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <vector>

// In a namespace of its own: the test files are compiled several to a unit (unity build).
namespace model_times_test {

using namespace tv;

std::vector<Shape> train_shapes(const Problem& p) {
  std::vector<Shape> out;
  for (std::size_t r : p.train_rows)
    out.push_back(p.shape(r));
  return out;
}

TEST_CASE("model times: on a recorded table, the model's time where the table runs the pair") {
  ProblemSpec spec;
  spec.backend = "replay:" TILEVOLVE_SOURCE_DIR "/data/replay/h100_mm.txt";
  spec.gpu_is_default = true;
  spec.vendor_dispatch = true;
  const auto problem = load_problem(spec);
  const std::vector<Shape> train = train_shapes(*problem);
  const std::vector<Config> space = config_space(*problem);
  REQUIRE(space == problem->table->configs());
  const auto times = model_times(*problem, train);
  REQUIRE(times.size() == train.size());
  int finite = 0, not_run = 0, vendor = 0;
  for (std::size_t i = 0; i < train.size(); ++i) {
    REQUIRE(times[i].size() == space.size());
    for (std::size_t k = 0; k < space.size(); ++k) {
      const bool runs = std::isfinite(problem->table->time(problem->train_rows[i], k));
      if (!runs) {
        CHECK(std::isinf(times[i][k]));
        ++not_run;
        continue;
      }
      // The vendor library is priced as the tile its placeholder fields name.
      Config priced = space[k];
      priced.vendor = false;
      const double t = model_time(train[i], space[k].vendor ? priced : space[k], problem->gpu);
      CHECK(times[i][k] == doctest::Approx(t));
      if (space[k].vendor) ++vendor;
      ++finite;
    }
  }
  CHECK(finite > 0);
  CHECK(vendor > 0);   // the vendor rows are candidates with vendor dispatch
  CHECK(not_run == 0); // the public H100 table ran every pair (data/replay/README.md)
}

TEST_CASE("model times: on the analytic model, every launchable config of the GPU's space") {
  const Problem& problem = test::lecture_problem("h100");
  const std::vector<Shape> train = train_shapes(problem);
  const std::vector<Config> space = config_space(problem);
  REQUIRE(space == model_configs(problem.gpu, problem.dtypes()));
  const auto times = model_times(problem, train);
  REQUIRE(times.size() == train.size());
  for (std::size_t i = 0; i < train.size(); i += 7)
    for (std::size_t k = 0; k < space.size(); k += 13) {
      const bool launches = !launch_problem(space[k], problem.gpu, train[i].dtype);
      CHECK(std::isfinite(times[i][k]) == launches);
      if (launches)
        CHECK(times[i][k] == doctest::Approx(model_time(train[i], space[k], problem.gpu)));
    }
}

} // namespace model_times_test
