// The kernel-run budget (--max-kernel-runs): what it reads and refuses, the cap it sets, how it
// travels in a run's options, and that a capped run stops at the cap (over it by at most one
// program's timings) as the same run without a cap, cut short.
#include "evolve/evolution.hpp"
#include "evolve/kernel_run_budget.hpp"
#include "evolve/mock_llm.hpp"
#include "evolve/run_dir.hpp"
#include "ir/error.hpp"
#include "ir/text.hpp"
#include "support/fixtures.hpp"
#include "support/shell.hpp"
#include "support/temp_dir.hpp"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>
#include <sstream>

// In a namespace of its own: the test files are compiled several to a unit (unity build).
namespace kernel_run_budget_test {

using namespace tv;

namespace {

/// The program events of a run's events.ndjson, one line each.
std::vector<std::string> program_events(const std::string& dir) {
  std::istringstream in(read_file(dir + "/events.ndjson"));
  std::vector<std::string> out;
  for (std::string line; std::getline(in, line);)
    if (nlohmann::json::parse(line)["event"] == "program") out.push_back(line);
  return out;
}

} // namespace

TEST_CASE("kernel_run_budget: counts and shares are read, shown and capped") {
  const KernelRunBudget n = KernelRunBudget::parse("2000");
  CHECK(n.runs == 2000);
  CHECK(n.share == 0);
  CHECK(n.text() == "2000");
  CHECK(n.cap(100) == 2000); // a count does not depend on the problem
  const KernelRunBudget p = KernelRunBudget::parse("27.5%");
  CHECK(p.runs == 0);
  CHECK(p.share == doctest::Approx(0.275));
  CHECK(p.text() == "27.5%");
  // Shown with enough digits to give the same cap back.
  const KernelRunBudget fine = KernelRunBudget::parse("27.123456%");
  CHECK(fine.text() == "27.123456%");
  CHECK(KernelRunBudget::parse(fine.text()).cap(1000000) == fine.cap(1000000));
  CHECK(p.cap(3240) == 891); // floor(0.275 x 3240)
  CHECK(p.cap(1) == 1);      // never a cap of 0, which would mean none
  CHECK(n.describe() == "at most 2000 kernel runs");
  CHECK(p.describe() == "at most 27.5% of the kernel runs of exhaustive tuning of the training "
                        "shapes");
  CHECK(KernelRunBudget::parse("100%").cap(500) == 500);
  CHECK_FALSE(KernelRunBudget{}.any());
  CHECK(KernelRunBudget{}.cap(3240) == 0);
  CHECK_FALSE(KernelRunBudget::parse("none").any()); // the one spelling of no cap
  CHECK_FALSE(KernelRunBudget::parse("none").backend_default);
  for (const char* bad :
       {"", "none%", "None", "0", "-5", "12x", "1e3", "0%", "101%", "%", "abc%", "30 %",
        "99999999999999999999", "1e-323%"}) { // the last: its fraction underflows to 0
    INFO(bad);
    CHECK_THROWS_AS(KernelRunBudget::parse(bad), InputError);
  }
}

TEST_CASE("kernel_run_budget: options carry it only when set, and refuse bad values") {
  EvolutionOptions o;
  const nlohmann::json none = o.to_json();
  CHECK_FALSE(none.contains("max_kernel_runs"));
  CHECK_FALSE(none.contains("max_kernel_share"));
  CHECK(EvolutionOptions::from_json(none).kernel_runs == KernelRunBudget{});
  o.kernel_runs = KernelRunBudget::parse("30%");
  CHECK(EvolutionOptions::from_json(o.to_json()).kernel_runs == o.kernel_runs);
  o.kernel_runs = KernelRunBudget::parse("1234");
  CHECK(EvolutionOptions::from_json(o.to_json()).kernel_runs.runs == 1234);
  const std::vector<std::pair<std::string, nlohmann::json>> bad{
      {"max_kernel_runs", 0},  {"max_kernel_runs", "12"}, {"max_kernel_runs", 1.5},
      {"max_kernel_share", 0}, {"max_kernel_share", 1.5}, {"max_kernel_share", "30%"}};
  for (const auto& field : bad) { // no structured binding: clang 14 refuses one inside INFO
    nlohmann::json j = none;
    j[field.first] = field.second;
    INFO(j[field.first].dump());
    CHECK_THROWS_AS(EvolutionOptions::from_json(j), InputError);
  }
}

TEST_CASE("kernel_run_budget: not given, the backend decides: no stop on the analytic model, "
          "200 programs without a new best or 30% on recorded timings") {
  const Problem& analytic = test::lecture_problem("h100");
  ProblemSpec spec;
  spec.backend = "replay:" TILEVOLVE_SOURCE_DIR "/data/replay/a100_hf_mm.txt";
  spec.gpu_is_default = true;
  const auto replay = load_problem(spec);
  const EvolutionOptions given = [] {
    EvolutionOptions o;
    o.stagnation = 50;
    o.kernel_runs.runs = 900; // set on the "not given" value: given
    return o;
  }();
  const EvolutionOptions a = with_backend_defaults(EvolutionOptions{}, analytic);
  CHECK(a.stagnation == 0);
  CHECK(a.kernel_runs == KernelRunBudget{});
  const EvolutionOptions r = with_backend_defaults(EvolutionOptions{}, *replay);
  CHECK(r.stagnation == kCostlyStagnation);
  CHECK(r.kernel_runs.text() == "30%");
  CHECK(r.rule_penalty == kNoisyRulePenalty);
  for (const Problem* p : {&analytic, static_cast<const Problem*>(replay.get())}) {
    const EvolutionOptions g = with_backend_defaults(given, *p);
    CHECK(g.stagnation == 50);
    CHECK(g.kernel_runs.text() == "900");
    CHECK(with_backend_defaults(g, *p).to_json() == g.to_json()); // resolving twice: the same
  }
  // A run on recorded timings writes what it resolved to its config.json, so a resumed run
  // stops where the first one would have, and never passes the 30%.
  MockLlm m(replay->gpu, mock_options_for(*replay, {}));
  test::ScratchDir dir("tv_kernel_defaults");
  const EvolutionResult run = Evolution(*replay, m, EvolutionOptions{}, dir.at("run")).run();
  CHECK((run.stop_reason == "kernel-run budget" || run.stop_reason == "stagnation"));
  CHECK(run.programs < 1000);
  CHECK(run.counters.kernel_runs <= run.exhaustive_train_runs * 30 / 100);
  const nlohmann::json config = read_run_config(dir.at("run"));
  CHECK(config["options"]["stagnation"] == kCostlyStagnation);
  CHECK(EvolutionOptions::from_json(config["options"]).kernel_runs.text() == "30%");
}

TEST_CASE("kernel_run_budget: a capped run is the uncapped run cut short before the cap") {
  const Problem& p = test::lecture_problem("h100");
  MockLlm m(p.gpu);
  EvolutionOptions o;
  o.seed = 2;
  o.budget = 300;
  // Racing off: from half the cap on, a capped run races children the uncapped run times in
  // full (cascade_race_test checks that).
  o.cascade.race_batch = 0;
  test::ScratchDir dirs("tv_kernel_budget");
  const EvolutionResult full = Evolution(p, m, o, dirs.at("full")).run();
  REQUIRE(full.stop_reason == "budget");
  const long long cap = full.counters.kernel_runs / 3;
  REQUIRE(cap > 0);
  o.kernel_runs.runs = cap;
  const EvolutionResult capped = Evolution(p, m, o, dirs.at("capped")).run();
  CHECK(capped.stop_reason == "kernel-run budget");
  CHECK(capped.programs < full.programs);
  // Never over the cap; the program that did not fit was not timed, and it was the last.
  CHECK(capped.counters.kernel_runs <= cap);
  CHECK(capped.counters.over_budget == 1);
  // Same seed, same proposals: every program the capped run evaluated, the full run evaluated
  // in the same order with the same outcome, up to the one it stopped at.
  const auto a = program_events(dirs.at("full")), b = program_events(dirs.at("capped"));
  REQUIRE(b.size() == std::size_t(capped.programs) + 1); // the seed is a program event too
  REQUIRE(b.size() < a.size());
  for (std::size_t i = 0; i + 1 < b.size(); ++i) {
    INFO(i);
    CHECK(b[i] == a[i]);
  }
  const auto last = nlohmann::json::parse(b.back());
  const auto same_in_full = nlohmann::json::parse(a[b.size() - 1]);
  CHECK(last["stage"] == "over_budget");
  CHECK(same_in_full["id"] == last["id"]);
  CHECK(same_in_full["stage"] != "over_budget"); // the uncapped run timed it all ...
  // ... which would not have fitted in what was left (the capped run timed its probe shapes
  // at most, when they fitted).
  const long long before = capped.counters.kernel_runs - last["kernel_runs"].get<long long>();
  CHECK(last["kernel_runs"].get<long long>() < same_in_full["kernel_runs"].get<long long>());
  CHECK(same_in_full["kernel_runs"].get<long long>() > cap - before);
  // Resuming the capped run (its config.json holds the cap) ends where it ended.
  const EvolutionResult again = Evolution(p, m, o, dirs.at("capped")).resume();
  CHECK(again.stop_reason == "kernel-run budget");
  CHECK(again.programs == capped.programs);
  CHECK(again.counters.to_json() == capped.counters.to_json());
  CHECK(print_program(again.best.program) == print_program(capped.best.program));
  // The share form caps at that share of exhaustive tuning of the training shapes.
  // (On the analytic model's thousands of configs, a run uses about 1% of that.)
  o.kernel_runs = KernelRunBudget::parse("0.25%");
  const EvolutionResult share = Evolution(p, m, o).run();
  const long long share_cap = (long long)(0.0025 * double(share.exhaustive_train_runs));
  CHECK(share_cap < full.counters.kernel_runs);
  CHECK(share.stop_reason == "kernel-run budget");
  CHECK(share.counters.kernel_runs <= share_cap);
  CHECK(share.counters.over_budget == 1);
}

TEST_CASE("kernel_run_budget: evolve and splits take --max-kernel-runs and refuse bad values") {
  const std::string bin = TILEVOLVE_BINARY;
  const auto evo = test::run_shell(bin + " evolve --budget 400 --max-kernel-runs 300 --json "
                                         "2>/dev/null");
  REQUIRE(evo.status == 0);
  const auto j = nlohmann::json::parse(evo.out);
  CHECK(j["stop_reason"] == "kernel-run budget");
  CHECK(j["programs"].get<long long>() < 400);
  // Never past the cap, and short of it by less than the program that did not fit needed: one
  // config per training shape (44) and per probe shape (6) at most.
  CHECK(j["kernel_runs"].get<long long>() <= 300);
  CHECK(j["kernel_runs"].get<long long>() > 300 - 44 - 6);
  // On the recorded H100 data (29 configs), a share of exhaustive tuning.
  const auto sp = test::run_shell(bin + " splits --backend replay:" TILEVOLVE_SOURCE_DIR
                                        "/data/replay/h100_mm.txt --splits 1 --seeds 1 "
                                        "--budget 1000 --max-kernel-runs 10% --json 2>/dev/null");
  REQUIRE(sp.status == 0);
  const auto s = nlohmann::json::parse(sp.out);
  CHECK(s["max_kernel_runs"] == "10%");
  // Never past the cap, and short of it by less than one program: one config on each of the
  // 106 training keys and 6 probe keys, of the 3,074 pairs exhaustive tuning would time (3.6%).
  const double used = s["max_kernel_run_fraction"].get<double>();
  CHECK(used <= 0.10);
  CHECK(used > 0.10 - 0.037);
  for (const char* bad : {"0", "150%", "many"}) {
    const auto r = test::run_shell(bin + " evolve --budget 10 --max-kernel-runs " + bad + " 2>&1");
    INFO(bad);
    CHECK(r.status == 2);
    CHECK(r.out.find("kernel-run budget '" + std::string(bad) + "'") != std::string::npos);
  }
}

TEST_CASE("kernel_run_budget: a cap below what timing the expert takes is refused, not passed") {
  const std::string bin = TILEVOLVE_BINARY;
  // A100 HF, the default split: 106 training shapes, 29 configs (3,074 pairs exhaustive).
  const std::string replay =
      " --backend replay:" TILEVOLVE_SOURCE_DIR "/data/replay/a100_hf_mm.txt";
  for (const char* cap : {"10", "3%"}) {
    INFO(cap);
    const auto r = test::run_shell(bin + " evolve" + replay + " --max-kernel-runs " + cap +
                                   " 2>&1 >/dev/null");
    CHECK(r.status == 2);
    CHECK(r.out.find("below the 106 it takes to time the expert program on the 106 training "
                     "shapes") != std::string::npos);
    CHECK(r.out.find("give at least 106 (or 3.45%)") != std::string::npos);
  }
  // The least it names is enough: the run starts, and stays within it.
  const auto ok =
      test::run_shell(bin + " evolve" + replay + " --max-kernel-runs 106 --json 2>/dev/null");
  REQUIRE(ok.status == 0);
  const auto j = nlohmann::json::parse(ok.out);
  CHECK(j["kernel_runs"].get<long long>() <= 106);
  CHECK(j["stop_reason"] == "kernel-run budget");
}

} // namespace kernel_run_budget_test

