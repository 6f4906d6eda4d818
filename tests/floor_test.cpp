// The floor (evolve/passes/floor.cpp) and the vendor start: with vendor dispatch a run times the
// vendor library on every training shape, starts from it where it is the best start, and never
// returns a program below it on its own training shapes.
#include "support/fixtures.hpp"

#include "eval/cascade.hpp"
#include "evolve/evolution.hpp"
#include "evolve/mock_llm.hpp"
#include "evolve/passes/pipeline.hpp"
#include "ir/text.hpp"

#include <doctest/doctest.h>
#include <string>

// In a namespace of its own: the test files are compiled several to a unit (unity build).
namespace floor_test {

using namespace tv;

namespace {

/// The A100 timm GEMMs with vendor dispatch, split seed `split`.
std::unique_ptr<Problem> timm_with_vendor(std::uint64_t split) {
  ProblemSpec spec;
  spec.backend = "replay:" TILEVOLVE_SOURCE_DIR "/data/replay/a100_timm_mm.txt";
  spec.gpu_is_default = true;
  spec.vendor_dispatch = true;
  spec.seed = split;
  return load_problem(spec);
}

/// The report of the floor pass of `r`.
const PassReport& floor_of(const EvolutionResult& r) {
  const PassReport* p = r.pass("floor");
  REQUIRE(p != nullptr);
  return *p;
}

} // namespace

TEST_CASE("floor: with vendor dispatch the run starts from the vendor library, timed on every "
          "training shape, and never ends below it on them") {
  for (std::uint64_t split : {0, 18}) {
    CAPTURE(split);
    const auto p = timm_with_vendor(split);
    MockLlm m(p->gpu, mock_options_for(*p, {}));
    EvolutionOptions o;
    o.seed = 0;
    const EvolutionResult r = Evolution(*p, m, o).run();
    REQUIRE(r.per_operator.count("vendor seed") == 1);
    const Counters& v = r.per_operator.at("vendor seed");
    CHECK(v.full == 1);
    CHECK(v.kernel_runs == (long long)p->train_rows.size()); // one per shape, counted
    Program vendor;
    vendor.default_config = vendor_config();
    const SetScore lib = p->train->score(vendor);
    CHECK(r.best_train.speedup_vs_expert >= lib.speedup_vs_expert - 1e-12);
    const PassReport& f = floor_of(r);
    REQUIRE(f.ran);
    const auto& names = f.data.at("candidates");
    REQUIRE(names.size() >= 3);
    CHECK(names[0]["name"] == "the result");
    CHECK(names[1]["name"] == "the vendor library");
    CHECK(names[1]["train"].get<double>() == doctest::Approx(lib.speedup_vs_expert));
  }
  // Without vendor dispatch there is no vendor start and no vendor candidate.
  const auto plain = test::replay_problem("a100_timm_mm.txt");
  MockLlm m(plain->gpu, mock_options_for(*plain, {}));
  EvolutionOptions o;
  o.budget = 50;
  const EvolutionResult r = Evolution(*plain, m, o).run();
  CHECK(r.per_operator.count("vendor seed") == 0);
  for (const auto& c : floor_of(r).data.at("candidates"))
    CHECK(c["name"] != "the vendor library");
}

TEST_CASE("floor: a result whose estimate is below the vendor library's gives way to it") {
  const auto p = timm_with_vendor(0);
  CascadeEvaluator eval(*p, {});
  // The run's measurements: the expert and the vendor library on every training shape.
  Program vendor;
  vendor.default_config = vendor_config();
  REQUIRE(eval.evaluate(p->expert, 0.0).stage == Stage::full);
  REQUIRE(eval.evaluate(vendor, 0.0).stage == Stage::full);
  REQUIRE(p->train->score(vendor).speedup_vs_expert > 1.05); // the library beats the expert
  long long total = 0;
  KernelLedger ledger(total, 0);
  std::vector<Shape> shapes;
  for (std::size_t row : p->train_rows)
    shapes.push_back(p->shape(row));
  const ProgramDatabase db{DatabaseOptions{}};
  const Lineage lineage;
  const EvolutionOptions options;
  PassContext ctx{.problem = *p,
                  .options = options,
                  .eval = eval,
                  .ledger = ledger,
                  .train_shapes = shapes,
                  .db = db,
                  .lineage = lineage};
  std::vector<PassReport> done;
  ctx.done = &done;
  // The result is the expert: the library's figure, fitted on nothing, is above it.
  ReturnedProgram result{.best = {}, .reply = "r", .diff = "d", .op = "tweak"};
  result.best.program = p->expert;
  result.best.id = 7;
  const PassReport r = find_pass("floor")->run(ctx, result);
  CHECK(r.data.at("chosen") == "the vendor library");
  CHECK(result.best.program == vendor);
  CHECK(result.best.id == 0);
  CHECK(result.selected_from == "the vendor library");
  CHECK(result.op == "floor");
  CHECK(result.reply.empty());
  CHECK(r.summary.find("the vendor library returned instead of the result") == 0);
  // The vendor library itself as the result: kept (no candidate's estimate is above it).
  ReturnedProgram lib{.best = {}, .reply = "", .diff = "", .op = "seed"};
  lib.best.program = vendor;
  const PassReport kept = find_pass("floor")->run(ctx, lib);
  CHECK(kept.data.at("chosen") == "the result");
  CHECK(lib.best.program == vendor);
}

} // namespace floor_test
