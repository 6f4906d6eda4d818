// The mock LLM's operators that read what a run has measured: refit (regroup the shapes into a
// small tree of measured configs) and waves (a rule for grids under one wave). Their feedback here
// comes from the analytic h100 table of the lecture shapes, as the cascade would send it.
#include "evolve/mock_llm.hpp"
#include "ir/diff.hpp"
#include "ir/text.hpp"
#include "support/fixtures.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <numeric>
#include <set>
#include <vector>

// In a namespace of its own: the test files are compiled several to a unit (unity build).
namespace mock_llm_measured_ops_test {

using namespace tv;
using tv::test::gpu;
using tv::test::lecture_problem;

namespace {

/// Feedback for `parent` on every training shape: its time, the best time, and the `keep`
/// fastest configs of the table as "measured".
std::vector<ShapeFeedback> feedback_for(const Program& parent, std::size_t keep) {
  const Problem& p = lecture_problem("h100");
  const TimeTable& t = *p.table;
  std::vector<ShapeFeedback> out;
  for (std::size_t r : p.train_rows) {
    ShapeFeedback f;
    f.shape = t.shapes()[r];
    f.config = parent.choose(f.shape);
    const int col = t.config_index(f.config);
    REQUIRE(col >= 0);
    f.seconds = t.time(r, std::size_t(col));
    std::vector<std::size_t> order(t.configs().size());
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(),
              [&](std::size_t a, std::size_t b) { return t.time(r, a) < t.time(r, b); });
    for (std::size_t i = 0; i < keep && i < order.size(); ++i)
      f.measured.emplace_back(t.time(r, order[i]), t.configs()[order[i]]);
    f.best_seconds = t.oracle_time(r);
    f.best_config = t.configs()[std::size_t(t.oracle_config(r))];
    out.push_back(f);
  }
  // The cascade sends the worst shapes first.
  std::stable_sort(out.begin(), out.end(), [](const ShapeFeedback& a, const ShapeFeedback& b) {
    return a.seconds / a.best_seconds > b.seconds / b.best_seconds;
  });
  return out;
}

/// A request for a child of `parent` with proposal seed `seed` and the feedback `fb`.
MutationRequest request_for(const Program& parent, std::uint64_t seed,
                            const std::vector<ShapeFeedback>& fb) {
  MutationRequest r;
  r.parent_text = print_program(parent);
  r.seed = seed;
  r.feedback = fb;
  return r;
}

/// The child a reply gives when applied to the parent's text (nullopt when it does not apply).
std::optional<Program> applied(const std::string& parent_text, const std::string& reply) {
  const auto blocks = parse_diff(reply);
  if (blocks.empty()) return std::nullopt;
  const DiffResult d = apply_diff(parent_text, blocks);
  if (!d.all_applied()) return std::nullopt;
  return parse_program(d.text).program;
}

/// Every config a program can return.
std::vector<Config> configs_of(const Program& p) {
  std::vector<Config> out{p.default_config};
  for (const Rule& r : p.rules)
    out.push_back(r.config);
  return out;
}

} // namespace

