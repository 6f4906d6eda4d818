// End-to-end tests: run the real tilevolve binary on real files.
#include "support/fixtures.hpp"
#include "support/shell.hpp"
#include "support/temp_dir.hpp"

#include "evolve/passes/pipeline.hpp"
#include "ir/rng.hpp"

#include <array>
#include <csignal>
#include <cstdio>

#include <doctest/doctest.h>
#include <fcntl.h>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>
#include <utility>

// In a namespace of its own: the test files are compiled several to a unit (unity build).
namespace cli_test {

namespace {

using Run = tv::test::ShellResult;

/// Runs tilevolve with `args` (a shell fragment); stderr is merged into the output when asked.
Run run(const std::string& args, bool merge_stderr = false) {
  return tv::test::run_shell(std::string(TILEVOLVE_BINARY) + " " + args +
                             (merge_stderr ? " 2>&1" : " 2>/dev/null"));
}

std::string tv_test_read(const std::string& path) {
  return tv::test::read_text(path);
}

} // namespace

TEST_CASE("cli: --version names the version and the allocator, which took over malloc") {
  const Run r = run("--version");
  CHECK(r.status == 0);
  CHECK(r.out.rfind("tilevolve ", 0) == 0);
  const std::size_t at = r.out.find("\nallocator: ");
  REQUIRE(at != std::string::npos);
  const std::string allocator = r.out.substr(at + 12);
  // Linked but not in charge would mean a link order that leaves glibc's malloc in place.
  CHECK(allocator.find("not redirected") == std::string::npos);
  if (TILEVOLVE_LINKS_MIMALLOC) {
    CHECK(allocator.rfind("mimalloc ", 0) == 0);
    CHECK(allocator.find("(malloc redirected)") != std::string::npos);
  } else {
    CHECK(allocator.rfind("the C library's malloc", 0) == 0);
  }
}

TEST_CASE("cli: baselines --json reports every method on train and test") {
  const Run r = run("baselines --gpu h100 --json");
  REQUIRE(r.status == 0);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j["problem"]["gpu"] == "h100");
  CHECK(j["problem"]["train_shapes"] == 44);
  CHECK(j["problem"]["test_shapes"] == 44);
  CHECK(j["per_shape"].size() == 88);
  for (const char* m : {"expert", "best_single", "per_m_table", "oracle"})
    for (const char* half : {"train", "test"}) {
      INFO(m << " " << half);
      const auto& s = j["methods"][m][half];
      CHECK(s["fraction_of_oracle"].get<double>() <= 1.0 + 1e-12);
      CHECK(s["speedup_vs_expert"].get<double>() > 0);
    }
  CHECK(j["methods"]["oracle"]["test"]["fraction_of_oracle"].get<double>() == doctest::Approx(1.0));
  CHECK(j["methods"]["best_single"]["test"]["fraction_of_oracle"].get<double>() <
        j["methods"]["per_m_table"]["test"]["fraction_of_oracle"].get<double>());
}

TEST_CASE("cli: baselines text report names the problem and prints the per-M program") {
  const Run r = run("baselines --split model:llama3-8b");
  REQUIRE(r.status == 0);
  CHECK(r.out.find("train on model llama3-8b") != std::string::npos);
  CHECK(r.out.find("per-shape oracle") != std::string::npos);
  CHECK(r.out.find("def choose(M, N, K):") != std::string::npos);
}

TEST_CASE("cli: score the expert gives speedup 1 and a rejected program exits 1 with reasons") {
  const tv::test::ScratchDir scratch("tilevolve_cli_test");
  const Run ok = run("score " + tv::data_path("experts/lecture.py") + " --gpu h100 --json");
  REQUIRE(ok.status == 0);
  const auto j = nlohmann::json::parse(ok.out);
  CHECK(j["train"]["speedup_vs_expert"].get<double>() == doctest::Approx(1.0));
  CHECK(j["program"]["static_check"].empty());

  const std::string bad = scratch.write("bad_regs.py", "def choose(M, N, K):\n"
                                                       "    return Config(BM=256, BN=128, BK=64, "
                                                       "warps=4, stages=3, group=8)\n");
  const Run rej = run("score " + bad + " --gpu h100");
  CHECK(rej.status == 1);
  CHECK(rej.out.find("296 registers per thread > 255") != std::string::npos);
}

TEST_CASE("cli: bad input gives a message naming the file and line, exit status 2") {
  const tv::test::ScratchDir scratch("tilevolve_cli_test");
  const std::string shapes = scratch.write("bad_shapes.csv", "name,M,N,K\na,1,2,3\nb,0,2,3\n");
  const Run r = run("baselines --shapes " + shapes, true);
  CHECK(r.status == 2);
  CHECK(r.out.find("bad_shapes.csv:3:") != std::string::npos);

  const std::string prog = scratch.write("bad_prog.py", "def choose(M, N, K):\n"
                                                        "    if M <= abc:\n");
  const Run p = run("score " + prog, true);
  CHECK(p.status == 2);
  CHECK(p.out.find("bad_prog.py:2:") != std::string::npos);

  const Run g = run("baselines --gpu nosuch", true);
  CHECK(g.status == 2);
  CHECK(g.out.find("unknown GPU 'nosuch'") != std::string::npos);
  CHECK(g.out.find("h100") != std::string::npos);
}

