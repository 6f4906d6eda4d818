// Leaf exploration: what the search left of the cap goes to the leaves of refitted trees.
#include "eval/problem.hpp"
#include "evolve/evolution.hpp"
#include "evolve/leaf_explore.hpp"
#include "evolve/mock_llm.hpp"
#include "ir/text.hpp"
#include "support/fixtures.hpp"
#include "support/step_option.hpp"
#include "support/temp_dir.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

// In a namespace of its own: the test files are compiled several to a unit (unity build).
namespace leaf_explore_test {

using namespace tv;

using test::cfg;

/// Four shapes in two leaves (M <= 64: shapes 0 and 1; the default: 2 and 3) and a record of
/// what was timed.
struct Bench {
  std::vector<Shape> shapes;
  Program tree;
  std::set<std::pair<std::size_t, Config>> timed;
  std::map<std::size_t, std::vector<Config>> fastest; ///< per shape, fastest first
  std::vector<std::pair<Config, std::vector<std::size_t>>> calls;
  long long limit = 1000; ///< pairs the time hook accepts in all

  Bench() {
    for (std::int64_t m : {16, 64, 512, 4096})
      shapes.push_back(Shape{m, 4096, 4096, DType::bf16, "", 1.0});
    tree = parse_program_or_throw("def choose(M, N, K):\n"
                                  "    if M <= 64:\n"
                                  "        return Config(BM=32, BN=64, BK=64, warps=4, stages=3, "
                                  "group=8)\n"
                                  "    return Config(BM=128, BN=128, BK=64, warps=4, stages=3, "
                                  "group=8)\n",
                                  "test");
  }

