#include "eval/baselines.hpp"
#include "ir/simplify.hpp"
#include "support/fixtures.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <stdexcept>

// In a namespace of its own: the test files are compiled several to a unit (unity build).
namespace baselines_test {

using namespace tv;

namespace {

/// A backend that answers vendor_time() like `inner` except for one shape (nothing else used).
class MissingOneVendor : public TimingBackend {
public:
  MissingOneVendor(const TimingBackend& inner, Shape missing)
      : inner_(inner), missing_(std::move(missing)) {}
  std::string name() const override { return "missing-one-vendor"; }
  std::vector<Measurement> time(const std::vector<TimingRequest>& batch) override {
    return std::vector<Measurement>(batch.size());
  }
  std::optional<std::string> cannot_time(const Config&, DType) const override {
    return std::nullopt;
  }
  TimeTable table(const std::vector<Shape>&) override { throw std::logic_error("unused"); }
  std::optional<double> vendor_time(const Shape& s) const override {
    if (s == missing_) return std::nullopt;
    return inner_.vendor_time(s);
  }

private:
  const TimingBackend& inner_;
  Shape missing_;
};

} // namespace

TEST_CASE("baselines: on the test half, best single config < per-M table < oracle (h100)") {
  const Problem& p = test::lecture_problem("h100");
  const auto methods = compute_baselines(*p.train, *p.test, p.expert);
  REQUIRE(methods.size() == 5);
  const auto& expert = methods[0];
  const auto& single = methods[1];
  const auto& per_m = methods[2];
  const auto& tree = methods[3];
  const auto& oracle = methods[4];
  CHECK(tree.key == "tree");
  REQUIRE(tree.program);
  CHECK(tree.program->rules.size() <= 7); // 8 leaves at most
  CHECK(tree.kernel_runs == single.kernel_runs);
  // On its own training shapes the tree does at least as well as a single config.
  CHECK(tree.train.fraction_of_oracle >= single.train.fraction_of_oracle - 1e-12);
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

TEST_CASE("baselines: the vendor library row from recorded cuBLAS times (replay, h100)") {
  ProblemSpec spec;
  spec.gpu = "h100";
  spec.backend = "replay:" + data_path("replay/h100_mm.txt");
  spec.shapes = data_path("replay/h100_shapes.csv");
  spec.expert = data_path("experts/h100_inductor.py");
  const auto p = load_problem(spec);
  REQUIRE(p->table->shapes().size() == 212);

  const auto methods = compute_baselines(*p->train, *p->test, p->expert, p->backend.get());
  REQUIRE(methods.size() == 6);
  CHECK(methods[0].key == "expert");
  CHECK(methods[1].key == "best_single");
  CHECK(methods[2].key == "per_m_table");
  CHECK(methods[3].key == "tree");
  CHECK(methods[4].key == "vendor");
  CHECK(methods[5].key == "oracle");
  const MethodResult& v = methods[4];
  CHECK(v.label == "vendor library (cuBLAS, recorded)");
  CHECK(!v.program);
  CHECK(v.kernel_runs == 0);
  CHECK(v.cost_note == "a library, not a heuristic");
  REQUIRE(v.train.valid);
  REQUIRE(v.test.valid);
  CHECK(v.train.shapes == p->train_rows.size());
  CHECK(v.test.shapes == p->test_rows.size());

  // The figures are the recorded medians scored like any method: recompute them by hand.
  const auto check_set = [&](const Scorer& s, const SetScore& got) {
    double log_oracle = 0, log_expert = 0;
    for (std::size_t i = 0; i < s.rows().size(); ++i) {
      const auto t = p->backend->vendor_time(p->shape(s.rows()[i]));
      REQUIRE(t);
      REQUIRE(*t > 0);
      log_oracle += s.weights()[i] * std::log(s.oracle_times()[i] / *t);
      log_expert += s.weights()[i] * std::log(s.expert_times()[i] / *t);
    }
    CHECK(got.fraction_of_oracle == doctest::Approx(std::exp(log_oracle)));
    CHECK(got.speedup_vs_expert == doctest::Approx(std::exp(log_expert)));
  };
  check_set(*p->train, v.train);
  check_set(*p->test, v.test);
  // The layouts of one M, N, K have their own cuBLAS times.
  int differ = 0;
  for (std::size_t r = 0; r < p->table->shapes().size(); ++r) {
    Shape nn = p->shape(r), nt = nn;
    nn.layout = "NN";
    nt.layout = "NT";
    REQUIRE(p->backend->vendor_time(nn));
    REQUIRE(p->backend->vendor_time(nt));
    differ += *p->backend->vendor_time(nn) != *p->backend->vendor_time(nt);
  }
  CHECK(differ > 100);

  // One shape without a vendor time drops the row: a partial figure would not compare.
  const MissingOneVendor partial(*p->backend, p->shape(p->test_rows.back()));
  CHECK(vendor_times(*p->train, &partial));
  CHECK(!vendor_times(*p->test, &partial));
  CHECK(compute_baselines(*p->train, *p->test, p->expert, &partial).size() == 5);

  // Without a backend, or with one that has no vendor times, there is no vendor row.
  CHECK(compute_baselines(*p->train, *p->test, p->expert).size() == 5);
  const Problem& lecture = test::lecture_problem("h100");
  const auto analytic =
      compute_baselines(*lecture.train, *lecture.test, lecture.expert, lecture.backend.get());
  REQUIRE(analytic.size() == 5);
  for (const auto& m : analytic)
    CHECK(m.key != "vendor");
  CHECK(!vendor_times(*lecture.train, lecture.backend.get()));
  CHECK(!vendor_method(*lecture.train, *lecture.test, lecture.backend.get()));
}

TEST_CASE("baselines: --tree-leaves bounds the decision tree, and fewer leaves fit train worse") {
  ProblemSpec spec;
  spec.gpu = "h100";
  const auto fitted = [&](int leaves) {
    spec.tree_leaves = leaves;
    const auto p = load_problem(spec);
    const auto methods =
        compute_baselines(*p->train, *p->test, p->expert, p->backend.get(), spec.tree_leaves);
    for (const MethodResult& m : methods)
      if (m.key == "tree") return m;
    FAIL("no tree row");
    return methods.front();
  };
  const MethodResult one = fitted(1), two = fitted(2), eight = fitted(8);
  CHECK(one.program->rules.empty());
  CHECK(two.program->rules.size() <= 1);
  CHECK(eight.program->rules.size() <= 7);
  CHECK(eight.program->rules.size() > two.program->rules.size());
  // A one-leaf tree is the best single config; more leaves never fit the training half worse.
  spec.tree_leaves = 8;
  const auto p = load_problem(spec);
  CHECK(one.train.fraction_of_oracle ==
        doctest::Approx(p->train->score(best_single_config(*p->train)).fraction_of_oracle));
  CHECK(two.train.fraction_of_oracle >= one.train.fraction_of_oracle);
  CHECK(eight.train.fraction_of_oracle > two.train.fraction_of_oracle);
}

} // namespace baselines_test