namespace {
/// `evolve` on this repository's measured H200 table, lecture shapes, with its sampled expert.
const std::string kH200Lecture =
    "evolve --backend table:" TILEVOLVE_SOURCE_DIR
    "/data/replay/h200_triton.csv --expert " TILEVOLVE_SOURCE_DIR
    "/data/experts/h200_sample48.py --shapes " TILEVOLVE_SOURCE_DIR "/data/shapes/lecture.csv";

/// Starts tilevolve with `args`, kills it with SIGKILL after `micros`, and reaps it.
/// Returns true when the kill landed before the process finished.
bool run_and_kill(const std::vector<std::string>& args, useconds_t micros) {
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    std::vector<char*> argv;
    argv.push_back(const_cast<char*>(TILEVOLVE_BINARY));
    for (const auto& a : args)
      argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    const int devnull = ::open("/dev/null", O_WRONLY);
    dup2(devnull, 1);
    dup2(devnull, 2);
    execv(TILEVOLVE_BINARY, argv.data());
    _exit(127);
  }
  usleep(micros);
  const bool killed = ::kill(pid, SIGKILL) == 0;
  int st = 0;
  waitpid(pid, &st, 0);
  return killed && WIFSIGNALED(st);
}
} // namespace

TEST_CASE("cli: evolve killed with SIGKILL at random moments resumes to the same result") {
  namespace fs = std::filesystem;
  const tv::test::ScratchDir scratch("tilevolve_kill_test");
  const fs::path base = scratch.path;
  const std::string common = "--gpu h100 --budget 400 --seed 5 --checkpoint-every 16 --quiet";
  const std::string ref = (base / "ref").string();
  REQUIRE(run("evolve " + common + " --out " + ref + " --json").status == 0);
  const auto ref_summary = nlohmann::json::parse(tv_test_read(ref + "/summary.json"));

  tv::Rng rng(2024);
  int kills = 0;
  for (int trial = 0; trial < 4; ++trial) {
    const std::string dir = (base / fmt::format("k{}", trial)).string();
    std::vector<std::string> args{"evolve", "--gpu",   "h100",  "--budget",
                                  "400",    "--seed",  "5",     "--checkpoint-every",
                                  "16",     "--quiet", "--out", dir};
    // Kill between 20 ms (loading) and 600 ms (near the end on a slow machine).
    if (run_and_kill(args, useconds_t(rng.uniform_int(20000, 600000)))) ++kills;
    if (!fs::exists(dir + "/config.json")) continue; // killed before the run directory existed
    const Run resumed = run("evolve --resume " + dir + " --json", true);
    if (!fs::exists(dir + "/checkpoint.json")) {
      CHECK(resumed.status == 2); // clear message, no silent restart
      continue;
    }
    REQUIRE(resumed.status == 0);
    const auto s = nlohmann::json::parse(tv_test_read(dir + "/summary.json"));
    CHECK(s["best"]["program"] == ref_summary["best"]["program"]);
    CHECK(s["counters"] == ref_summary["counters"]);
    CHECK(s["test"] == ref_summary["test"]);
    CHECK(tv_test_read(dir + "/events.ndjson") == tv_test_read(ref + "/events.ndjson"));
  }
  MESSAGE("runs killed before they finished: " << kills << " of 4");
}

