// End to end: `tilevolve evolve --backend measured` with fake workers, as a user runs it: the
// run writes the cache, a replay of the cache repeats it exactly, a second run measures
// nothing, every worker fault leaves the result unchanged, and a killed run resumes.
#include "support/fake_worker.hpp"
#include "support/shell.hpp"
#include "support/temp_dir.hpp"

#include <doctest/doctest.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <csignal>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <sys/wait.h>
#include <unistd.h>

// In a namespace of its own: the test files are compiled several to a unit (unity build).
namespace measured_run_test {

namespace {

using tv::test::fake_worker_cmd;
using tv::test::ScratchDir;

/// Runs tilevolve with `args`; stderr is merged into the output when asked.
tv::test::ShellResult tilevolve(const std::string& args, bool merge_stderr = false) {
  return tv::test::run_shell(std::string(TILEVOLVE_BINARY) + " " + args +
                             (merge_stderr ? " 2>&1" : " 2>/dev/null"));
}

/// A shell word for `s` (single quotes).
std::string quoted(const std::string& s) {
  std::string out = "'";
  for (char c : s)
    out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

/// The measured evolve command line on the lecture shapes (h100), with `extra` options.
std::string measured(const std::string& cache, const std::string& worker_args,
                     const std::string& extra = "") {
  return "evolve --gpu h100 --budget 200 --seed 3 --quiet --json --backend measured --cache " +
         quoted(cache) + " --devices 0,1 --worker-cmd " + quoted(fake_worker_cmd(worker_args)) +
         (extra.empty() ? "" : " " + extra);
}

nlohmann::json json_of(const tv::test::ShellResult& r) {
  REQUIRE(r.status == 0);
  return nlohmann::json::parse(r.out);
}

/// The figures two runs must share: best program, scores, baselines' scores, counters.
void check_same_run(const nlohmann::json& a, const nlohmann::json& b) {
  CHECK(a["best"]["program"] == b["best"]["program"]);
  CHECK(a["train"] == b["train"]);
  CHECK(a["test"] == b["test"]);
  CHECK(a["counters"] == b["counters"]);
  for (const char* m : {"expert", "best_single", "per_m_table", "tree", "vendor", "oracle"}) {
    INFO(m);
    CHECK(a["baselines"][m]["train"] == b["baselines"][m]["train"]);
    CHECK(a["baselines"][m]["test"] == b["baselines"][m]["test"]);
  }
}

} // namespace

TEST_CASE("measured_run: the run writes its cache, replay repeats it, a second run measures "
          "nothing") {
  ScratchDir dir("tv_measured_run");
  const std::string cache = dir.at("m.csv");
  const auto first = json_of(tilevolve(measured(cache, "")));
  CHECK(first["problem"]["backend"].get<std::string>().rfind("measured: NVIDIA H100", 0) == 0);
  CHECK(first["measurement"]["measured"].get<long long>() > 500);
  CHECK(first["measurement"]["errors"] == 0);
  CHECK(first["noise"]["valid"] == true);
  CHECK(first["noise"]["threshold"].get<double>() > 0);
  CHECK(first["noise"]["confirm_samples"] == 1);
  CHECK(first["train"]["speedup_vs_expert"].get<double>() > 1.05);
  CHECK(first["test"]["valid"] == true);
  CHECK(first["baselines"]["oracle"]["label"].get<std::string>().find("measured configs") !=
        std::string::npos);
  CHECK(first["baselines"]["vendor"]["label"] ==
        "vendor library (torch.matmul on NVIDIA H100 SXM5 80GB (fake), measured)");

  // Replay of the cache: the same decisions, so the same program and every same figure.
  const auto replay = json_of(tilevolve(
      "evolve --gpu h100 --budget 200 --seed 3 --quiet --json --backend replay:" + quoted(cache)));
  check_same_run(first, replay);
  CHECK(replay["noise"]["threshold"] == first["noise"]["threshold"]);

  // A second identical run measures nothing new, and says so.
  const auto second = json_of(tilevolve(measured(cache, "")));
  check_same_run(first, second);
  CHECK(second["measurement"]["measured"] == 0);
  // Everything it asks for comes from the cache; it may ask for less, since its table starts
  // with every config the cache holds and the cascade times only what the table lacks.
  CHECK(second["measurement"]["from_cache"] == second["measurement"]["requested"]);
  CHECK(second["measurement"]["requested"] <= first["measurement"]["requested"]);
  CHECK(second["measurement"]["requested"].get<long long>() > 500);
  const auto text =
      tilevolve(measured(cache, "").substr(0, measured(cache, "").find(" --json")) + " --explain" +
                measured(cache, "").substr(measured(cache, "").find(" --json") + 7));
  REQUIRE(text.status == 0);
  CHECK(text.out.find("measured now (nothing new: cache hits only)") != std::string::npos);
  CHECK(text.out.find("Noise: 5 runs of") != std::string::npos);
}

TEST_CASE("measured_run: every worker fault leaves the run's result unchanged and is counted") {
  ScratchDir dir("tv_measured_run");
  const auto healthy = json_of(tilevolve(measured(dir.at("healthy.csv"), "")));
  struct Fault {
    const char* name;
    const char* args;
    const char* counter;
  };
  for (const Fault& f :
       {Fault{"crash", "--crash-after 40", "crashes"}, Fault{"hang", "--hang-after 40", "timeouts"},
        Fault{"garbage", "--garbage-after 40", "garbage_lines"},
        Fault{"unknown id", "--unknown-id-after 40", "unknown_ids"},
        Fault{"lie", "--lie-after 40", "bad_replies"},
        Fault{"out of order", "--out-of-order", nullptr}}) {
    INFO(f.name);
    const std::string cache = dir.at(std::string(f.name) + ".csv");
    const std::string once = dir.at(std::string(f.name) + ".once");
    const std::string args =
        std::string(f.args) + (f.counter ? " --fault-device 1 --once-file " + quoted(once) : "");
    const auto r = json_of(tilevolve(measured(cache, args, "--worker-timeout 1")));
    check_same_run(healthy, r);
    const auto& pool = r["measurement"]["pool"];
    if (f.counter) {
      CHECK(pool[f.counter] == 1);
      CHECK(pool["restarts"] == 1);
      CHECK(pool["requeued"].get<long long>() >= 1);
    } else {
      CHECK(pool["restarts"] == 0);
    }
    CHECK(pool["errors"] == 0);
    CHECK(r["measurement"]["measured"] == healthy["measurement"]["measured"]);
  }
}

TEST_CASE("measured_run: workers that cannot start end the run with their reasons") {
  ScratchDir dir("tv_measured_run");
  const auto r = tilevolve(measured(dir.at("m.csv"), "--hello-error 'torch not importable'"), true);
  CHECK(r.status == 2);
  CHECK(r.out.find("tilevolve: error: no worker started") != std::string::npos);
  CHECK(r.out.find("the worker cannot run: torch not importable") != std::string::npos);
  const auto v1 = dir.write("v1.csv", "# tilevolve-measurements v1\ngpu,M,N,K,dtype,BM,BN,BK,warps,"
                                      "stages,group,waves_per_eu,matrix_instr_nonkdim,kpack,"
                                      "status,seconds,detail\n");
  const auto bad = tilevolve(measured(v1, ""), true);
  CHECK(bad.status == 2);
  CHECK(bad.out.find("a version-1 measurement file") != std::string::npos);
}

TEST_CASE("measured_run: analytic probes, and a full table measured first") {
  ScratchDir dir("tv_measured_run");
  const auto probes = json_of(tilevolve(
      measured(dir.at("a.csv"), "", "--probe-backend analytic --out " + quoted(dir.at("run_a")))));
  const auto plain =
      json_of(tilevolve(measured(dir.at("b.csv"), "", "--out " + quoted(dir.at("run_b")))));
  // The probe stage costs no kernel runs on the model: a child the probes reject was never
  // timed on the device, while measured probes time each rejected child on the probe shapes.
  const auto rejected_runs = [](const std::string& run) {
    long long rejected = 0, runs = 0;
    std::ifstream in(run + "/events.ndjson");
    for (std::string line; std::getline(in, line);) {
      const auto e = nlohmann::json::parse(line);
      if (e.value("event", "") == "program" && e.value("stage", "") == "probe_reject") {
        ++rejected;
        runs += e["kernel_runs"].get<long long>();
      }
    }
    return std::make_pair(rejected, runs);
  };
  const auto [a_rejected, a_runs] = rejected_runs(dir.at("run_a"));
  const auto [b_rejected, b_runs] = rejected_runs(dir.at("run_b"));
  CHECK(a_rejected > 0);
  CHECK(a_runs == 0);
  CHECK(b_rejected > 0);
  CHECK(b_runs > 0);
  CHECK(probes["counters"]["probe_reject"] == a_rejected);
  CHECK(tilevolve("evolve --probe-backend fast").status == 2);

  const std::string shapes = dir.write("s.csv", "name,M,N,K\na,1,4096,4096\nb,256,4096,4096\n"
                                                "c,4096,4096,4096\nd,64,1024,4096\n");
  const auto full = tilevolve(
      measured(dir.at("full.csv"), "", "--shapes " + shapes + " --split none --full-baselines"),
      true);
  REQUIRE(full.status == 0);
  CHECK(full.out.find("measuring the full table first:") != std::string::npos);
  const auto j = nlohmann::json::parse(full.out.substr(full.out.find("{\n")));
  CHECK(j["problem"]["configs"].get<long long>() > 3000); // the whole h100 space
  CHECK(j["baselines"]["oracle"]["label"].get<std::string>().find(
            fmt::format("over {} measured configs", j["problem"]["configs"].get<long long>())) !=
        std::string::npos);
}

TEST_CASE("measured_run: a measured run killed with SIGKILL resumes to the same result") {
  ScratchDir dir("tv_measured_run");
  const std::string common = "--checkpoint-every 16";
  const auto ref = json_of(tilevolve(measured(dir.at("ref.csv"), "", common)));
  const std::string out = dir.at("run");
  const std::string cache = dir.at("run.csv");
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    const int devnull = ::open("/dev/null", O_WRONLY);
    ::dup2(devnull, 1);
    ::dup2(devnull, 2);
    const std::string line = std::string(TILEVOLVE_BINARY) + " " +
                             measured(cache, "--slow-ms 1", common + " --out " + quoted(out));
    ::execl("/bin/sh", "sh", "-c", ("exec " + line).c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  // Kill once a checkpoint after the seed exists (the run is well under way).
  for (int i = 0; i < 400; ++i) {
    ::usleep(25000);
    const std::string cp = tv::test::read_text(out + "/checkpoint.json");
    if (cp.find("\"done\":16") != std::string::npos || cp.find("\"done\":32") != std::string::npos)
      break;
  }
  ::kill(pid, SIGKILL);
  int st = 0;
  ::waitpid(pid, &st, 0);
  const std::size_t lines_before = tv::test::read_text(cache).size();
  // Resume on other "machines" (one device instead of two): allowed, and the same result.
  const auto resumed =
      json_of(tilevolve("evolve --resume " + quoted(out) + " --json --quiet --devices 0"));
  check_same_run(ref, resumed);
  CHECK(resumed["resumed"] == true);
  CHECK(resumed["measurement"]["cache"]["records_at_start"].get<long long>() > 0);
  CHECK(tv::test::read_text(cache).size() >= lines_before);
  // Results may not change on resume: other options are refused.
  CHECK(tilevolve("evolve --resume " + quoted(out) + " --noise-reps 3").status == 2);
}

} // namespace measured_run_test
