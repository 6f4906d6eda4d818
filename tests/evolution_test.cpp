#include "eval/analytic_backend.hpp"
#include "evolve/checkpoint.hpp"
#include "evolve/evolution.hpp"
#include "evolve/mock_llm.hpp"
#include "evolve/run_dir.hpp"
#include "ir/error.hpp"
#include "ir/text.hpp"
#include "ir/threshold_placement.hpp"
#include "ir/wave_guards.hpp"
#include "support/fixtures.hpp"
#include "support/mock_delegate.hpp"
#include "support/step_option.hpp"
#include "support/temp_dir.hpp"

#include <doctest/doctest.h>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <omp.h>

// In a namespace of its own: the test files are compiled several to a unit (unity build).
namespace evolution_test {

using namespace tv;

namespace {

/// A mutator that cycles through every kind of reply a bad (or good) LLM can give.
class ScriptedMutator : public Mutator {
public:
  std::string name() const override { return "scripted"; }
  std::vector<std::string> operators() const override {
    return {"fail", "garbage",      "nomatch", "ambiguous",  "unparsable",
            "noop", "unlaunchable", "worse",   "untimeable", "better"};
  }
  MutationReply propose(const MutationRequest& r) override {
    const auto ops = operators();
    MutationReply rep;
    rep.op = ops[n_++ % ops.size()];
    const Program parent = parse_program_or_throw(r.parent_text, "parent");
    auto edit_default = [&](const std::string& new_config) {
      const std::string old_line = "    return " + print_config(parent.default_config) + "\n";
      return "Here is my edit:\n```\n<<<<<<< SEARCH\n" + old_line + "=======\n    return " +
             new_config + "\n>>>>>>> REPLACE\n```\n";
    };
    if (rep.op == "fail") {
      rep.ok = false;
      rep.error = "connection refused";
    } else if (rep.op == "garbage") {
      rep.text = "I think the tiles should be bigger. \x01\x02 no diff here";
    } else if (rep.op == "nomatch") {
      rep.text = "<<<<<<< SEARCH\n    if M <= 99999:\n=======\n    if M <= 1:\n>>>>>>> REPLACE\n";
    } else if (rep.op == "ambiguous") {
      rep.text = "<<<<<<< SEARCH\n        return\n=======\n        return\n>>>>>>> REPLACE\n";
    } else if (rep.op == "unparsable") {
      rep.text = edit_default("Config(BM=128, BN=128");
    } else if (rep.op == "noop") {
      rep.text = edit_default(print_config(parent.default_config));
    } else if (rep.op == "unlaunchable") {
      rep.text = edit_default("Config(BM=256, BN=128, BK=64, warps=4, stages=3, group=8)");
    } else if (rep.op == "worse") {
      rep.text = edit_default("Config(BM=16, BN=32, BK=16, warps=2, stages=1, group=1)");
    } else if (rep.op == "untimeable") {
      rep.text = edit_default("Config(BM=32, BN=32, BK=32, warps=2, stages=2, group=1)");
    } else { // better: big tiles for prefill, above the default
      const std::string old_line = "    return " + print_config(parent.default_config) + "\n";
      rep.text = "<<<<<<< SEARCH\n" + old_line +
                 "=======\n    if M >= " + std::to_string(2048 << (n_ % 3)) +
                 ":\n        return Config(BM=128, BN=256, BK=64, warps=8, stages=4, group=16)\n" +
                 old_line + ">>>>>>> REPLACE\n";
    }
    return rep;
  }

private:
  int n_ = 0;
};

/// Analytic backend that reports a wrong result for one config (a miscompiled kernel).
class FlakyBackend : public AnalyticBackend {
public:
  FlakyBackend(Gpu g, Config bad) : AnalyticBackend(std::move(g)), bad_(bad) {}
  std::vector<Measurement> time(const std::vector<TimingRequest>& batch) override {
    auto out = AnalyticBackend::time(batch);
    for (std::size_t i = 0; i < batch.size(); ++i)
      if (batch[i].config == bad_) {
        out[i].status = MeasureStatus::wrong_result;
        out[i].seconds = std::numeric_limits<double>::infinity();
        out[i].detail = "max abs error 3.2 vs reference";
      }
    return out;
  }

private:
  Config bad_;
};

std::unique_ptr<Problem> small_problem(const std::string& gpu = "h100") {
  ProblemSpec spec;
  spec.gpu = gpu;
  return load_problem(spec);
}

/// A run directory `name` in `scratch`, not created yet.
std::string temp_dir(const test::ScratchDir& scratch, const std::string& name) {
  return scratch.at(name);
}

} // namespace

TEST_CASE("evolution: a misbehaving mutator is counted at every stage and never stalls") {
  const test::ScratchDir scratch("tilevolve_evo");
  auto p = small_problem();
  p->backend = std::make_unique<FlakyBackend>(p->gpu, test::cfg(32, 32, 32, 2, 2, 1));
  ScriptedMutator m;
  EvolutionOptions o;
  o.budget = 60;
  o.cascade.probe_margin = 0.03;
  Evolution evo(*p, m, o, temp_dir(scratch, "scripted"));
  const EvolutionResult r = evo.run();
  const Counters& c = r.counters;
  CHECK(r.programs == 60);
  CHECK(c.proposed == 60);
  CHECK(c.mutator_failed > 0);
  CHECK(c.diff_failed > 0);
  CHECK(c.parse_failed > 0);
  CHECK(c.noop > 0);
  CHECK(c.static_reject > 0);
  CHECK(c.static_reasons.at("registers") > 0);
  CHECK(c.probe_reject > 0);
  CHECK(c.timing_failed > 0);
  CHECK(c.full > 0);
  CHECK(c.improved > 0);
  CHECK(c.new_best > 0);
  CHECK(c.kernel_runs > 0);
  CHECK(c.cache_hits > 0);
  // The stages partition the proposals.
  CHECK(c.mutator_failed + c.diff_failed + c.parse_failed + c.noop + c.static_reject +
            c.probe_reject + c.race_reject + c.timing_failed + c.over_budget + c.full ==
        c.proposed);
  // Per-operator counters add up to the totals (with the passes' kernel runs).
  Counters sum;
  for (const auto& [op, oc] : r.per_operator)
    sum.add(oc);
  for (const PassReport& pass : r.passes)
    sum.kernel_runs += pass.kernel_runs;
  CHECK(sum.proposed == c.proposed);
  CHECK(sum.kernel_runs == c.kernel_runs);
  // The same unlaunchable child proposed again is a no-op (known program), never timed.
  const Counters& un = r.per_operator.at("unlaunchable");
  CHECK(un.static_reject > 0);
  CHECK(un.static_reject + un.noop == un.proposed);
  CHECK(un.kernel_runs == 0);
  CHECK(r.per_operator.at("untimeable").timing_failed > 0);
  CHECK(r.best_train.speedup_vs_expert > 1.0);
}

TEST_CASE("evolution: same seed gives the same run with 1 and 2 threads, and seeds differ") {
  const test::ScratchDir scratch("tilevolve_evo");
  auto run = [&](int threads, std::uint64_t seed) {
    const int saved = omp_get_max_threads();
    omp_set_num_threads(threads);
    auto p = small_problem();
    MockLlm m(p->gpu);
    EvolutionOptions o;
    o.seed = seed;
    o.budget = 300;
    const std::string dir = temp_dir(scratch, fmt::format("det_{}_{}", threads, seed));
    Evolution evo(*p, m, o, dir);
    const EvolutionResult r = evo.run();
    omp_set_num_threads(saved);
    return std::make_pair(r, read_file(dir + "/events.ndjson"));
  };
  const auto [a, ea] = run(1, 7);
  const auto [b, eb] = run(2, 7);
  CHECK(ea == eb); // the whole event log, bit for bit
  CHECK(print_program(a.best.program) == print_program(b.best.program));
  CHECK(a.best.score == b.best.score);
  CHECK(a.counters.to_json() == b.counters.to_json());
  const auto [c, ec] = run(1, 8);
  CHECK(ec != ea);
}

TEST_CASE("evolution: a mock reply's child as a value gives the run its text gives") {
  const test::ScratchDir scratch("tilevolve_evo");
  // The mock hands its child over as a value (MutationReply::child), so the evolution neither
  // applies its diff nor parses the result; without it, the text goes the LLM's way.
  class TextOnly : public test::MockDelegate {
  public:
    using MockDelegate::MockDelegate;
    MutationReply propose(const MutationRequest& r) override {
      MutationReply reply = mock_.propose(r);
      with_child += reply.child.has_value();
      reply.child.reset();
      return reply;
    }
    long long with_child = 0;
  };
  for (const std::string gpu : {"h100", "mi300x"}) {
    CAPTURE(gpu);
    const Problem& p = test::lecture_problem(gpu);
    auto run = [&](Mutator& m, const std::string& name) {
      EvolutionOptions o;
      o.seed = 5;
      o.budget = 400;
      const std::string dir = temp_dir(scratch, "child_" + name + "_" + gpu);
      const EvolutionResult r = Evolution(p, m, o, dir).run();
      return std::make_pair(r, read_file(dir + "/events.ndjson"));
    };
    MockLlm mock(p.gpu);
    TextOnly text_only(p.gpu);
    const auto [a, ea] = run(mock, "value");
    const auto [b, eb] = run(text_only, "text");
    CHECK(text_only.with_child > 300); // nearly every reply had a child to drop
    CHECK(ea == eb);                   // the whole event log, bit for bit
    CHECK(a.best.program == b.best.program);
    CHECK(a.counters.to_json() == b.counters.to_json());
  }
}

TEST_CASE("evolution: resuming from any checkpoint ends like the uninterrupted run") {
  const test::ScratchDir scratch("tilevolve_evo");
  auto p = small_problem();
  MockLlm m(p->gpu);
  EvolutionOptions o;
  o.seed = 3;
  o.budget = 240;
  o.checkpoint_every = 40;
  const std::string full_dir = temp_dir(scratch, "full");
  const EvolutionResult full = Evolution(*p, m, o, full_dir).run();

  // Snapshot the run directory right after the checkpoint at 120 programs, as a kill -9
  // just after it would leave it, then resume the snapshot.
  const std::string part_dir = temp_dir(scratch, "part");
  {
    const std::string dir = temp_dir(scratch, "snap_src");
    Evolution evo(*p, m, o, dir);
    evo.on_progress([&](const Progress& pr) {
      if (pr.done == 120) std::filesystem::copy(dir, part_dir);
    });
    evo.run();
  }
  REQUIRE(std::filesystem::exists(part_dir + "/checkpoint.json"));
  CHECK(nlohmann::json::parse(read_file(part_dir + "/checkpoint.json"))["state"]["done"] == 120);
  // A kill mid-write leaves a partial event line after the checkpoint: resume truncates it.
  {
    std::ofstream ev(part_dir + "/events.ndjson", std::ios::app);
    ev << "{\"event\":\"program\",\"n\":99";
  }
  const EvolutionResult again = Evolution(*p, m, o, part_dir).resume();
  CHECK(again.resumed);
  CHECK(print_program(again.best.program) == print_program(full.best.program));
  CHECK(again.counters.to_json() == full.counters.to_json());
  CHECK(read_file(part_dir + "/events.ndjson") == read_file(full_dir + "/events.ndjson"));
}

TEST_CASE("evolution: corrupt, truncated and mismatched checkpoints are refused with a message") {
  const test::ScratchDir scratch("tilevolve_evo");
  auto p = small_problem();
  MockLlm m(p->gpu);
  EvolutionOptions o;
  o.budget = 40;
  const std::string dir = temp_dir(scratch, "corrupt");
  Evolution(*p, m, o, dir).run();
  const std::string cp = read_file(dir + "/checkpoint.json");

  auto expect_error = [&](const std::string& content, const std::string& fragment,
                          const EvolutionOptions& opts) {
    atomic_write(dir + "/checkpoint.json", content);
    try {
      Evolution(*p, m, opts, dir).resume();
      FAIL("resume accepted a bad checkpoint");
    } catch (const InputError& e) {
      const std::string message = e.what();
      INFO(message);
      CHECK(message.find(fragment) != std::string::npos);
    }
  };
  expect_error(cp.substr(0, cp.size() / 2), "corrupt or truncated", o);
  std::string flipped = cp;
  const auto pos = flipped.find("\"done\":");
  REQUIRE(pos != std::string::npos);
  flipped.replace(pos, 8, "\"done\":1");
  expect_error(flipped, "checksum mismatch", o);
  EvolutionOptions other = o;
  other.seed = 99;
  expect_error(cp, "different run configuration", other);
  expect_error("[]", "not a tilevolve checkpoint", o);
  // Guard validation's pairs (late_cache) are checked as the checkpoint is read, like the cache.
  nlohmann::json bad = nlohmann::json::parse(cp)["state"];
  bad["late_cache"] = nlohmann::json::array({{{"config", "BM=7"}, {"rows", {0}}}});
  const std::string fp = nlohmann::json::parse(cp)["fingerprint"].get<std::string>();
  expect_error(checkpoint_text(bad, fp), "checkpoint cache: bad config 'BM=7'", o);
  bad["late_cache"] =
      nlohmann::json::array({{{"config", bad["cache"].at(0)["config"]}, {"rows", {1000000}}}});
  expect_error(checkpoint_text(bad, fp), "row index out of range", o);
  std::filesystem::remove(dir + "/checkpoint.json");
  try {
    Evolution(*p, m, o, dir).resume();
    FAIL("resume without a checkpoint");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()).find("no checkpoint.json") != std::string::npos);
  }
  // And a fresh run refuses to overwrite an existing run directory.
  CHECK_THROWS_AS(Evolution(*p, m, o, dir).run(), InputError);
}