TEST_CASE("mock_llm: refit and waves apply cleanly and use what was measured") {
  const Problem& p = lecture_problem("h100");
  const Gpu& g = gpu("h100");
  MockLlmOptions o;
  MockLlm llm(g, o);
  const std::vector<ShapeFeedback> fb = feedback_for(p.expert, 8);
  std::set<Config> measured;
  for (const ShapeFeedback& f : fb)
    for (const auto& [secs, c] : f.measured)
      measured.insert(c);

  std::map<std::string, int> ops;
  int refit_beats_parent = 0;
  for (std::uint64_t seed = 0; seed < 600; ++seed) {
    const MutationRequest r = request_for(p.expert, seed, fb);
    const MockProposal prop = llm.propose_detailed(r);
    REQUIRE(prop.reply.ok);
    REQUIRE(prop.child);
    const Program& child = *prop.child;
    ops[prop.reply.op]++;
    INFO(prop.reply.op, "\n", prop.reply.text);
    const auto got = applied(r.parent_text, prop.reply.text);
    REQUIRE(got);
    CHECK(*got == child); // the diff gives exactly the intended program
    if (prop.reply.op == "refit") {
      // Every leaf is a config measured on some training shape.
      for (const Config& c : configs_of(child))
        CHECK(measured.count(c) == 1);
      CHECK(child.rules.size() <= 9); // 10 leaves at most
      refit_beats_parent += p.train->score(child).speedup_vs_expert > 1.0;
    } else if (prop.reply.op == "waves") {
      // One new rule, bounded on tiles or the output size, with a smaller block than what
      // decided its shape before.
      REQUIRE(child.rules.size() == p.expert.rules.size() + 1);
      bool found = false;
      for (std::size_t i = 0; i < child.rules.size() && !found; ++i) {
        const Rule& rule = child.rules[i];
        if (i < p.expert.rules.size() && rule == p.expert.rules[i]) continue;
        found = true;
        const bool derived = std::any_of(
            rule.condition.terms.begin(), rule.condition.terms.end(), [](const Comparison& c) {
              return c.feature == Feature::tiles || c.feature == Feature::MN;
            });
        CHECK(derived);
        const Config& before =
            i < p.expert.rules.size() ? p.expert.rules[i].config : p.expert.default_config;
        CHECK((long long)rule.config.BM * rule.config.BN < (long long)before.BM * before.BN);
      }
      CHECK(found);
    }
  }
  for (const char* op : {"refit", "waves"})
    CHECK_MESSAGE(ops[op] > 10, op);
  // The lecture expert leaves a lot on the table: most refits from the table's best configs
  // beat it on its own training shapes.
  CHECK(refit_beats_parent * 2 > ops["refit"]);
}

TEST_CASE("mock_llm: refits on many training shapes may have more leaves, one per 80 shapes") {
  const Problem& p = lecture_problem("h100");
  const Gpu& g = gpu("h100");
  // 44 x 46 = 2,024 training shapes: the lecture's feedback again with M scaled, so the shapes
  // are distinct and a tree has something to split.
  const std::vector<ShapeFeedback> base = feedback_for(p.expert, 8);
  std::vector<ShapeFeedback> fb;
  for (int copy = 0; copy < 46; ++copy)
    for (ShapeFeedback f : base) {
      f.shape.M = f.shape.M * (copy + 1) + copy;
      fb.push_back(f);
    }
  const auto most_rules = [&](int shapes_per_leaf) {
    MockLlmOptions o;
    o.refit_weight = 1; // refits only (the other operators' weights stay small beside it)
    o.refit_shapes_per_leaf = shapes_per_leaf;
    MockLlm llm(g, o);
    std::size_t most = 0;
    int refits = 0;
    for (std::uint64_t seed = 0; seed < 300; ++seed) {
      const MutationRequest r = request_for(p.expert, seed, fb);
      const MockProposal prop = llm.propose_detailed(r);
      if (prop.reply.op != "refit" || !prop.child) continue;
      ++refits;
      most = std::max(most, prop.child->rules.size());
    }
    CHECK(refits > 50);
    return most;
  };
  const std::size_t scaled = most_rules(80); // the default: up to 2,024 / 80 = 25 leaves
  CHECK(scaled > 9);
  CHECK(scaled <= 24);
  CHECK(most_rules(0) <= 9); // off: 10 leaves at most, whatever the training set
  CHECK(MockLlmOptions{}.refit_shapes_per_leaf == 80);
}

TEST_CASE("mock_llm: without measured configs refit never applies") {
  const Problem& p = lecture_problem("h100");
  MockLlmOptions o;
  MockLlm llm(gpu("h100"), o);
  std::vector<ShapeFeedback> fb = feedback_for(p.expert, 0);
  for (std::uint64_t seed = 0; seed < 300; ++seed) {
    const MutationRequest r = request_for(p.expert, seed, fb);
    const MutationReply reply = llm.propose(r);
    CHECK(reply.op != "refit");
  }
}

} // namespace mock_llm_measured_ops_test