TEST_CASE("cli: replay backend end to end: baselines, score and evolve report the vendor library") {
  const tv::test::ScratchDir scratch("tilevolve_cli_test");
  const std::string problem = "--backend replay:" + tv::data_path("replay/h100_mm.txt") +
                              " --gpu h100 --shapes " + tv::data_path("replay/h100_shapes.csv") +
                              " --expert " + tv::data_path("experts/h100_inductor.py");
  const Run b = run("baselines " + problem + " --json");
  REQUIRE(b.status == 0);
  const auto bj = nlohmann::json::parse(b.out);
  CHECK(bj["problem"]["train_shapes"] == 106);
  CHECK(bj["problem"]["test_shapes"] == 106);
  CHECK(bj["problem"]["configs"] == 29);
  for (const char* m : {"expert", "best_single", "per_m_table", "vendor", "oracle"})
    CHECK_MESSAGE(bj["methods"][m]["test"]["valid"] == true, m);
  CHECK(bj["methods"]["vendor"]["label"] == "vendor library (cuBLAS, recorded)");
  CHECK(bj["methods"]["vendor"]["kernel_runs"] == 0);
  CHECK(bj["per_shape"][0]["layout"] == "NN");
  CHECK(bj["per_shape"][0]["vendor_time_s"].get<double>() > 0);
  const Run bt = run("baselines " + problem);
  REQUIRE(bt.status == 0);
  CHECK(bt.out.find("Per-shape oracle (fastest legal config by replay:") != std::string::npos);
  CHECK(bt.out.find("vendor library (cuBLAS, recorded)") != std::string::npos);

  const Run s =
      run("score " + tv::data_path("experts/h100_inductor.py") + " " + problem + " --json");
  REQUIRE(s.status == 0);
  const auto sj = nlohmann::json::parse(s.out);
  CHECK(sj["train"]["speedup_vs_expert"].get<double>() == doctest::Approx(1.0));
  CHECK(sj["methods"]["vendor"]["test"]["fraction_of_oracle"] ==
        bj["methods"]["vendor"]["test"]["fraction_of_oracle"]);
  const Run st = run("score " + tv::data_path("experts/h100_inductor.py") + " " + problem);
  REQUIRE(st.status == 0);
  CHECK(st.out.find("vendor library (cuBLAS, recorded)") != std::string::npos);
  CHECK(st.out.find("h100:bf16:NT:M") != std::string::npos);

  // Evolution proposes only recorded configs: nothing is rejected by the static check.
  const Run e = run("evolve " + problem + " --budget 200 --seed 1 --json");
  REQUIRE(e.status == 0);
  const auto ej = nlohmann::json::parse(e.out);
  CHECK(ej["counters"]["static_reject"] == 0);
  CHECK(ej["counters"]["full"].get<int>() > 20);
  CHECK(ej["train"]["speedup_vs_expert"].get<double>() > 1.0);
  CHECK(ej["baselines"]["vendor"]["test"] == bj["methods"]["vendor"]["test"]);
  CHECK(ej["baselines"]["best_single"]["test"] == bj["methods"]["best_single"]["test"]);

  // A shape file with a bad layout names the file and line.
  const std::string shapes =
      scratch.write("bad_layout.csv", "name,M,N,K,layout\na,1,2,3,NN\nb,1,2,3,XY\n");
  const Run bad = run("baselines --shapes " + shapes, true);
  CHECK(bad.status == 2);
  CHECK(bad.out.find("bad_layout.csv:3: unknown layout 'XY' (expected NN, NT, TN or TT)") !=
        std::string::npos);
}

TEST_CASE("cli: evolve --split-features is validated, recorded and taken back on resume") {
  namespace fs = std::filesystem;
  const Run bad = run("evolve --gpu h100 --budget 10 --split-features MQ", true);
  CHECK(bad.status == 2);
  CHECK(bad.out.find("'Q' is not a feature") != std::string::npos);

  const tv::test::ScratchDir scratch("tilevolve_split_features_test");
  const fs::path base = scratch.path;
  const std::string dir = (base / "mnk").string();
  const Run first =
      run("evolve --gpu h100 --budget 120 --split-features NKM --quiet --json --out " + dir);
  REQUIRE(first.status == 0);
  const auto cfg = nlohmann::json::parse(tv_test_read(dir + "/config.json"));
  CHECK(cfg["mutator"] == "mock-llm (splits on M, N, K)");
  const Run again = run("evolve --resume " + dir + " --json");
  REQUIRE(again.status == 0);
  CHECK(nlohmann::json::parse(again.out)["best"] == nlohmann::json::parse(first.out)["best"]);

  // A configuration naming a mutator no mock writes is refused, not silently replaced.
  std::string text = tv_test_read(dir + "/config.json");
  const auto at = text.find("mock-llm (splits on M, N, K)");
  REQUIRE(at != std::string::npos);
  text.replace(at, 28, "gpt-9");
  std::ofstream(dir + "/config.json") << text;
  const Run refused = run("evolve --resume " + dir, true);
  CHECK(refused.status == 2);
  CHECK(refused.out.find("unknown mutator 'gpt-9'") != std::string::npos);
}

TEST_CASE("cli: evolve --threads changes no result, a tiny test half warns, one rule is singular") {
  const tv::test::ScratchDir scratch("tilevolve_cli_test");
  const Run one = run("evolve --gpu h100 --budget 200 --seed 2 --threads 1 --json");
  const Run two = run("evolve --gpu h100 --budget 200 --seed 2 --threads 2 --json");
  REQUIRE(one.status == 0);
  REQUIRE(two.status == 0);
  auto a = nlohmann::json::parse(one.out), b = nlohmann::json::parse(two.out);
  for (nlohmann::json* j : {&a, &b}) { // wall times: the run's and each pass's
    j->erase("seconds");
    for (auto& pass : (*j)["passes"])
      pass.erase("seconds");
  }
  CHECK(a == b);
  // Four shapes split in half: two test shapes decide nothing, and the run says so.
  const Run tiny = run("baselines --gpu h100 --inline 1,4096,4096 --inline 16,4096,4096 "
                       "--inline 256,4096,4096 --inline 4096,4096,4096",
                       true);
  REQUIRE(tiny.status == 0);
  CHECK(tiny.out.find("tilevolve: warning: the test half holds 2 shapes: a test score on fewer "
                      "than 10 shapes decides nothing") != std::string::npos);
  const Run none = run("baselines --gpu h100 --inline 1,4096,4096 --split none", true);
  REQUIRE(none.status == 0);
  CHECK(none.out.find("warning: the test half") == std::string::npos);
  const std::string prog =
      scratch.write("one_rule.py", "def choose(M, N, K):\n"
                                   "    if M <= 16:\n"
                                   "        return Config(BM=16, BN=64, BK=128, "
                                   "warps=4, stages=4, group=1)\n"
                                   "    return Config(BM=128, BN=128, BK=64, "
                                   "warps=4, stages=3, group=8)\n");
  const Run s = run("score " + prog + " --gpu h100");
  REQUIRE(s.status == 0);
  CHECK(s.out.find("1 rule; 1 after removing dead and redundant rules") != std::string::npos);
}