TEST_CASE("evolution: the cascade saves kernel runs, fewer than exhaustive tuning") {
  auto p = small_problem();
  MockLlm m(p->gpu);
  EvolutionOptions on;
  on.budget = 300;
  EvolutionOptions off = on;
  off.cascade.enabled = false;
  const EvolutionResult a = Evolution(*p, m, on).run();
  const EvolutionResult b = Evolution(*p, m, off).run();
  CHECK(a.counters.probe_reject > 0);
  CHECK(b.counters.probe_reject == 0);
  CHECK(a.counters.kernel_runs < a.exhaustive_train_runs);
  CHECK(a.best_train.fraction_of_oracle <= 1.0 + 1e-12);
  CHECK(a.best_train.speedup_vs_expert >= 1.0);
}

TEST_CASE("evolution: the feedback's best config is the one that ran in the best time") {
  auto p = small_problem();
  /// Delegates to the mock and checks every request's feedback against the time table.
  class Checking : public test::MockDelegate {
  public:
    Checking(const Problem& p) : MockDelegate(p.gpu), p_(p) {}
    MutationReply propose(const MutationRequest& r) override {
      for (const ShapeFeedback& f : r.feedback) {
        REQUIRE(f.best_config);
        ++checked;
        CHECK(f.best_seconds <= f.seconds);
        const int row = p_.table->shape_index(f.shape.label());
        const int col = p_.table->config_index(*f.best_config);
        REQUIRE(row >= 0);
        REQUIRE(col >= 0);
        CHECK(p_.table->time(std::size_t(row), std::size_t(col)) == f.best_seconds);
        improved += f.best_seconds < f.seconds;
      }
      return mock_.propose(r);
    }
    long long checked = 0, improved = 0;

  private:
    const Problem& p_;
  } m(*p);
  EvolutionOptions o;
  o.budget = 200;
  Evolution(*p, m, o).run();
  CHECK(m.checked > 1000);
  CHECK(m.improved > 0); // some parents are beaten on some shapes by earlier programs
}

