// Fuzz target for the checkpoint reader (evolve/checkpoint.hpp and Evolution::resume): the
// input is the "state" object of a checkpoint.json. The target wraps it in a valid envelope
// (format, version, fingerprint of the run, checksum), so that the fuzzer reaches the state
// reader itself (database, counters, cache, best times and configs, lineage from the events)
// instead of stopping at the checksum, then resumes a run with budget 0 from it: every input
// must either resume and finish or raise InputError, never crash, hang or leak. The raw input
// also goes through the envelope check. Seeds in tests/fuzz/corpus/checkpoint/ are states of a
// real run of this problem (4 inline shapes on the analytic h100 model, split none). Built by
// -DTILEVOLVE_FUZZ=ON (links the tv_ libraries).
#include "eval/problem.hpp"
#include "evolve/checkpoint.hpp"
#include "evolve/evolution.hpp"
#include "evolve/mock_llm.hpp"
#include "evolve/run_dir.hpp"
#include "ir/error.hpp"
#include "tests/support/temp_dir.hpp"

#include <cstddef>
#include <cstdint>
#include <fstream>
#include <memory>
#include <string>

namespace {

struct Fixture {
  std::unique_ptr<tv::Problem> problem;
  std::unique_ptr<tv::MockLlm> mutator;
  tv::EvolutionOptions options;
  std::string dir, fingerprint;
  std::string events; ///< the events of the seed run, for the lineage
};

Fixture& fixture() {
  // Removed at exit (libFuzzer ends with exit() when its time or runs are up).
  static const tv::test::ScratchDir scratch("tilevolve_fuzz_checkpoint");
  static Fixture f = [] {
    Fixture x;
    tv::ProblemSpec spec;
    spec.gpu = "h100";
    spec.inline_shapes = {"1,4096,4096", "16,4096,4096", "128,4096,4096", "4096,4096,4096"};
    spec.split = "none";
    x.problem = tv::load_problem(spec);
    x.mutator = std::make_unique<tv::MockLlm>(x.problem->gpu, tv::mock_options_for(*x.problem, {}));
    x.options.budget = 0;
    x.options.checkpoint_every = 8;
    x.dir = scratch.path;
    x.fingerprint =
        tv::run_fingerprint(tv::Evolution::run_config(*x.problem, *x.mutator, x.options));
    // Events of a short real run, so that offsets into them are meaningful.
    tv::EvolutionOptions real = x.options;
    real.budget = 24;
    const std::string seed_dir = x.dir + "/seed";
    tv::Evolution(*x.problem, *x.mutator, real, seed_dir).run();
    x.events = tv::read_file(seed_dir + "/events.ndjson");
    return x;
  }();
  return f;
}

void write(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Fixture& f = fixture();
  const std::string input(reinterpret_cast<const char*>(data), size);
  try { // the envelope check on the raw bytes
    (void)tv::checkpoint_state(input, "fuzz.json", f.fingerprint);
  } catch (const tv::InputError&) {
  }
  nlohmann::json state;
  try {
    state = nlohmann::json::parse(input);
  } catch (const nlohmann::json::exception&) {
    return 0;
  }
  if (!state.is_object()) return 0;
  write(f.dir + "/checkpoint.json", tv::checkpoint_text(state, f.fingerprint));
  write(f.dir + "/events.ndjson", f.events);
  try {
    tv::Evolution evo(*f.problem, *f.mutator, f.options, f.dir);
    const tv::EvolutionResult r = evo.resume();
    if (!(r.best_train.valid || !r.best_train.problem.empty())) __builtin_trap();
  } catch (const tv::InputError&) {
  }
  return 0;
}