namespace {

/// The --json of `args` run as it is and with `off_flag`, both required to succeed.
std::pair<nlohmann::json, nlohmann::json> json_on_off(const std::string& args,
                                                      const std::string& off_flag) {
  const Run on = run(args + " --json");
  const Run off = run(args + " " + off_flag + " --json");
  REQUIRE(on.status == 0);
  REQUIRE(off.status == 0);
  return {nlohmann::json::parse(on.out), nlohmann::json::parse(off.out)};
}

/// `evolve --help-all` names the result step's `off_flag` (a pass's name, for --skip-pass NAME),
/// and `splits` takes it and reports the step off under `key` in --json (skip_passes naming
/// the pass, for --skip-pass NAME).
void check_splits_flag(const std::string& off_flag, const std::string& key = "") {
  const std::string skip = "--skip-pass ";
  const bool pass = off_flag.rfind(skip, 0) == 0;
  const std::string named = pass ? off_flag.substr(skip.size()) : off_flag;
  CHECK(run("evolve --help-all").out.find(named) != std::string::npos);
  const Run splits = run("splits --splits 1 --seeds 1 --budget 100 " + off_flag + " --json");
  REQUIRE(splits.status == 0);
  const nlohmann::json j = nlohmann::json::parse(splits.out);
  if (pass)
    CHECK(j["skip_passes"] == nlohmann::json::array({named}));
  else
    CHECK(j[key] == false);
}

/// Runs `args` (by default the README's first command, mi300x, lecture, split 0, at 300
/// programs) with a step after the search on and with `off_flag` turning it off: the step's
/// `key` under "best" in --json (a list, or one line of text) is filled with it and empty without,
/// the programs differ, the training figures agree (no training shape changes its config), and the
/// text summary has `text`. Returns the JSON of the run with the step.
nlohmann::json check_result_step(const std::string& off_flag, const std::string& key,
                                 const std::string& text,
                                 const std::string& args = "evolve --budget 300") {
  const auto [a, b] = json_on_off(args, off_flag);
  // A list of changes, or one line of text ("" when the step did not run).
  const auto blank = [](const nlohmann::json& v) { return v.empty() || v == ""; };
  REQUIRE_FALSE(blank(a["best"][key]));
  CHECK(blank(b["best"][key]));
  CHECK(a["best"]["program"] != b["best"]["program"]);
  CHECK(a["train"]["speedup_vs_expert"].get<double>() ==
        doctest::Approx(b["train"]["speedup_vs_expert"].get<double>()));
  const Run summary = run(args + " --explain");
  REQUIRE(summary.status == 0);
  CHECK(summary.out.find(text) != std::string::npos);
  check_splits_flag(off_flag);
  return a;
}

/// Runs `args` with a step of the wave guards on and with `off_flag` turning it off: a line of
/// best.wave_guards that `marks` accepts is there only with the step, the training figures agree
/// (no training shape changes its config), the test figure is higher by more than `margin`, and
/// `splits` takes the flag (reported off under `key`).
void check_guard_step(const std::string& args, const std::string& off_flag, const std::string& key,
                      const std::function<bool(const std::string&)>& marks, double margin) {
  const auto [a, b] = json_on_off(args, off_flag);
  const auto has = [&](const nlohmann::json& run) {
    for (const auto& line : run["best"]["wave_guards"])
      if (marks(line.get<std::string>())) return true;
    return false;
  };
  CHECK(has(a));
  CHECK_FALSE(has(b));
  CHECK(a["train"]["speedup_vs_expert"].get<double>() ==
        doctest::Approx(b["train"]["speedup_vs_expert"].get<double>()));
  CHECK(a["test"]["fraction_of_oracle"].get<double>() >
        b["test"]["fraction_of_oracle"].get<double>() + margin);
  check_splits_flag(off_flag, key);
}

} // namespace

TEST_CASE("cli: evolve places thresholds between training values, unless that pass is skipped") {
  check_result_step("--skip-pass threshold-placement", "placed_thresholds",
                    "Its thresholds were moved between the training values");
}

TEST_CASE("cli: evolve keeps the result's rules to their waves, unless that pass is skipped") {
  const auto a = check_result_step("--skip-pass wave-guards", "wave_guards",
                                   "Its rules were kept to the waves of their own tile");
  CHECK(a["best"]["wave_guards"][0].get<std::string>().find("units)") != std::string::npos);
}

TEST_CASE("cli: return rules give decode shapes wider than the training ones their rule back") {
  // mi355x, lecture -> six models, seed 1: the guards send llama3-405b's and gemma2-27b's
  // gate_up GEMMs at M <= 64 (N = 106496, 73728) on to the default's 256x256 tile.
  const std::string args =
      "evolve --gpu mi355x --test-shapes data/shapes/six_models.csv --seed 1 --budget 2000";
  check_guard_step(
      args, "--no-guard-returns", "guard_returns",
      [](const std::string& line) { return line.rfind("new, before", 0) == 0; }, 0);
}

