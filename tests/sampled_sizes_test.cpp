#include "evolve/evolution.hpp"
#include "evolve/mock_llm.hpp"
#include "evolve/sampled_sizes.hpp"
#include "ir/error.hpp"
#include "ir/text.hpp"
#include "support/fixtures.hpp"
#include "support/shell.hpp"
#include "support/temp_dir.hpp"

#include <algorithm>
#include <doctest/doctest.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

// In a namespace of its own: the test files are compiled several to a unit (unity build).
namespace sampled_sizes_test {

using namespace tv;
using tv::test::cfg;
using tv::test::shape;

namespace {

/// A backend stand-in: each config's time is its BM in microseconds on every size (so BM 16 is
/// the fastest), and configs with BM 256 fail; counts the pairs it was asked for.
struct FakeTimes {
  long long asked = 0;
  std::vector<Measurement> operator()(const std::vector<TimingRequest>& batch) {
    std::vector<Measurement> out;
    for (const TimingRequest& t : batch) {
      ++asked;
      Measurement m;
      m.status = t.config.BM == 256 ? MeasureStatus::unlaunchable : MeasureStatus::ok;
      m.seconds = m.ok() ? 1e-6 * t.config.BM : m.seconds;
      out.push_back(m);
    }
    return out;
  }
};

/// `a` for M <= 64, else `b`.
Program split_at_64(const Config& a, const Config& b) {
  return parse_program_or_throw("def choose(M, N, K):\n    if M <= 64:\n        return " +
                                    print_config(a) + "\n    return " + print_config(b) + "\n",
                                "test");
}

EvolutionResult run(const Problem& p, int sampled_sizes, std::uint64_t seed = 0) {
  MockLlm m(p.gpu);
  EvolutionOptions o;
  o.seed = seed;
  o.budget = 1000;
  o.sampled_sizes = sampled_sizes;
  return Evolution(p, m, o).run();
}

} // namespace

TEST_CASE("sampled sizes: drawn inside the training range, every pairing of M and N possible") {
  std::vector<Shape> train = {shape(1, 28672, 4096), shape(8192, 1024, 1024, DType::f16)};
  train[0].weight = 7;
  const std::vector<Shape> a = sample_sizes(train, 200, 3);
  REQUIRE(a.size() == 200);
  bool decode_wide = false, fp16 = false, bf16 = false;
  for (const Shape& s : a) {
    CHECK(s.M >= 1);
    CHECK(s.M <= 8192);
    CHECK(s.N >= 1024);
    CHECK(s.N <= 28672);
    CHECK(s.K >= 1024);
    CHECK(s.K <= 4096);
    CHECK(s.weight == 1.0);
    decode_wide = decode_wide || (s.M <= 16 && s.N >= 16384); // a pairing no training shape has
    fp16 = fp16 || s.dtype == DType::f16;
    bf16 = bf16 || s.dtype == DType::bf16;
  }
  CHECK(decode_wide);
  CHECK(fp16);
  CHECK(bf16);
  // Log-uniform: about as many sizes below the geometric middle of M (90) as above it.
  const auto below = std::count_if(a.begin(), a.end(), [](const Shape& s) { return s.M < 90; });
  CHECK(below > 70);
  CHECK(below < 130);
  // The seed names the draw.
  const std::vector<Shape> b = sample_sizes(train, 200, 3), c = sample_sizes(train, 200, 4);
  CHECK(std::equal(a.begin(), a.end(), b.begin(), [](const Shape& x, const Shape& y) {
    return x.M == y.M && x.N == y.N && x.K == y.K && x.dtype == y.dtype;
  }));
  CHECK_FALSE(std::equal(a.begin(), a.end(), c.begin(), [](const Shape& x, const Shape& y) {
    return x.M == y.M && x.N == y.N && x.K == y.K;
  }));
  CHECK(sample_sizes({}, 10, 0).empty());
  CHECK(sampled_range(train) == "M 1..8192, N 1024..28672, K 1024..4096");
}

TEST_CASE("sampled sizes: the program fastest on the sizes is chosen, ties to the first") {
  const Config c16 = cfg(16, 64, 64, 4, 2, 1), c64 = cfg(64, 64, 64, 4, 2, 1),
               c256 = cfg(256, 64, 64, 4, 2, 1);
  const std::vector<Shape> sizes = {shape(8, 4096, 4096), shape(32, 4096, 4096),
                                    shape(1024, 4096, 4096), shape(4096, 4096, 4096)};
  // The first is slower on the two small sizes; the second is fastest everywhere; the third
  // ties with the second.
  const std::vector<Program> programs = {tv::test::constant_program(c64), split_at_64(c16, c64),
                                         split_at_64(c16, c64)};
  FakeTimes times;
  const SampledChoice r = choose_on_sampled_sizes(programs, sizes, std::ref(times));
  CHECK(r.sizes == 4);
  CHECK(r.chosen == 1);
  REQUIRE(r.figures.size() == 3);
  CHECK(r.figures[1] == doctest::Approx(1.0));
  CHECK(r.figures[2] == doctest::Approx(1.0));
  // 16/64 on two of the four sizes, geometric mean.
  CHECK(r.figures[0] == doctest::Approx(std::sqrt(0.25)));
  // Each distinct config once per size: 2 on the small sizes, 1 on the large ones.
  CHECK(r.kernel_runs == 6);
  CHECK(times.asked == 6);
  // A config that fails counts as 100 times the fastest.
  const SampledChoice f = choose_on_sampled_sizes(
      {tv::test::constant_program(c256), tv::test::constant_program(c16)}, sizes, FakeTimes{});
  CHECK(f.chosen == 1);
  CHECK(f.figures[0] == doctest::Approx(0.01));
  // A size whose pairs went unmeasured (past a kernel-run cap) is left out; with none left the
  // first program stays.
  const SampledChoice none =
      choose_on_sampled_sizes(programs, sizes, [](const std::vector<TimingRequest>& b) {
        return std::vector<Measurement>(b.size());
      });
  CHECK(none.sizes == 0);
  CHECK(none.chosen == 0);
  CHECK(none.kernel_runs == 0);
}

TEST_CASE("sampled sizes in a run: the chosen program fit the training shapes alike, its "
          "kernel runs counted") {
  const Problem& p = tv::test::lecture_problem("h100");
  const EvolutionResult off = run(p, 0);
  CHECK_FALSE(off.pass("sampled-sizes")->ran);
  CHECK(off.pass("sampled-sizes")->kernel_runs == 0);
  int compared = 0;
  bool changed = false;
  for (std::uint64_t seed : {0, 1, 2, 3}) {
    CAPTURE(seed);
    const EvolutionResult r = run(p, 64, seed);
    const PassReport& pass = *r.pass("sampled-sizes");
    REQUIRE(pass.ran);
    if (!pass.data.contains("figures")) {
      // One program alone fit the training shapes that well: nothing to choose, nothing timed.
      CHECK(pass.kernel_runs == 0);
      CHECK(r.best.id == r.best_searched.id);
      continue;
    }
    ++compared;
    const std::vector<double> figures = pass.data.at("figures");
    const std::vector<std::uint64_t> ids = pass.data.at("candidates");
    const std::size_t chosen = pass.data.at("chosen");
    REQUIRE(figures.size() >= 2);
    CHECK(figures.size() <= kSampledCandidates);
    CHECK(pass.data.at("sizes") == 64);
    CHECK(ids.size() == figures.size());
    CHECK(ids.front() == r.best_searched.id);
    for (double f : figures) {
      CHECK(f > 0);
      CHECK(f <= figures[chosen]);
    }
    CHECK(pass.kernel_runs >= 64);
    CHECK(pass.data.at("kernel_runs") == pass.kernel_runs);
    CHECK(r.best.id == ids.at(chosen));
    // Whatever it chose fit the training shapes within the tie share of the searched best
    // (polish, after it, only makes the training figure better).
    CHECK(r.best.score >= r.best_searched.score * (1 - kSampledTieShare));
    changed = changed || chosen != 0;
  }
  CHECK(compared >= 2);
  CHECK(changed); // on these seeds at least one run returns another program than the best
  // The same seed gives the same run.
  CHECK(print_program(run(p, 64, 1).best.program) == print_program(run(p, 64, 1).best.program));
}

TEST_CASE("sampled sizes: the backend's default, the option in a run's configuration, and "
          "recorded timings refuse it") {
  const Problem& analytic = tv::test::lecture_problem("h100");
  CHECK(with_backend_defaults(EvolutionOptions{}, analytic).sampled_sizes == kDefaultSampledSizes);
  EvolutionOptions off;
  off.sampled_sizes = 0;
  CHECK(with_backend_defaults(off, analytic).sampled_sizes == 0);
  const auto replay = tv::test::replay_problem("h100_mm.txt");
  CHECK(with_backend_defaults(EvolutionOptions{}, *replay).sampled_sizes == 0);
  EvolutionOptions asked;
  asked.sampled_sizes = 8;
  CHECK_THROWS_WITH_AS(with_backend_defaults(asked, *replay),
                       doctest::Contains("--sampled-sizes: the replay:"), InputError);
  // The option travels with the run's configuration; older runs (no key) read back as off.
  nlohmann::json j = asked.to_json();
  CHECK(EvolutionOptions::from_json(j).sampled_sizes == 8);
  j.erase("sampled_sizes");
  CHECK(EvolutionOptions::from_json(j).sampled_sizes == 0);
}

TEST_CASE("sampled sizes: evolve reports the comparison, --sampled-sizes 0 turns it off, bad "
          "values are refused") {
  const std::string tool = TILEVOLVE_BINARY;
  tv::test::ScratchDir dir("tv_sampled_sizes");
  const auto on = tv::test::run_shell(tool + " evolve --gpu h100 --seed 1 --json --out " +
                                      dir.at("run") + " 2>/dev/null");
  REQUIRE(on.status == 0);
  const auto j = nlohmann::json::parse(on.out);
  REQUIRE(j.contains("sampled_sizes"));
  const auto& c = j["sampled_sizes"];
  CHECK(c["sizes"] == 64);
  const auto pass = std::find_if(j["passes"].begin(), j["passes"].end(),
                                 [](const auto& p) { return p["name"] == "sampled-sizes"; });
  REQUIRE(pass != j["passes"].end());
  CHECK(c["kernel_runs"] == (*pass)["kernel_runs"]);
  CHECK(c == (*pass)["data"]);
  CHECK(c["range"] == "M 1..8192, N 1280..28672, K 1024..14336"); // the lecture's training half
  CHECK(j["best"]["id"] == c["candidates"][c["chosen"].get<std::size_t>()]);
  // The run's events say what it compared, for the dashboard's count of kernel runs: the pass's
  // report, as summary.json has it (without its wall time).
  const std::string events = tv::test::read_text(dir.at("run/events.ndjson"));
  nlohmann::json event = *pass;
  event.erase("seconds");
  event["event"] = "pass";
  CHECK(events.find(event.dump()) != std::string::npos);
  const auto text = tv::test::run_shell(tool + " evolve --gpu h100 --seed 1 --explain 2>/dev/null");
  CHECK(text.out.find("Sampled sizes: ") != std::string::npos);
  const auto zero = tv::test::run_shell(
      tool + " evolve --gpu h100 --seed 1 --sampled-sizes 0 --json 2>/dev/null");
  REQUIRE(zero.status == 0);
  CHECK_FALSE(nlohmann::json::parse(zero.out).contains("sampled_sizes"));
  const auto bad = tv::test::run_shell(tool + " evolve --sampled-sizes -3 2>&1");
  CHECK(bad.status == 2);
  CHECK(bad.out.find("--sampled-sizes") != std::string::npos);
  const auto replay =
      tv::test::run_shell(tool + " evolve --backend replay:" TILEVOLVE_SOURCE_DIR
                                 "/data/replay/h100_mm.txt --sampled-sizes 16 --budget 20 2>&1");
  CHECK(replay.status == 2);
  CHECK(replay.out.find("times only the shapes it holds") != std::string::npos);
}

} // namespace sampled_sizes_test