/// The training shapes of `p`.
std::vector<Shape> train_shapes_of(const Problem& p) {
  std::vector<Shape> train;
  for (std::size_t r : p.train_rows)
    train.push_back(p.shape(r));
  return train;
}

/// A 1000-program run on `p` with threshold placement and wave guards as given (leaf polish
/// off: the searched program's configs, so that only the step under test changes the result).
EvolutionResult run_returning(const Problem& p, bool place, bool guards, bool refit_validation) {
  MockLlm m(p.gpu);
  EvolutionOptions o;
  o.budget = 1000;
  o.skip("leaf-polish");
  o.sampled_sizes = 0; // its choice depends on the forms placement and guards give
  if (!place) o.skip("threshold-placement");
  if (!guards) o.skip("wave-guards");
  if (!refit_validation) o.skip("refit-validation");
  return Evolution(p, m, o).run();
}

TEST_CASE("evolution: the result's thresholds sit between training values, decisions kept") {
  const Problem& p = tv::test::lecture_problem("mi300x");
  const std::vector<Shape> train = train_shapes_of(p);
  const EvolutionResult placed = run_returning(p, true, false, false);
  const EvolutionResult searched = run_returning(p, false, false, false);
  // The same search either way; only the returned program differs, and only off the
  // training shapes.
  CHECK(placed.best_searched.program == searched.best.program);
  CHECK_FALSE(searched.pass("threshold-placement")->ran);
  REQUIRE_FALSE(placed.pass("threshold-placement")->lines.empty());
  CHECK(placed.best.program != searched.best.program);
  for (const Shape& s : train)
    CHECK(placed.best.program.choose(s) == searched.best.program.choose(s));
  CHECK(placed.best_train.speedup_vs_expert ==
        doctest::Approx(searched.best_train.speedup_vs_expert));
  // Placing again moves nothing: every cut is already at its place.
  CHECK(place_thresholds(placed.best.program, train, p.gpu.units).changes.empty());
  // The options travel with the run's configuration; older runs (no key) read back unplaced.
  test::check_pass_option("threshold-placement", "place_thresholds");
  test::check_pass_option("refit-validation", "refit_validation");
  test::check_step_option("optimism_charge", &EvolutionOptions::optimism_charge);
  test::check_step_option("refit_lookahead", &EvolutionOptions::refit_lookahead);
  test::check_step_option("refit_complexity", &EvolutionOptions::refit_complexity);
  test::check_step_option("refit_extremes", &EvolutionOptions::refit_extremes);
  test::check_step_option("model_prior", &EvolutionOptions::model_prior);
}