TEST_CASE("cli: a floor keeps a rule fitted on full waves from an unseen shape under one") {
  // H100 replay, random-mnk split seed 3, seed 0: `K <= 2560` takes the shallower pipeline from
  // training shapes of at least 599 tiles; the test shapes M = 32, N = 1280, K = 1024 (10
  // tiles) lose a quarter of their speed to it and go to the default with the floor.
  const std::string args = "evolve --backend replay:data/replay/h100_mm.txt --split random-mnk "
                           "--split-seed 3 --seed 0";
  check_guard_step(
      args, "--no-wave-floors", "wave_floors",
      [](const std::string& line) {
        return line.find(">= 132 (each of its training shapes fills at least 2 waves") !=
               std::string::npos;
      },
      0.005);
}

TEST_CASE("cli: evolve polishes the result's leaf configs, unless that pass is skipped") {
  const auto [a, b] = json_on_off("evolve --gpu h100 --budget 300", "--skip-pass leaf-polish");
  REQUIRE_FALSE(a["best"]["polish"].empty());
  CHECK(a["best"]["polish"][0].get<std::string>().find("faster there") != std::string::npos);
  CHECK(a["best"]["polish_kernel_runs"].get<long long>() > 0);
  CHECK(b["best"]["polish"].empty());
  CHECK(b["best"]["polish_kernel_runs"] == 0);
  CHECK(a["best"]["program"] != b["best"]["program"]);
  // Faster on the training shapes, for the kernel runs it took (and the same search before it).
  CHECK(a["train"]["speedup_vs_expert"].get<double>() >
        b["train"]["speedup_vs_expert"].get<double>());
  CHECK(a["kernel_runs"].get<long long>() ==
        b["kernel_runs"].get<long long>() + a["best"]["polish_kernel_runs"].get<long long>());
  const Run summary = run("evolve --gpu h100 --budget 300 --explain");
  REQUIRE(summary.status == 0);
  CHECK(summary.out.find("Its leaf configs were polished") != std::string::npos);
  check_splits_flag("--skip-pass leaf-polish");
}

TEST_CASE("cli: a retired pass cannot be skipped") {
  const Run refused = run("evolve --gpu h100 --budget 50 --skip-pass race-completion", true);
  CHECK(refused.status == 2);
  CHECK(refused.out.find("the pass 'race-completion' was retired") != std::string::npos);
  CHECK(run("evolve --help").out.find("race-completion") == std::string::npos);
}

TEST_CASE("cli: evolve spends what the search left of the cap on leaf exploration, unless that "
          "pass is skipped") {
  const std::string args = "evolve --backend table:" TILEVOLVE_SOURCE_DIR
                           "/data/replay/h200_triton.csv --shapes " TILEVOLVE_SOURCE_DIR
                           "/data/shapes/lecture.csv --budget 400";
  const auto [a, b] = json_on_off(args, "--skip-pass leaf-exploration");
  const long long explored = a["best"]["exploration_kernel_runs"].get<long long>();
  CHECK(explored > 0);
  CHECK(a["best"]["exploration"].get<std::string>().find("pairs timed in") != std::string::npos);
  CHECK(b["best"]["exploration_kernel_runs"] == 0);
  CHECK(b["best"]["exploration"] == "");
  // Within the 30% cap, and more of it spent than without.
  const double exhaustive = a["exhaustive_train_runs"].get<double>();
  CHECK(a["kernel_runs"].get<double>() <= 0.30 * exhaustive);
  CHECK(a["kernel_runs"].get<long long>() > b["kernel_runs"].get<long long>());
  const Run summary = run(args + " --explain");
  REQUIRE(summary.status == 0);
  CHECK(summary.out.find("Leaf exploration timed configs on the leaves") != std::string::npos);
  check_splits_flag("--skip-pass leaf-exploration");
}

TEST_CASE("cli: evolve on a recorded table starts from the analytic model's tree too, "
          "--no-analytic-seed does not") {
  const std::string args =
      "evolve --backend replay:" TILEVOLVE_SOURCE_DIR "/data/replay/a100_timm_mm.txt --budget 300";
  const auto [a, b] = json_on_off(args, "--no-analytic-seed");
  REQUIRE(a["per_operator"].contains("analytic seed"));
  CHECK(a["per_operator"]["analytic seed"]["full"] == 1);
  CHECK(a["per_operator"]["analytic seed"]["kernel_runs"].get<long long>() > 0);
  CHECK_FALSE(b["per_operator"].contains("analytic seed"));
  const Run summary = run(args + " --explain");
  REQUIRE(summary.status == 0);
  CHECK(summary.out.find("The analytic model's decision tree on the training shapes started") !=
        std::string::npos);
  check_splits_flag("--no-analytic-seed", "analytic_seed");
}

