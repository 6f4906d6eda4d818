// load_problem's choices: shape sources, the keep threshold, and a replay file that names
// its GPU, shapes and expert; and the spec's JSON form that run directories keep.
#include "eval/measurement_cache.hpp"
#include "eval/problem.hpp"
#include "ir/error.hpp"
#include "ir/text.hpp"
#include "models/data_dir.hpp"

#include "support/fixtures.hpp"
#include "support/temp_dir.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

// In a namespace of its own: the test files are compiled several to a unit (unity build).
namespace problem_test {

using namespace tv;

namespace {

bool has_note(const Problem& p, const std::string& start) {
  return std::any_of(p.notes.begin(), p.notes.end(),
                     [&](const std::string& n) { return n.rfind(start, 0) == 0; });
}

std::vector<std::string> labels(const Problem& p, const std::vector<std::size_t>& rows) {
  std::vector<std::string> out;
  for (std::size_t r : rows)
    out.push_back(p.shape(r).label());
  return out;
}

/// A tilevolve measurement file with the lecture expert's two configs timed on two shapes of
/// `gpus` (one row set per GPU), written as `scratch`/`name`.
std::string measurement_file(const test::ScratchDir& scratch, const std::string& name,
                             const std::vector<std::string>& gpus) {
  const std::filesystem::path path = scratch.at(name);
  const Program expert = load_program_file(data_path("experts/lecture.py"));
  for (const std::string& g : gpus)
    for (std::int64_t m : {1, 4096}) {
      for (const Config& c : {expert.rules[0].config, expert.default_config}) {
        MeasurementRecord r;
        r.gpu = g;
        r.shape = test::shape(m, 4096, 4096);
        r.config = c;
        r.result.status = MeasureStatus::ok;
        r.result.seconds = 1e-5 * double(m) / double(c.BM);
        append_record(path.string(), r);
      }
    }
  return path.string();
}

} // namespace

TEST_CASE("problem: replay:FILE alone takes the GPU, shapes and expert from the file") {
  ProblemSpec alone;
  alone.gpu = "mi300x"; // a default only: the file says H100
  alone.gpu_is_default = true;
  alone.backend = "replay:" + data_path("replay/h100_mm.txt");
  const auto p = load_problem(alone);
  CHECK(p->gpu.name == "h100");
  CHECK(p->spec.gpu == "h100");
  CHECK_FALSE(p->spec.gpu_is_default);
  CHECK(p->table->shapes().size() == 212);
  CHECK(p->shapes_path == "the keys of " + data_path("replay/h100_mm.txt"));
  CHECK(p->expert_path == data_path("experts/h100_inductor.py"));
  CHECK(has_note(*p, "GPU profile h100: the profile that matches the device"));
  CHECK(has_note(*p, "shapes: the 212 keys (M, N, K, dtype, layout) recorded in"));
  CHECK(has_note(*p, "expert: the lecture's expert in the config space of Inductor's"));

  // The same problem as spelled out in the README: same split, same figures.
  ProblemSpec spelled;
  spelled.gpu = "h100";
  spelled.backend = alone.backend;
  spelled.shapes = data_path("replay/h100_shapes.csv");
  spelled.expert = data_path("experts/h100_inductor.py");
  const auto q = load_problem(spelled);
  CHECK(labels(*p, p->train_rows) == labels(*q, q->train_rows));
  CHECK(labels(*p, p->test_rows) == labels(*q, q->test_rows));
  CHECK(p->test->score(p->expert).fraction_of_oracle ==
        q->test->score(q->expert).fraction_of_oracle);
  CHECK(p->notes.size() == 3);
  CHECK(q->notes.empty());

  // A profile given on purpose that contradicts the file is refused with the reason.
  ProblemSpec wrong = alone;
  wrong.gpu_is_default = false;
  CHECK_THROWS_WITH_AS(load_problem(wrong),
                       doctest::Contains("measured on a device with 232448 bytes of shared "
                                         "memory per block (compute capability 9.0); the "
                                         "'mi300x' profile has 65536"),
                       InputError);
}

TEST_CASE("problem: a measurement file names its GPU, and several GPUs need --gpu") {
  const test::ScratchDir scratch("tilevolve_problem_test");
  ProblemSpec spec;
  spec.gpu = "mi300x";
  spec.gpu_is_default = true;
  spec.backend = "replay:" + measurement_file(scratch, "tv_problem_test_one.csv", {"h100"});
  const auto p = load_problem(spec);
  CHECK(p->gpu.name == "h100");
  CHECK(p->table->shapes().size() == 2);
  CHECK((labels(*p, {0, 1}) ==
             std::vector<std::string>{"h100:bf16:M1:N4096:K4096", "h100:bf16:M4096:N4096:K4096"} ||
         labels(*p, {0, 1}) ==
             std::vector<std::string>{"h100:bf16:M4096:N4096:K4096", "h100:bf16:M1:N4096:K4096"}));
  CHECK(p->expert_path == data_path("experts/lecture.py"));
  CHECK(has_note(*p, "GPU profile h100: the GPU every row of"));

  spec.backend =
      "replay:" + measurement_file(scratch, "tv_problem_test_two.csv", {"h100", "mi300x"});
  CHECK_THROWS_WITH_AS(load_problem(spec),
                       doctest::Contains("holds measurements of several "
                                         "GPUs (h100, mi300x): choose one "
                                         "with --gpu"),
                       InputError);
  spec.gpu = "h100";
  spec.gpu_is_default = false;
  CHECK(load_problem(spec)->gpu.name == "h100");
}

TEST_CASE("problem: shape sources and the keep threshold") {
  ProblemSpec spec;
  spec.gpu = "h100";
  spec.model = "llama3-70b";
  spec.tp = 8;
  spec.split = "none";
  const auto p = load_problem(spec);
  CHECK(p->table->shapes().size() == 44);
  CHECK(p->shapes_path == "model llama3-70b (tp 8)");
  CHECK(p->shape(0).label() == "llama3-70b-tp8:qkv:M1");
  CHECK_FALSE(p->train->weighted());

  spec.keep = 0.9;
  const auto k = load_problem(spec);
  CHECK(k->table->shapes().size() < 44);
  CHECK(has_note(*k, "--keep 0.9: kept "));

  ProblemSpec two = spec;
  two.inline_shapes = {"1,2,3"};
  CHECK_THROWS_AS(load_problem(two), InputError);

  ProblemSpec log;
  log.gpu = "mi300x";
  log.workload_log = data_path("workloads/llama3_8b_vllm_mi300x.yaml");
  const auto l = load_problem(log);
  CHECK(l->train->weighted());
  CHECK(has_note(*l, "hipBLASLt log: 25 entries"));
  CHECK(l->train->score(l->expert).uplift == doctest::Approx(1.0));
}

TEST_CASE("problem: the spec's JSON form round-trips and keeps older configurations as they were") {
  ProblemSpec plain;
  const nlohmann::json pj = problem_spec_json(plain);
  CHECK(pj.size() == 7); // gpu, shapes, test_shapes, split, split_seed, expert, backend
  ProblemSpec s;
  s.gpu = "mi325x";
  s.model = "deepseek-v3";
  s.tp = 8;
  s.tokens = "1,64";
  s.keep = 0.99;
  s.split = "model:deepseek-v3-tp8";
  s.seed = 4;
  const ProblemSpec back = problem_spec_from_json(problem_spec_json(s), "c.json");
  CHECK(problem_spec_json(back) == problem_spec_json(s));
  CHECK(back.tp == 8);
  CHECK(back.keep == 0.99);
  ProblemSpec in;
  in.inline_shapes = {"1,2,3", "4,5,6,f16"};
  in.workload_log = "w.yaml";
  CHECK(problem_spec_from_json(problem_spec_json(in), "c.json").inline_shapes == in.inline_shapes);
  CHECK_THROWS_WITH_AS(problem_spec_from_json({{"tp", "eight"}}, "c.json"),
                       doctest::Contains("c.json: bad problem description"), InputError);
  // The tree's leaf limit is written only when it is not the default 8 (older runs lack it).
  ProblemSpec leaves;
  leaves.tree_leaves = 3;
  CHECK(problem_spec_json(leaves)["tree_leaves"] == 3);
  CHECK(problem_spec_from_json(problem_spec_json(leaves), "c.json").tree_leaves == 3);
  CHECK(problem_spec_from_json(problem_spec_json(plain), "c.json").tree_leaves == 8);
  CHECK_THROWS_WITH_AS(problem_spec_from_json({{"tree_leaves", 0}}, "c.json"),
                       doctest::Contains("'tree_leaves' must be 1 to 64, got 0"), InputError);
}

TEST_CASE("problem: a split half with only zero weights names the file and the half") {
  // Issue 13: the message named neither ("empty shape set (or all weights zero)").
  const test::ScratchDir scratch("tilevolve_problem_weights");
  const std::filesystem::path dir = scratch.path;
  const std::string shapes = (dir / "weights.csv").string();
  std::ofstream(shapes) << "name,M,N,K,weight\na,1,4096,4096,0\nb,16,4096,4096,0\n"
                           "c,128,4096,4096,0\nd,4096,4096,4096,5\n";
  ProblemSpec spec;
  spec.gpu = "h100";
  spec.shapes = shapes;
  spec.split = "random";
  std::string message;
  try {
    load_problem(spec);
  } catch (const InputError& e) {
    message = e.what();
  }
  REQUIRE(!message.empty());
  CHECK(message.rfind(shapes + ": every shape of the ", 0) == 0);
  CHECK((message.find("the training half (random half/half") != std::string::npos ||
         message.find("the test half (random half/half") != std::string::npos));
  CHECK(message.find("has weight 0") != std::string::npos);
  // A test file whose shapes all weigh 0 is refused by the shape reader, naming the file.
  const std::string test = (dir / "zero_test.csv").string();
  std::ofstream(test) << "name,M,N,K,weight\nt1,1,4096,4096,0\nt2,2,4096,4096,0\n";
  std::ofstream(shapes) << "name,M,N,K,weight\na,1,4096,4096,1\nb,16,4096,4096,2\n";
  spec.test_shapes = test;
  try {
    load_problem(spec);
    FAIL("a test half of zero weights was accepted");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()) == test + ": all weights are zero (at least one must be positive)");
  }
}