namespace kernel_run_budget_test {

TEST_CASE("kernel_run_budget: re-measuring would-be new bests stays inside the cap too") {
  const auto replay = test::replay_problem("a100_hf_mm.txt");
  MockLlm m(replay->gpu, mock_options_for(*replay, {}));
  int confirmed_stops = 0;
  for (long long cap : {150LL, 300LL, 450LL, 600LL, 900LL}) {
    EvolutionOptions o;
    o.confirm_samples = 2; // each would-be new best is timed twice more on every training shape
    o.kernel_runs.runs = cap;
    o.stagnation = 0;
    test::ScratchDir dir("tv_kernel_confirm");
    const EvolutionResult r = Evolution(*replay, m, o, dir.at("run")).run();
    INFO("cap ", cap);
    CHECK(r.stop_reason == "kernel-run budget");
    CHECK(r.counters.kernel_runs <= cap);
    // Spent to the pair, or stopped at the first program (or re-measurement) that did not fit
    // (leaf polish may then spend the rest, to the pair).
    CHECK((r.counters.kernel_runs == cap || r.counters.over_budget == 1));
    CHECK(r.counters.over_budget <= 1);
    const std::string events = read_file(dir.at("run") + "/events.ndjson");
    confirmed_stops += events.find("re-measuring a would-be new best needs") != std::string::npos;
  }
  CHECK(confirmed_stops > 0); // some run stopped at a re-measurement that did not fit
}

} // namespace kernel_run_budget_test