TEST_CASE("cli: evolve drops the wave guards its folds measured as slower, unless that pass is "
          "skipped") {
  // On the H200 table with seed 2, a fold's guard sends a held-out lecture shape to a later
  // rule whose config the run measured as slower there: that rule's guard goes.
  const auto a =
      check_result_step("--skip-pass guard-validation", "guard_validation",
                        "Guard validation (guards placed on folds", kH200Lecture + " --seed 2");
  CHECK(a["best"]["guard_validation"].get<std::string>().find("guards dropped on `") !=
        std::string::npos);
}

TEST_CASE("cli: refit validation refits with the lookahead's growth where it validates better") {
  // On the H200 table with seed 14, trees grown with the two-step lookahead do better on the
  // held-out folds than greedy ones, and the result is such a tree (with the charge the folds
  // chose best). Of seeds 0 to 14 it is the first where the lookahead changes the result.
  const std::string args = kH200Lecture + " --seed 14 --no-refit-extremes";
  const auto [a, b] = json_on_off(args, "--no-refit-lookahead");
  REQUIRE(a.contains("refit_validation"));
  REQUIRE(b.contains("refit_validation"));
  CHECK(a["refit_validation"]["lookahead"] == 10);
  CHECK(b["refit_validation"]["lookahead"] == 0);
  CHECK(a["refit_validation"]["tree_chosen"] == true);
  CHECK(a["best"]["op"] == "refit");
  // The lookahead's best held-out figure beat greedy's on the same folds.
  const auto best_held = [](const nlohmann::json& j) {
    const auto& v = j["refit_validation"];
    return v["held_out_speedup"][std::size_t(v["best_leaves"].get<int>() - 1)].get<double>();
  };
  CHECK(best_held(a) > best_held(b));
  CHECK(a["best"]["program"] != b["best"]["program"]);
  CHECK(a["counters"]["kernel_runs"] == b["counters"]["kernel_runs"]); // no kernel run more
  const Run summary = run(args + " --explain");
  REQUIRE(summary.status == 0);
  CHECK(summary.out.find("grown with a two-step lookahead") != std::string::npos);
  check_splits_flag("--no-refit-lookahead", "refit_lookahead");
}

TEST_CASE("cli: evolve returns a refitted tree where it validates, the searched program without") {
  const std::string args = "evolve --backend replay:" TILEVOLVE_SOURCE_DIR
                           "/data/replay/a100_hf_mm.txt --budget 1000 --stagnation 200 "
                           "--max-kernel-runs 27%";
  const auto [a, b] = json_on_off(args, "--skip-pass refit-validation");
  // On split 0 of the A100 HuggingFace GEMMs the tree on the run's pairs validates: its
  // held-out figure beats the searched program's training figure.
  REQUIRE(a.contains("refit_validation"));
  CHECK(a["refit_validation"]["tree_chosen"] == true);
  CHECK(a["refit_validation"]["gain"].get<double>() > 0);
  // Trees of 1 to twice the baseline's 8 leaves are candidates, the size chosen among them by
  // cost-complexity (the test below).
  const auto& leaves = a["refit_validation"]["leaves"];
  REQUIRE(leaves.size() == 16);
  CHECK(leaves.front() == 1);
  CHECK(leaves.back() == 16);
  const int best = a["refit_validation"]["best_leaves"].get<int>();
  CHECK(best >= 1);
  CHECK(best <= 16);
  CHECK(a["refit_validation"]["complexity"] == true);
  CHECK(a["best"]["op"] == "refit");
  CHECK_FALSE(b.contains("refit_validation"));
  CHECK(a["best"]["program"] != b["best"]["program"]);
  // The same search and the same kernel runs either way: validation reads measured pairs only.
  CHECK(a["counters"]["kernel_runs"] == b["counters"]["kernel_runs"]);
  CHECK(a["train"]["speedup_vs_expert"].get<double>() >
        b["train"]["speedup_vs_expert"].get<double>());
}

TEST_CASE("cli: refit validation sizes the tree by a charge per leaf, --no-refit-complexity by "
          "the folds' best leaf count") {
  // On split 2 of the A100 HuggingFace GEMMs the charge per leaf that did best on the folds
  // picks a larger tree from the fit on every training shape than the leaf count that did
  // best on the folds (fitted on four fifths of them).
  const std::string args = "evolve --backend replay:" TILEVOLVE_SOURCE_DIR
                           "/data/replay/a100_hf_mm.txt --budget 1000 --stagnation 200 "
                           "--max-kernel-runs 27% --split-seed 2";
  const auto [a, b] = json_on_off(args, "--no-refit-complexity");
  REQUIRE(a.contains("refit_validation"));
  REQUIRE(b.contains("refit_validation"));
  const auto& ca = a["refit_validation"];
  const auto& cb = b["refit_validation"];
  CHECK(ca["complexity"] == true);
  CHECK(cb["complexity"] == false);
  CHECK(ca["leaf_charge"].get<double>() > 0);
  CHECK(cb["leaf_charge"].get<double>() == 0);
  const auto argmax = [](const nlohmann::json& held) {
    std::size_t best = 0;
    for (std::size_t i = 1; i < held.size(); ++i)
      if (held[i].get<double>() > held[best].get<double>()) best = i;
    return int(best) + 1;
  };
  // Without: the held-out best leaf count. With: the charge's tree, larger here.
  CHECK(cb["best_leaves"].get<int>() == argmax(cb["held_out_speedup"]));
  CHECK(ca["best_leaves"].get<int>() > argmax(ca["held_out_speedup"]));
  CHECK(ca["tree_chosen"] == true);
  CHECK(a["best"]["program"] != b["best"]["program"]);
  CHECK(a["counters"]["kernel_runs"] == b["counters"]["kernel_runs"]); // no kernel run more
  const Run summary = run(args + " --explain");
  REQUIRE(summary.status == 0);
  CHECK(summary.out.find("cost-complexity pruning") != std::string::npos);
  check_splits_flag("--no-refit-complexity", "refit_complexity");
}

