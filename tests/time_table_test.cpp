#include "eval/problem.hpp"
#include "eval/score.hpp"
#include "models/analytic_model.hpp"
#include "models/launch.hpp"
#include "models/time_table.hpp"

#include "support/fixtures.hpp"
#include <algorithm>

#include <doctest/doctest.h>
#include <omp.h>

// In a namespace of its own: the test files are compiled several to a unit (unity build).
namespace time_table_test {

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

TEST_CASE("time_table: a computed table gives the same cells, oracles and scores as a stored one") {
  // Issue 13: 100k shapes x 4k configs were stored (3.3 GB); large tables are now computed on
  // lookup, which must change no figure.
  const Gpu& g = test::gpu("h100");
  const auto& shapes = test::lecture_shapes();
  const TimeTable stored = build_model_table(shapes, g);
  const TimeTable computed = build_model_table(shapes, g, /*dense_limit=*/0);
  REQUIRE(stored.dense());
  REQUIRE_FALSE(computed.dense());
  REQUIRE(stored.configs() == computed.configs());
  std::size_t differing = 0;
  for (std::size_t s = 0; s < shapes.size(); ++s) {
    CHECK(stored.oracle_config(s) == computed.oracle_config(s));
    CHECK(stored.oracle_time(s) == computed.oracle_time(s));
    for (std::size_t c = 0; c < stored.configs().size(); c += 7)
      if (!(stored.time(s, c) == computed.time(s, c))) ++differing; // bitwise, cached or not
  }
  CHECK(differing == 0);
  // A cache too small for one column: every lookup is computed, still the same bits.
  auto cell = [&](const Shape& s, std::size_t c) { return model_time(s, stored.configs()[c], g); };
  const TimeTable uncached(shapes, stored.configs(), cell, true, /*cache_bytes=*/8);
  for (std::size_t s = 0; s < shapes.size(); s += 5)
    for (std::size_t c = 0; c < stored.configs().size(); c += 31)
      CHECK(uncached.time(s, c) == stored.time(s, c));
  CHECK(uncached.shape_index(shapes[3].label()) == 3);
}

TEST_CASE("time_table: problems above the cell limit get a computed table with the same figures") {
  ProblemSpec spec;
  spec.gpu = "h100";
  const auto small = load_problem(spec);
  REQUIRE(small->table->dense());
  const Program table = small->expert;
  // The same problem through a computed table (as a 100k-shape problem gets).
  const TimeTable computed = build_model_table(small->table->shapes(), small->gpu, 0);
  const Scorer train(computed, small->train_rows, small->expert);
  const SetScore a = small->train->score(table), b = train.score(table);
  CHECK(a.speedup_vs_expert == b.speedup_vs_expert);
  CHECK(a.fraction_of_oracle == b.fraction_of_oracle);
  CHECK(small->train->oracle().fraction_of_oracle == train.oracle().fraction_of_oracle);
}

} // namespace time_table_test