TEST_CASE("evolution: the result's rules are kept to their waves, decisions kept") {
  const Problem& p = tv::test::lecture_problem("mi300x");
  const std::vector<Shape> train = train_shapes_of(p);
  const EvolutionResult guarded = run_returning(p, true, true, true);
  const EvolutionResult plain = run_returning(p, true, false, true);
  // The same search and placement either way; the guards are added last, after placement.
  CHECK(guarded.best_searched.program == plain.best_searched.program);
  CHECK(guarded.pass("threshold-placement")->lines == plain.pass("threshold-placement")->lines);
  CHECK_FALSE(plain.pass("wave-guards")->ran);
  REQUIRE_FALSE(guarded.pass("wave-guards")->lines.empty());
  CHECK(guard_waves(plain.best.program, train, p.gpu.units).program == guarded.best.program);
  for (const Shape& s : train)
    CHECK(guarded.best.program.choose(s) == plain.best.program.choose(s));
  CHECK(guarded.best_train.speedup_vs_expert ==
        doctest::Approx(plain.best_train.speedup_vs_expert));
  // The option travels with the run's configuration; older runs (no key) read back unguarded.
  test::check_pass_option("wave-guards", "wave_guards");
  test::check_step_option("guard_returns", &EvolutionOptions::guard_returns);
}

} // namespace evolution_test