TEST_CASE("cli: refit validation's charge is chosen on the extreme folds among the close ones, "
          "its tree deciding past the training shapes' box, --no-refit-extremes keeps the best") {
  // The measured H200 lecture table, tested on the six models' GEMMs (larger N and K than any
  // lecture shape): the folds' best charge gives 4 leaves, the extreme folds 11; the larger tree
  // decides the shapes outside the lecture shapes' box, and does better on the six models.
  const std::string six =
      kH200Lecture + " --test-shapes " TILEVOLVE_SOURCE_DIR "/data/shapes/six_models_m2048.csv";
  const auto [a, b] = json_on_off(six, "--no-refit-extremes");
  const auto& ra = a["refit_validation"];
  const auto& rb = b["refit_validation"];
  CHECK(ra["extreme_folds"] == 6);
  CHECK(rb["extreme_folds"] == 0);
  CHECK(ra["close_charges"].get<int>() >= 1);
  CHECK(rb["best_leaves"] == rb["folds_best_leaves"]);
  CHECK(rb["off_range_leaves"] == 0);
  // Inside the box the best charge's tree, as without the extreme folds; outside a larger one.
  CHECK(ra["best_leaves"] == rb["best_leaves"]);
  CHECK(ra["off_range_leaves"].get<int>() > ra["best_leaves"].get<int>());
  CHECK(ra["tree_chosen"] == true);
  CHECK(a["counters"]["kernel_runs"] == b["counters"]["kernel_runs"]); // no kernel run more
  CHECK(a["test"]["fraction_of_oracle"].get<double>() >
        b["test"]["fraction_of_oracle"].get<double>());
  // The training shapes get the same configs from both results (every one is inside the box).
  CHECK(a["train"]["fraction_of_oracle"] == b["train"]["fraction_of_oracle"]);
  const Run summary = run(six + " --explain");
  REQUIRE(summary.status == 0);
  const std::string text = tv::test::unwrapped(summary.out);
  CHECK(text.find("the one whose trees did best on 6 folds of the training shapes of the "
                  "largest and the smallest M, N and K") != std::string::npos);
  CHECK(text.find("that tree decides the shapes outside the box of the training shapes") !=
        std::string::npos);
  check_splits_flag("--no-refit-extremes", "refit_extremes");
}

TEST_CASE("cli: refits lean on the analytic model where it orders the run's timings, "
          "--no-model-prior never") {
  // The measured H100 lecture table: the H100 model orders the pairs the run times at a tau near
  // 0.5, so the refits lean on it and the result differs.
  const std::string lecture =
      "evolve --backend table:" TILEVOLVE_SOURCE_DIR
      "/data/replay/h100_triton.csv --expert " TILEVOLVE_SOURCE_DIR
      "/data/experts/h200_sample48.py --shapes " TILEVOLVE_SOURCE_DIR "/data/shapes/lecture.csv";
  const auto [a, b] = json_on_off(lecture, "--no-model-prior");
  CHECK(a["model_prior"]["enabled"] == true);
  CHECK(b["model_prior"]["enabled"] == false);
  CHECK(a["model_prior"]["tau"].get<double>() >= a["model_prior"]["threshold"].get<double>());
  CHECK(a["model_prior"]["trusted"] == true);
  CHECK(a["model_prior"]["concordant"].get<long long>() >
        a["model_prior"]["discordant"].get<long long>());
  CHECK(a["best"]["program"] != b["best"]["program"]);
  const Run summary = run(lecture + " --explain");
  REQUIRE(summary.status == 0);
  CHECK(summary.out.find("Model prior: each refit") != std::string::npos);
  CHECK(summary.out.find("so the result's refits leaned on it") != std::string::npos);
  // The recorded H100 random GEMMs: the model orders them little better than chance, so no
  // refit leans on it and the run is the same with or without the flag.
  const std::string random =
      "evolve --backend replay:" TILEVOLVE_SOURCE_DIR "/data/replay/h100_mm.txt --budget 600";
  const auto [c, d] = json_on_off(random, "--no-model-prior");
  CHECK(c["model_prior"]["tau"].get<double>() < c["model_prior"]["threshold"].get<double>());
  CHECK(c["model_prior"]["trusted"] == false);
  CHECK(c["best"]["program"] == d["best"]["program"]);
  CHECK(c["baselines"]["tree_cost_matched"]["program"] ==
        d["baselines"]["tree_cost_matched"]["program"]);
  // On the analytic model the model is the timings: no prior, and nothing said of one.
  const Run analytic = run("evolve --budget 200 --json");
  REQUIRE(analytic.status == 0);
  const auto e = nlohmann::json::parse(analytic.out);
  CHECK(e["model_prior"]["enabled"] == false);
  CHECK(e["model_prior"]["concordant"] == 0);
  CHECK(run("evolve --budget 200").out.find("Model prior") == std::string::npos);
  check_splits_flag("--no-model-prior", "model_prior");
}

