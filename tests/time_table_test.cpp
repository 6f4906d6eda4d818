#include "models/analytic_model.hpp"
#include "models/launch.hpp"
#include "models/time_table.hpp"

#include "support/fixtures.hpp"
#include <algorithm>

#include <doctest/doctest.h>
#include <omp.h>

using namespace tv;

TEST_CASE("time_table: identical for 1 and 2 threads, and equal to the model") {
  const Gpu& g = test::gpu("h100");
  const auto& shapes = test::lecture_shapes();
  const int saved = omp_get_max_threads();
  omp_set_num_threads(1);
  const TimeTable one = build_model_table(shapes, g);
  omp_set_num_threads(2);
  const TimeTable two = build_model_table(shapes, g);
  omp_set_num_threads(saved);
  REQUIRE(one.configs() == two.configs());
  CHECK(one.times() == two.times()); // bitwise equal doubles
  for (std::size_t s = 0; s < shapes.size(); s += 11)
    for (std::size_t c = 0; c < one.configs().size(); c += 97)
      CHECK(one.time(s, c) == model_time(shapes[s], one.configs()[c], g));
}

TEST_CASE("time_table: oracle is the row minimum and lookups strip AMD knobs") {
  const Gpu& g = test::gpu("mi300x");
  const TimeTable t = build_model_table(test::lecture_shapes(), g);
  for (std::size_t s = 0; s < t.shapes().size(); ++s) {
    const int o = t.oracle_config(s);
    REQUIRE(o >= 0);
    for (std::size_t c = 0; c < t.configs().size(); ++c)
      CHECK(t.time(s, c) >= t.oracle_time(s));
  }
  Config c = t.configs()[5];
  const int plain = t.config_index(c);
  c.kpack = 2;
  c.waves_per_eu = 1;
  CHECK(t.config_index(c) == plain);
  CHECK(t.shape_index("llama3-8b:qkv:M1") == 0);
  CHECK(t.shape_index("nope") == -1);
}

TEST_CASE("time_table: every config launches for the dtype, and none is missing") {
  const Gpu& g = test::gpu("h100");
  const auto configs = model_configs(g, {DType::bf16});
  CHECK(configs.size() > 1000);
  for (const auto& c : all_configs(g)) {
    const bool in = std::find(configs.begin(), configs.end(), c) != configs.end();
    CHECK(in == !launch_problem(c, g, DType::bf16).has_value());
  }
}