  ExploreHooks hooks() {
    ExploreHooks h;
    h.fit = [this] { return tree; };
    h.fastest = [this](std::size_t i, std::size_t k) {
      std::vector<Config> v = fastest[i];
      v.resize(std::min(k, v.size()));
      return v;
    };
    h.timed = [this](std::size_t i, const Config& c) { return timed.count({i, c}) > 0; };
    h.time = [this](const Config& c, const std::vector<std::size_t>& which) {
      if ((long long)which.size() > limit) return false;
      limit -= (long long)which.size();
      for (std::size_t i : which) {
        CHECK(timed.count({i, c}) == 0); // never a pair timed before
        timed.insert({i, c});
      }
      calls.emplace_back(c, which);
      return true;
    };
    return h;
  }
};

TEST_CASE("leaf_explore: each leaf times its config and its shapes' winners on its other shapes") {
  Bench b;
  const Config small = b.tree.rules[0].config, large = b.tree.default_config;
  const Config a = cfg(16, 64, 64, 4, 3, 8), c = cfg(64, 128, 64, 4, 3, 8);
  // Shape 0 measured its leaf's config and a (a faster); shape 1 only a. Shape 2 measured c and
  // its leaf's config; shape 3 its leaf's config.
  b.timed = {{0, small}, {0, a}, {1, a}, {2, c}, {2, large}, {3, large}};
  b.fastest = {{0, {a, small}}, {1, {a}}, {2, {c, large}}, {3, {large}}};
  const ExploredLeaves e = explore_leaves(b.shapes, b.hooks(), 3, 1);
  // The small leaf: its config on shape 1, then a is timed everywhere already; the large leaf:
  // its config everywhere already, c on shape 3.
  REQUIRE(b.calls.size() == 2);
  CHECK(b.calls[0].first == small);
  CHECK(b.calls[0].second == std::vector<std::size_t>{1});
  CHECK(b.calls[1].first == c);
  CHECK(b.calls[1].second == std::vector<std::size_t>{3});
  CHECK(e.pairs == 2);
  CHECK(e.rounds == 1);
  CHECK_FALSE(e.limited);
  CHECK(e.summary() == "2 pairs timed in 1 round");

  // A second round finds nothing left to time and stops there.
  const ExploredLeaves again = explore_leaves(b.shapes, b.hooks(), 3, 8);
  CHECK(again.pairs == 0);
  CHECK(again.rounds == 0);
  CHECK(b.calls.size() == 2);
}

TEST_CASE("leaf_explore: the prior ranks the configs no shape measured, per leaf") {
  Bench b;
  const Config small = b.tree.rules[0].config, large = b.tree.default_config;
  b.timed = {{0, small}, {1, small}, {2, large}, {3, large}};
  b.fastest = {{0, {small}}, {1, {small}}, {2, {large}}, {3, {large}}};
  // Three configs in the space: the prior likes p1 for small M and p2 for large M; p3 cannot
  // run on shape 3.
  const Config p1 = cfg(16, 32, 64, 2, 3, 8), p2 = cfg(256, 128, 64, 8, 3, 8),
               p3 = cfg(64, 64, 32, 4, 2, 8);
  ExploreHooks h = b.hooks();
  h.space = {p3, p1, p2};
  std::vector<std::vector<double>> rows;
  for (std::size_t i = 0; i < b.shapes.size(); ++i) {
    const bool small_m = b.shapes[i].M <= 64;
    rows.push_back({i == 3 ? std::numeric_limits<double>::infinity() : 0.5, small_m ? 0.0 : 1.0,
                    small_m ? 1.0 : 0.0});
  }
  h.prior = [&](std::size_t i) { return rows[i].data(); };
  const ExploredLeaves e = explore_leaves(b.shapes, h, 2, 1);
  // Two configs per leaf that need timing: the prior's first two (p3 is left out on the large
  // leaf, where one shape cannot run it).
  REQUIRE(b.calls.size() == 4);
  CHECK(b.calls[0].first == p1);
  CHECK(b.calls[1].first == p3);
  CHECK(b.calls[2].first == p2);
  CHECK(b.calls[3].first == p1);
  CHECK(b.calls[3].second == std::vector<std::size_t>{2, 3});
  CHECK(e.pairs == 8);
}

TEST_CASE("leaf_explore: the limit stops it at the first config that does not fit") {
  Bench b;
  const Config small = b.tree.rules[0].config;
  const Config a = cfg(16, 64, 64, 4, 3, 8);
  b.fastest = {{0, {a}}, {1, {a}}};
  b.limit = 3; // the small leaf's config and a take 2 each
  const ExploredLeaves e = explore_leaves(b.shapes, b.hooks(), 3, 8);
  REQUIRE(b.calls.size() == 1);
  CHECK(b.calls[0].first == small);
  CHECK(e.limited);
  CHECK(e.pairs == 2);
  CHECK(e.rounds == 1);
  CHECK(e.summary() == "2 pairs timed in 1 round (stopped at the kernel-run limit)");
}

TEST_CASE("leaf_explore: a capped run spends what the search left, counted, and optional") {
  // The measured H200 table (48 configs on the lecture): the search stagnates well before the
  // 30% cap; exploration spends the rest, never more.
  ProblemSpec spec;
  spec.gpu = "h200";
  spec.backend = "table:" TILEVOLVE_SOURCE_DIR "/data/replay/h200_triton.csv";
  spec.shapes = TILEVOLVE_SOURCE_DIR "/data/shapes/lecture.csv";
  const auto p = load_problem(spec);
  MockLlm m(p->gpu);
  EvolutionOptions o = with_backend_defaults(EvolutionOptions{}, *p);
  o.budget = 400;
  test::ScratchDir dir("tv_leaf_explore");
  const EvolutionResult r = Evolution(*p, m, o, dir.at("run")).run();
  const long long cap = o.kernel_runs.cap(r.exhaustive_train_runs);
  const PassReport& explored = *r.pass("leaf-exploration");
  CHECK(explored.kernel_runs > 0);
  CHECK(explored.summary.find("pairs timed") != std::string::npos);
  CHECK(r.counters.kernel_runs <= cap);
  long long sum = 0;
  for (const auto& [op, c] : r.per_operator)
    sum += c.kernel_runs;
  for (const PassReport& pass : r.passes)
    sum += pass.kernel_runs;
  CHECK(sum == r.counters.kernel_runs);
  // Resuming the finished run reports the same exploration and times nothing more.
  const EvolutionResult resumed = Evolution(*p, m, o, dir.at("run")).resume();
  CHECK(resumed.pass("leaf-exploration")->to_json() == explored.to_json());
  CHECK(resumed.counters.to_json() == r.counters.to_json());
  CHECK(resumed.best.program == r.best.program);
  // The same seed, the same run.
  const EvolutionResult twice = Evolution(*p, m, o).run();
  CHECK(twice.best.program == r.best.program);
  CHECK(twice.counters.kernel_runs == r.counters.kernel_runs);

  o.skip("leaf-exploration");
  const EvolutionResult off = Evolution(*p, m, o).run();
  CHECK_FALSE(off.pass("leaf-exploration")->ran);
  CHECK(off.pass("leaf-exploration")->kernel_runs == 0);
  CHECK(off.best_searched.program == r.best_searched.program); // the search itself is the same
  // The runs differ by exploration's pairs, and by what the steps after it time for the
  // program each returns (polish, guard validation).
  const auto runs = [](const EvolutionResult& x, const char* pass) {
    return x.pass(pass)->kernel_runs;
  };
  CHECK(off.counters.kernel_runs + explored.kernel_runs ==
        r.counters.kernel_runs - runs(r, "leaf-polish") + runs(off, "leaf-polish") -
            runs(r, "guard-validation") + runs(off, "guard-validation"));
  // Without a cap (the analytic model) it times at most 1% of exhaustive tuning.
  const EvolutionResult lecture = Evolution(test::lecture_problem("h100"), m,
                                            [] {
                                              EvolutionOptions l;
                                              l.budget = 100;
                                              return l;
                                            }())
                                      .run();
  const PassReport& lectured = *lecture.pass("leaf-exploration");
  CHECK(lectured.kernel_runs > 0);
  CHECK(lectured.kernel_runs <= lecture.exhaustive_train_runs / 100);
  CHECK(lectured.summary.find("pairs timed") != std::string::npos);
  // Options: written, read back, and absent (skipped) in a run written before exploration.
  test::check_pass_option("leaf-exploration", "explore");
}

TEST_CASE("leaf_explore: without a cap it never takes the run past 4% of exhaustive tuning") {
  // 1% of exhaustive tuning, less what would take the run past 4%.
  CHECK(uncapped_explore_limit(100000, 0) == 1000);
  CHECK(uncapped_explore_limit(100000, 3000) == 1000);
  CHECK(uncapped_explore_limit(100000, 3600) == 400);
  CHECK(uncapped_explore_limit(100000, 4000) == 0);
  CHECK(uncapped_explore_limit(100000, 9000) == 0);
  CHECK(uncapped_explore_limit(50, 0) == 0); // less than one kernel run
  // A run where the ceiling binds (mi300x, lecture split seed 72, seed 2: its search and
  // sampled sizes time 3.0% of exhaustive tuning): exploration times up to 4%, not 1% more (the
  // steps after it, polish and guard validation, are counted apart).
  ProblemSpec spec;
  spec.gpu = "mi300x";
  spec.seed = 72;
  const auto p = load_problem(spec);
  MockLlm m(p->gpu);
  EvolutionOptions o;
  o.budget = 2000;
  o.seed = 2;
  const EvolutionResult r = Evolution(*p, m, o).run();
  const double exhaustive = double(r.exhaustive_train_runs);
  const long long explored = r.pass("leaf-exploration")->kernel_runs;
  const long long before = r.counters.kernel_runs - explored - r.pass("leaf-polish")->kernel_runs -
                           r.pass("guard-validation")->kernel_runs;
  REQUIRE(double(before) > 0.03 * exhaustive); // the ceiling binds
  CHECK(explored > 0);
  CHECK(double(before + explored) <= 0.04 * exhaustive);
}

} // namespace leaf_explore_test