TEST_CASE(
    "cli: refit validation charges the searched program's training figure with the optimism") {
  // On the H200 table, lecture shapes, split 3: the searched program's training figure is ahead
  // of the best tree's held-out one until it is charged with a tree's optimism at its size.
  const std::string args = kH200Lecture + " --split-seed 3";
  const auto [with, without] = json_on_off(args, "--no-optimism-charge");
  const auto& a = with["refit_validation"];
  const auto& b = without["refit_validation"];
  const double charge = a["optimism_charge"].get<double>();
  CHECK(charge > 0);
  CHECK(b["optimism_charge"].get<double>() == 0);
  CHECK(a["gain"].get<double>() == doctest::Approx(b["gain"].get<double>() + charge));
  CHECK(a["tree_chosen"] == true);
  CHECK(b["tree_chosen"] == false);
  // One optimism per leaf limit tried.
  CHECK(a["optimism"].size() == a["leaves"].size());
  const Run summary = run(args + " --explain");
  REQUIRE(summary.status == 0);
  CHECK(summary.out.find("the optimism of a refitted tree of as many leaves") != std::string::npos);
  check_splits_flag("--no-optimism-charge", "optimism_charge");
  // Never on the analytic model: the README's first command compares as it did.
  const auto analytic = nlohmann::json::parse(run("evolve --budget 300 --json").out);
  REQUIRE(analytic.contains("refit_validation"));
  CHECK(analytic["refit_validation"]["optimism_charge"].get<double>() == 0);
}

TEST_CASE(
    "cli: evolve --help fits on a screen, by group, every pass named, and --help-all has all") {
  const Run help = run("evolve --help");
  REQUIRE(help.status == 0);
  std::size_t lines = 0, options = 0;
  std::istringstream in(help.out);
  for (std::string line; std::getline(in, line);) {
    ++lines;
    CHECK(line.size() <= 100);
    if (line.rfind("  -", 0) == 0) ++options;
  }
  CHECK(lines <= 150);
  CHECK(options <= 45);
  for (const char* group : {"Problem:", "Search:", "Passes after the search:",
                            "Backend and workers:", "LLM:", "Output:"})
    CHECK_MESSAGE(help.out.find(group) != std::string::npos, group);
  CHECK(help.out.find("--skip-pass NAME") != std::string::npos);
  for (const std::string& pass : tv::pass_names())
    CHECK_MESSAGE(help.out.find("\n" + std::string(26, ' ') + pass + ": ") != std::string::npos,
                  pass);
  CHECK(help.out.find("Advanced:") == std::string::npos);
  CHECK(help.out.find("--help-all") != std::string::npos);
  // --help-all: every option, the advanced ones with their ranges and whole descriptions.
  const Run all = run("evolve --help-all");
  REQUIRE(all.status == 0);
  CHECK(all.out.find("Advanced:") != std::string::npos);
  for (const char* flag : {"--probe-margin FLOAT:from 0 to 1", "--worker-timeout", "--llm-retries",
                           "--no-wave-floors", "--sampled-sizes"})
    CHECK_MESSAGE(all.out.find(flag) != std::string::npos, flag);
  // A pass name --skip-pass does not know is refused with the names it knows.
  const Run bad = run("evolve --skip-pass leaf-polsh", true);
  CHECK(bad.status == 2);
  CHECK(bad.out.find("no pass is named 'leaf-polsh' (the passes: sampled-sizes,") !=
        std::string::npos);
}

TEST_CASE("cli: the default evolve answers in 40 lines of 100 columns, --explain gives the rest") {
  const Run brief = run("evolve");
  REQUIRE(brief.status == 0);
  std::size_t lines = 0, widest = 0;
  std::istringstream in(brief.out);
  for (std::string line; std::getline(in, line);) {
    ++lines;
    widest = std::max(widest, line.size());
  }
  CHECK(lines <= 40);
  CHECK(widest <= 100);
  // What ran, the table, the program, how it was chosen.
  for (const char* part : {"mi300x, analytic model, 88 shapes of lecture.csv", "decision tree",
                           "def choose(M, N, K):", "Chosen: ", "--explain"})
    CHECK_MESSAGE(brief.out.find(part) != std::string::npos, part);
  CHECK(brief.out.find("Its thresholds were moved") == std::string::npos); // the account's
  const Run full = run("evolve --explain");
  REQUIRE(full.status == 0);
  for (const char* part : {"Its thresholds were moved", "kernel runs (timed shape x config pairs)",
                           "operator", "Chosen: "})
    CHECK_MESSAGE(full.out.find(part) != std::string::npos, part);
}

} // namespace cli_test
