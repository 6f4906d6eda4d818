// The evolution loop with K candidates per parent, merges, the context it gives each request,
// and mutators that run out (budgets).
#include "evolve/evolution.hpp"
#include "evolve/mock_llm.hpp"
#include "evolve/passes/pipeline.hpp"
#include "evolve/run_dir.hpp"
#include "support/fixtures.hpp"
#include "support/mock_delegate.hpp"
#include "support/shell.hpp"
#include "support/temp_dir.hpp"

#include <doctest/doctest.h>
#include <filesystem>
#include <set>
#include <sstream>

// In a namespace of its own: the test files are compiled several to a unit (unity build).
namespace evolution_candidates_test {

using namespace tv;

namespace {

/// The mock, remembering every request it was given.
class Recording : public test::MockDelegate {
public:
  using MockDelegate::MockDelegate;
  MutationReply propose(const MutationRequest& r) override {
    seen.push_back(r);
    return mock_.propose(r);
  }
  std::vector<MutationRequest> seen;
};

/// The mock with a request budget and a fake token count, like the LLM mutator's.
class Budgeted : public test::MockDelegate {
public:
  Budgeted(const Gpu& g, long long max) : MockDelegate(g), max_(max) {}
  MutationReply propose(const MutationRequest& r) override {
    ++used_;
    return mock_.propose(r);
  }
  std::string exhausted() const override {
    return used_ >= max_ ? "request budget spent: " + std::to_string(used_) : "";
  }
  long long remaining_requests() const override { return std::max(0LL, max_ - used_); }
  nlohmann::json state() const override { return {{"used", used_}}; }
  void restore(const nlohmann::json& s) override { used_ = s.at("used").get<long long>(); }

private:
  long long max_, used_ = 0;
};

/// A run directory `name` in `scratch`, not created yet.
std::string temp_dir(const test::ScratchDir& scratch, const std::string& name) {
  return scratch.at(name);
}

} // namespace

TEST_CASE("evolution: K candidates per parent merge the ones that beat it, same seed same run") {
  const Problem& p = test::lecture_problem("h100");
  MockLlm m(p.gpu);
  EvolutionOptions o;
  o.budget = 400;
  o.candidates = 4;
  o.seed = 3;
  const EvolutionResult a = Evolution(p, m, o).run();
  const EvolutionResult b = Evolution(p, m, o).run();
  CHECK(a.best.program == b.best.program);
  CHECK(a.counters.to_json() == b.counters.to_json());
  CHECK(a.improvements.size() == b.improvements.size());
  REQUIRE(a.per_operator.count("merge"));
  const Counters& merge = a.per_operator.at("merge");
  MESSAGE("merges: " << merge.proposed << " proposed, " << merge.full << " full, " << merge.improved
                     << " better than their parent");
  CHECK(merge.proposed > 0);
  CHECK(merge.full > 0);
  CHECK(a.programs <= 400);
  CHECK(a.counters.proposed == a.programs); // merges are programs like the others
  CHECK(a.best_train.speedup_vs_expert > 1.0);
  // K = 1 is the plain loop.
  EvolutionOptions one = o;
  one.candidates = 1;
  CHECK(Evolution(p, m, one).run().per_operator.count("merge") == 0);
}

TEST_CASE("evolution: merges are recorded with the candidates they came from") {
  const test::ScratchDir scratch("tilevolve_candidates");
  const Problem& p = test::lecture_problem("h100");
  MockLlm m(p.gpu);
  EvolutionOptions o;
  o.budget = 300;
  o.candidates = 3;
  const std::string dir = temp_dir(scratch, "events");
  Evolution(p, m, o, dir).run();
  std::istringstream lines(test::read_text(dir + "/events.ndjson"));
  std::string line;
  std::map<std::uint64_t, nlohmann::json> programs;
  int merges = 0;
  while (std::getline(lines, line)) {
    const auto e = nlohmann::json::parse(line);
    if (e["event"] != "program") continue;
    programs[e["id"]] = e;
    if (e["op"] != "merge") continue;
    ++merges;
    REQUIRE(e["merged"].size() >= 2);
    for (const auto& id : e["merged"]) {
      REQUIRE(programs.count(id));
      const auto& c = programs[id];
      CHECK(c["parent"] == e["parent"]); // siblings of one group
      CHECK(c["stage"] == "full");
    }
  }
  CHECK(merges > 0);
}

TEST_CASE("evolution: each request carries its candidate index, the best program, the expert's "
          "times and the parent's earlier attempts") {
  const Problem& p = test::lecture_problem("h100");
  Recording m(p.gpu);
  EvolutionOptions o;
  o.budget = 150;
  o.candidates = 3;
  Evolution(p, m, o).run();
  REQUIRE(m.seen.size() >= 100);
  std::set<std::string> stages;
  bool later_best = false;
  for (std::size_t i = 0; i < m.seen.size(); ++i) {
    const MutationRequest& r = m.seen[i];
    CHECK(r.candidates == 3);
    CHECK(r.candidate < 3);
    if (r.candidate > 0) {
      CHECK(r.parent_text == m.seen[i - 1].parent_text); // one parent per group
      CHECK(r.seed != m.seen[i - 1].seed);
    }
    CHECK_FALSE(r.best_text.empty());
    later_best = later_best || r.best_score > 1.0;
    CHECK(r.inspiration_scores.size() == r.inspiration_texts.size());
    for (const ShapeFeedback& f : r.feedback)
      CHECK(f.expert_seconds > 0);
    for (const PreviousAttempt& a : r.previous_attempts) {
      stages.insert(a.stage);
      CHECK_FALSE(a.outcome.empty());
    }
    CHECK(r.previous_attempts.size() <= 4);
  }
  CHECK(later_best);
  CHECK(stages.count("full"));
  CHECK(stages.size() >= 2);
}

TEST_CASE("evolution: a mutator that runs out stops the run with its reason, resumably") {
  const test::ScratchDir scratch("tilevolve_candidates");
  const Problem& p = test::lecture_problem("h100");
  EvolutionOptions o;
  o.budget = 500;
  o.checkpoint_every = 16;
  Budgeted m(p.gpu, 37);
  const EvolutionResult r = Evolution(p, m, o).run();
  CHECK(r.programs == 37); // the request limit shrinks the last batch
  CHECK(r.stop_reason == "request budget spent: 37");

  const std::string dir = temp_dir(scratch, "budget");
  Budgeted first(p.gpu, 37);
  Evolution(p, first, o, dir).run();
  Budgeted second(p.gpu, 37);
  const EvolutionResult again = Evolution(p, second, o, dir).resume();
  CHECK(again.programs == 37);
  CHECK(again.stop_reason == r.stop_reason);
  CHECK(again.best.program == r.best.program);
}

TEST_CASE("evolution: a resumed finished run replays its passes' reports and times nothing") {
  // The run stops early on the analytic model: leaf exploration, polish and refit validation see
  // the run's pairs, then guard validation times more. Resumed, the passes are not run again
  // (polish and refit validation would see guard validation's pairs and could decide otherwise):
  // the checkpoint holds their reports and the program they handed on.
  const test::ScratchDir scratch("tilevolve_candidates");
  const Problem& p = test::lecture_problem("h100");
  EvolutionOptions o;
  o.budget = 500;
  // A run whose guard validation times pairs: with the refit's size by a leaf count, here.
  o.refit_complexity = false;
  const std::string dir = temp_dir(scratch, "late");
  Budgeted first(p.gpu, 37);
  const EvolutionResult r = Evolution(p, first, o, dir).run();
  REQUIRE(r.pass("guard-validation")->kernel_runs > 0);
  const auto cp = nlohmann::json::parse(read_file(dir + "/checkpoint.json"));
  REQUIRE(cp["state"]["search_done"] == true);
  REQUIRE(cp["state"]["passes"].size() == pass_names().size());
  CHECK(cp["state"]["pass_runs"]["guard-validation"] == r.pass("guard-validation")->kernel_runs);
  Budgeted second(p.gpu, 37);
  const EvolutionResult again = Evolution(p, second, o, dir).resume();
  CHECK(again.best.program == r.best.program);
  CHECK(again.counters.to_json() == r.counters.to_json());
  REQUIRE(again.passes.size() == r.passes.size());
  for (std::size_t i = 0; i < r.passes.size(); ++i) // seconds included: replayed, not re-run
    CHECK(again.passes[i].to_json() == r.passes[i].to_json());
  const auto cp2 = nlohmann::json::parse(read_file(dir + "/checkpoint.json"));
  CHECK(cp2["state"]["cache"] == cp["state"]["cache"]);
}

TEST_CASE(
    "evolution: with candidates, resuming from a checkpoint ends like the uninterrupted run") {
  const test::ScratchDir scratch("tilevolve_candidates");
  const Problem& p = test::lecture_problem("h100");
  MockLlm m(p.gpu);
  EvolutionOptions o;
  o.seed = 6;
  o.budget = 200;
  o.candidates = 3;
  o.checkpoint_every = 1;
  const std::string full_dir = temp_dir(scratch, "resume_full");
  const EvolutionResult full = Evolution(p, m, o, full_dir).run();
  // Snapshot the directory after the first checkpoint past 100 programs, as a kill would leave
  // it (the attempt history of each parent must come back for the prompts to be the same).
  const std::string part_dir = temp_dir(scratch, "resume_part");
  {
    const std::string dir = temp_dir(scratch, "resume_src");
    Evolution evo(p, m, o, dir);
    bool copied = false;
    evo.on_progress([&](const Progress& pr) {
      if (!copied && pr.done >= 100) {
        std::filesystem::copy(dir, part_dir);
        copied = true;
      }
    });
    evo.run();
  }
  const auto cp = nlohmann::json::parse(read_file(part_dir + "/checkpoint.json"));
  CHECK(cp["state"]["done"].get<int>() >= 100);
  CHECK_FALSE(cp["state"]["history"].empty());
  const EvolutionResult again = Evolution(p, m, o, part_dir).resume();
  CHECK(again.best.program == full.best.program);
  CHECK(again.counters.to_json() == full.counters.to_json());
  CHECK(read_file(part_dir + "/events.ndjson") == read_file(full_dir + "/events.ndjson"));
}

} // namespace evolution_candidates_test