TEST_CASE("problem: resplit gives what loading that split gives, on the same table") {
  // Lecture shapes on the analytic model, and a recorded table with a (M, N, K) split.
  struct Case {
    ProblemSpec spec;
    std::vector<std::pair<std::string, std::uint64_t>> splits;
  };
  ProblemSpec lecture;
  lecture.gpu = "h100";
  ProblemSpec replay;
  replay.backend = "replay:" + data_path("replay/a100_hf_mm.txt");
  replay.gpu_is_default = true;
  replay.split = "random-mnk";
  for (const Case& c : {Case{lecture, {{"model:llama3-8b", 0}, {"random", 1}, {"random", 7}}},
                        Case{replay, {{"random-mnk", 1}, {"random-mnk", 2}, {"random", 3}}}}) {
    const auto base = load_problem(c.spec);
    REQUIRE(can_resplit(*base));
    for (const auto& split_seed : c.splits) {
      // (Plain names: clang 14 cannot capture a structured binding in CAPTURE's lambda.)
      const std::string& split = split_seed.first;
      const std::uint64_t seed = split_seed.second;
      CAPTURE(split);
      CAPTURE(seed);
      ProblemSpec spec = c.spec;
      spec.split = split;
      spec.seed = seed;
      const auto loaded = load_problem(spec);
      const auto again = resplit(*base, split, seed);
      CHECK(again->table == base->table); // shared, not rebuilt
      CHECK(again->spec.split == split);
      CHECK(again->spec.seed == seed);
      CHECK(again->split_description == loaded->split_description);
      CHECK(labels(*again, again->train_rows) == labels(*loaded, loaded->train_rows));
      CHECK(labels(*again, again->test_rows) == labels(*loaded, loaded->test_rows));
      CHECK(again->dtypes() == loaded->dtypes());
      for (auto half : {&Problem::train, &Problem::test}) {
        const SetScore a = (*again.*half)->score(again->expert);
        const SetScore b = (*loaded.*half)->score(loaded->expert);
        CHECK(a.valid);
        CHECK(a.fraction_of_oracle == b.fraction_of_oracle);
        CHECK(a.speedup_vs_expert == b.speedup_vs_expert);
      }
      // Each row's oracle is the same config, whatever the table's row order.
      for (std::size_t i = 0; i < again->train_rows.size(); ++i)
        CHECK(again->table->oracle_config(again->train_rows[i]) ==
              loaded->table->oracle_config(loaded->train_rows[i]));
    }
  }
  // A split the shapes do not allow is refused as loading refuses it; a problem with a test
  // file has no source shapes to split again.
  const auto base = load_problem(lecture);
  CHECK_THROWS_AS(resplit(*base, "model:no-such-model", 0), InputError);
  ProblemSpec fixed = lecture;
  fixed.test_shapes = data_path("shapes/six_models.csv");
  const auto with_file = load_problem(fixed);
  CHECK_FALSE(can_resplit(*with_file));
  CHECK_THROWS_AS(resplit(*with_file, "random", 1), std::invalid_argument);
}

} // namespace problem_test
