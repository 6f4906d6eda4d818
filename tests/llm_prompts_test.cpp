#include "evolve/mutators/llm_prompts.hpp"
#include "ir/error.hpp"
#include "ir/text.hpp"
#include "support/fixtures.hpp"
#include "support/temp_dir.hpp"

#include <doctest/doctest.h>
#include <filesystem>
#include <fstream>

// In a namespace of its own: the test files are compiled several to a unit (unity build).
namespace llm_prompts_test {

using namespace tv;

namespace {

/// A request for the expert of `p` as parent, with the per-shape oracle as the best measured.
MutationRequest expert_request(const Problem& p) {
  MutationRequest r;
  r.parent_text = print_program(p.expert);
  r.parent_score = 1.0;
  r.best_text = r.parent_text;
  r.best_score = 1.0;
  for (auto row : p.train_rows) {
    const Shape& s = p.shape(row);
    const Config c = p.expert.choose(s);
    const int col = p.table->config_index(c);
    REQUIRE(col >= 0);
    const double t = p.table->time(row, std::size_t(col));
    const int best = p.table->oracle_config(row);
    r.feedback.push_back(
        {s, c, t, p.table->oracle_time(row), p.table->configs()[std::size_t(best)], t});
  }
  r.inspiration_texts = {"def choose(M, N, K):\n    return Config(BM=64, BN=64, BK=64, "
                         "warps=4, stages=3, group=8)\n"};
  r.inspiration_scores = {0.93};
  r.previous_attempts = {{"llm-diff", "diff_failed",
                          "the edit did not apply: block 1 (SEARCH `if M <= 99:`): not_found"}};
  return r;
}

/// A prompts folder `scratch`/`name` with the three templates; returns its path.
std::string temp_prompts(const test::ScratchDir& scratch, const std::string& name,
                         const std::string& system, const std::string& diff,
                         const std::string& full) {
  const std::filesystem::path dir = scratch.at(name);
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "system.txt") << system;
  std::ofstream(dir / "diff_request.txt") << diff;
  std::ofstream(dir / "full_rewrite.txt") << full;
  return dir.string();
}

} // namespace

TEST_CASE("llm_prompts: the default prompts describe the IR, the GPU limits and the parent") {
  const Problem& p = test::lecture_problem("h100");
  const LlmPrompts prompts = LlmPrompts::load("");
  const auto m = prompts.messages(expert_request(p), prompt_target_for(p), PromptKind::diff);
  REQUIRE(m.size() == 2);
  const std::string& sys = m[0].content;
  CHECK(m[0].role == "system");
  for (const char* s : {"def choose(M, N, K):", "M * N", "cdiv(M, 128) * cdiv(N, 128) <= 132",
                        "return \"vendor\"", "cannot time the vendor library", "132 SMs",
                        "warp size 32", "ceil(BM * BN / (warps * 32)) + 40 registers per thread",
                        "BM=256, BN=128, warps=4 needs 296 per thread, so it cannot launch",
                        "stages * (BM + BN) * BK * 2 bytes (bf16) per block, at most 232448 bytes",
                        "- BM: 16, 32, 64, 128, 256", "- warps=4: ", "Config = dict",
                        "def cdiv(a, b): return -(-a // b)"}) {
    INFO(s);
    CHECK(sys.find(s) != std::string::npos);
  }
  CHECK(sys.find('{') == std::string::npos); // every placeholder filled

  const std::string& user = m[1].content;
  CHECK(m[1].role == "user");
  for (const char* s :
       {"# Parent program", "def choose(M, N, K):\n    if M <= 16:", "decode (M <= 16, ",
        "prefill (M >= 1024, ", "the best config measured", "ran in",
        "Inspiration 1 (train speedup 0.930x)", "The parent is the best program found so far.",
        "- diff_failed: the edit did not apply: block 1", "<<<<<<< SEARCH", ">>>>>>> REPLACE"}) {
    INFO(s);
    CHECK(user.find(s) != std::string::npos);
  }
  CHECK(user.find("candidate") == std::string::npos); // one candidate: no note
  const auto full = prompts.messages(expert_request(p), prompt_target_for(p), PromptKind::full);
  CHECK(full[1].content.find("write the whole improved") != std::string::npos);
  CHECK(full[1].content.find("<<<<<<< SEARCH") == std::string::npos);
}

TEST_CASE("llm_prompts: AMD limits, candidates and a replay backend's closed config list") {
  const Problem& amd = test::lecture_problem("mi300x");
  MutationRequest r = expert_request(amd);
  r.candidate = 1;
  r.candidates = 3;
  const auto values = prompt_values(r, prompt_target_for(amd));
  CHECK(values.at("unit_name") == "CUs");
  CHECK(values.at("gpu_limits").find("wavefront size 64") != std::string::npos);
  CHECK(values.at("gpu_limits").find("LDS: max(1, stages - 1) * (BM + BN)") != std::string::npos);
  CHECK(values.at("legal_values").find("matrix_instr_nonkdim") != std::string::npos);
  CHECK(values.at("candidate_note") == " This is candidate 2 of 3 proposed for this parent at "
                                       "once: propose an edit that differs from the most "
                                       "obvious one.");

  ProblemSpec spec;
  spec.gpu = "h100";
  spec.backend = "replay:" + data_path("replay/h100_mm.txt");
  spec.shapes = data_path("replay/h100_shapes.csv");
  spec.expert = data_path("experts/h100_inductor.py");
  const auto replay = load_problem(spec);
  const PromptTarget t = prompt_target_for(*replay);
  CHECK(t.vendor_timed);
  CHECK(t.closed_space.size() == replay->table->configs().size());
  const auto v = prompt_values(expert_request(*replay), t);
  CHECK(v.at("legal_values").find("only these 29 configs can be timed") != std::string::npos);
  CHECK(v.at("legal_values").find(print_config(replay->table->configs().front())) !=
        std::string::npos);
  CHECK(v.at("vendor_dispatch").find("This backend times the vendor library") != std::string::npos);
}

TEST_CASE("llm_prompts: a user's prompts folder is checked file by file") {
  const test::ScratchDir scratch("tilevolve_prompts_test");
  const std::string ok =
      temp_prompts(scratch, "ok", "{gpu_limits}{legal_values}", "{parent}", "{parent}!");
  const LlmPrompts p = LlmPrompts::load(ok);
  CHECK(p.dir() == ok);
  const std::string changed =
      temp_prompts(scratch, "changed", "{gpu_limits}{legal_values}", "{parent}", "{parent}?");
  CHECK(LlmPrompts::load(changed).digest() != p.digest());

  const std::string unknown =
      temp_prompts(scratch, "unknown", "{gpu_limits}{legal_values}", "x\n  {parrent}", "{parent}");
  CHECK_THROWS_WITH_AS(LlmPrompts::load(unknown),
                       doctest::Contains("diff_request.txt:2:3: unknown placeholder {parrent}"),
                       InputError);
  const std::string missing =
      temp_prompts(scratch, "missing", "{gpu_limits}", "{parent}", "{parent}");
  CHECK_THROWS_WITH_AS(LlmPrompts::load(missing),
                       doctest::Contains("system.txt: the template never uses the placeholder "
                                         "{legal_values}"),
                       InputError);
  CHECK_THROWS_WITH_AS(LlmPrompts::load(ok + "/nowhere"), doctest::Contains("system.txt"),
                       InputError);
}

} // namespace llm_prompts_test
