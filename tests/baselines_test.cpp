#include "eval/baselines.hpp"
#include "ir/simplify.hpp"
#include "support/fixtures.hpp"

#include <doctest/doctest.h>

using namespace tv;

TEST_CASE("baselines: on the test half, best single config < per-M table < oracle (h100)") {
  const Problem& p = test::lecture_problem("h100");
  const auto methods = compute_baselines(*p.train, *p.test, p.expert);
  REQUIRE(methods.size() == 4);
  const auto& expert = methods[0];
  const auto& single = methods[1];
  const auto& per_m = methods[2];
  const auto& oracle = methods[3];
  CHECK(expert.train.speedup_vs_expert == doctest::Approx(1.0));
  CHECK(oracle.train.fraction_of_oracle == doctest::Approx(1.0));
  CHECK(oracle.test.fraction_of_oracle == doctest::Approx(1.0));
  CHECK(single.test.fraction_of_oracle < per_m.test.fraction_of_oracle);
  CHECK(per_m.test.fraction_of_oracle < oracle.test.fraction_of_oracle);
  for (const auto& m : methods) {
    CHECK(m.train.valid);
    CHECK(m.test.valid);
    CHECK(m.train.fraction_of_oracle <= 1.0 + 1e-12);
    CHECK(m.test.fraction_of_oracle <= 1.0 + 1e-12);
  }
  CHECK(expert.kernel_runs == 0);
  CHECK(single.kernel_runs == (long long)(p.table->configs().size() * p.train_rows.size()));
  CHECK(oracle.kernel_runs == (long long)(p.table->configs().size() * p.table->shapes().size()));
}

TEST_CASE("baselines: best single config really is the best constant program on train") {
  const Problem& p = test::lecture_problem("h100");
  const Program best = best_single_config(*p.train);
  const double s = p.train->score(best).speedup_vs_expert;
  for (std::size_t c = 0; c < p.table->configs().size(); c += 13) {
    Program q;
    q.default_config = p.table->configs()[c];
    CHECK(p.train->score(q).speedup_vs_expert <= s + 1e-12);
  }
}

TEST_CASE("baselines: the per-M table is simplified, keyed on M, and optimal per M on train") {
  const Problem& p = test::lecture_problem("h100");
  const Program t = per_m_table(*p.train);
  CHECK(t == simplify(t));
  for (const auto& r : t.rules) {
    REQUIRE(r.condition.terms.size() == 1);
    CHECK(r.condition.terms[0].feature == Feature::M);
  }
  // At least as good as the best single config on train (it can choose per M).
  CHECK(p.train->score(t).speedup_vs_expert >=
        p.train->score(best_single_config(*p.train)).speedup_vs_expert);
}

TEST_CASE("score: weights change the geometric mean, missing configs make a score invalid") {
  const Problem& p = test::lecture_problem("h100");
  Program bad = p.expert;
  bad.default_config.BM = 48; // not in the table
  const SetScore s = p.train->score(bad);
  CHECK_FALSE(s.valid);
  CHECK(s.problem.find("is not in the table") != std::string::npos);
  // Weighted: putting all weight on one shape gives exactly that shape's ratio.
  std::vector<Shape> shapes = {test::lecture_shapes()[0], test::lecture_shapes()[50]};
  shapes[0].weight = 0;
  shapes[1].weight = 3;
  const TimeTable t = build_model_table(shapes, p.gpu);
  const Scorer sc(t, {0, 1}, p.expert);
  const SetScore o = sc.oracle();
  CHECK(o.speedup_vs_expert == doctest::Approx(sc.expert_times()[1] / sc.oracle_times()[1]));
}
