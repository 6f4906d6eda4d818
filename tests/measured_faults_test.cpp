// End to end: measured runs whose fake workers fault at random (every kind of fault mixed per
// request) end with the same best program and the same measurement file as the run without
// faults, on one, two and four devices; a poison config is found, recorded and never sent
// again, and a later run on the same file knows it; a run killed mid-way resumes to the same
// result; `measure` and `devices` survive.
#include "support/fake_worker.hpp"
#include "support/process.hpp"
#include "support/shell.hpp"
#include "support/temp_dir.hpp"
#include "support/text_match.hpp"

#include <doctest/doctest.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <fcntl.h>
#include <filesystem>
#include <future>
#include <map>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>
#include <utility>

// In a namespace of its own: the test files are compiled several to a unit (unity build).
namespace measured_faults_test {

namespace {

using tv::test::fake_worker_cmd;
using tv::test::ScratchDir;

tv::test::ShellResult tilevolve(const std::string& args) {
  return tv::test::run_shell(std::string(TILEVOLVE_BINARY) + " " + args + " 2>/dev/null");
}

std::string shell_word(const std::string& s) {
  std::string out = "'";
  for (char c : s)
    out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string device_list(int n) {
  std::string out;
  for (int d = 0; d < n; ++d)
    out += (d ? "," : "") + std::to_string(d);
  return out;
}

/// A short measured evolution on the lecture shapes (h100) with `devices` fake workers, each
/// given `timeout` seconds per request.
std::string measured(const std::string& cache, int devices, const std::string& worker_args,
                     const std::string& extra = "", const char* timeout = "1") {
  return "evolve --gpu h100 --budget 30 --seed 5 --quiet --json --backend measured --cache " +
         shell_word(cache) + " --devices " + device_list(devices) + " --worker-timeout " + timeout +
         " --worker-cmd " + shell_word(fake_worker_cmd(worker_args)) +
         (extra.empty() ? "" : " " + extra);
}

nlohmann::json json_of(const tv::test::ShellResult& r) {
  REQUIRE(r.status == 0);
  return nlohmann::json::parse(r.out);
}

/// The lines of a measurement file, sorted (records arrive in completion order).
std::vector<std::string> sorted_lines(const std::string& path) {
  std::istringstream in(tv::test::read_text(path));
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);)
    lines.push_back(line);
  std::sort(lines.begin(), lines.end());
  return lines;
}

void check_same_result(const nlohmann::json& want, const nlohmann::json& got) {
  CHECK(got["best"]["program"] == want["best"]["program"]);
  CHECK(got["train"] == want["train"]);
  CHECK(got["test"] == want["test"]);
  CHECK(got["counters"] == want["counters"]);
}

/// Runs on `devices` fake workers faulting at 1%, 5% and 10% of requests: each the same as the
/// run without faults (one clean run is the reference for the three). The four runs go at once:
/// they spend their time waiting on the timeouts of hung workers, not on the CPU (one device,
/// one after the other: 128 s of wall time for 30 s of CPU, sanitized build).
void check_fault_rates(int devices) {
  ScratchDir dir("tv_measured_faults");
  const std::vector<std::string> rates = {"0.01", "0.05", "0.1"};
  const auto cache_of = [&dir](const std::string& rate) {
    return dir.at(fmt::format("faults_{}.csv", rate));
  };
  auto clean_run = std::async(
      std::launch::async, [&] { return tilevolve(measured(dir.at("clean.csv"), devices, "")); });
  std::vector<std::future<tv::test::ShellResult>> fault_runs;
  for (const std::string& rate : rates)
    // 2 s per request: on a loaded machine (ctest -j4 under ASan) a healthy worker can take
    // over a second, and a timeout it did not earn could make a config look poisonous. Five
    // strikes, not the default three: at a 10% fault rate a healthy pair is struck three times
    // in a row by chance on some schedules (one CI-like run: 1 poison pair among 72 isolated
    // ones, on four devices), while five in a row is about 10^-6 per struck pair.
    fault_runs.push_back(std::async(std::launch::async, [&cache_of, devices, rate] {
      return tilevolve(measured(cache_of(rate), devices,
                                fmt::format("--fault-rate {} --fault-seed 11", rate),
                                "--poison-strikes 5", "2"));
    }));
  const auto clean = json_of(clean_run.get());
  const auto want = sorted_lines(dir.at("clean.csv"));
  REQUIRE(want.size() > 200);
  for (std::size_t k = 0; k < rates.size(); ++k) {
    INFO("devices " << devices << ", fault rate " << rates[k]);
    const auto r = json_of(fault_runs[k].get());
    check_same_result(clean, r);
    CHECK(sorted_lines(cache_of(rates[k])) == want);
    const auto& pool = r["measurement"]["pool"];
    INFO(pool.dump());
    CHECK(pool["poison"] == 0);
    CHECK(pool["errors"] == 0);
    CHECK(pool["retired"] == 0);
    CHECK(r["measurement"]["errors"] == 0);
    CHECK(pool["restarts"].get<long long>() >= 1); // the faults did happen
  }
}

} // namespace

TEST_CASE("measured_faults: 1%, 5% and 10% random worker faults on one device never change "
          "the run") {
  check_fault_rates(1);
}
TEST_CASE("measured_faults: 1%, 5% and 10% random worker faults on two devices never change "
          "the run") {
  check_fault_rates(2);
}
TEST_CASE("measured_faults: 1%, 5% and 10% random worker faults on four devices never change "
          "the run") {
  check_fault_rates(4);
}

TEST_CASE("measured_faults: a poison config is found, recorded as crash and never sent again") {
  ScratchDir dir("tv_measured_faults");
  const auto clean = json_of(tilevolve(measured(dir.at("clean.csv"), 2, "")));
  // The config measured most often that is not the expert's: the run is sure to send it.
  std::map<std::string, int> seen;
  for (const auto& line : sorted_lines(dir.at("clean.csv"))) {
    std::vector<std::string> f;
    std::stringstream ss(line);
    for (std::string x; std::getline(ss, x, ',');)
      f.push_back(x);
    if (f.size() < 19 || f[8] != "triton") continue;
    seen[fmt::format("{}x{}x{} w{} s{} g{}", f[9], f[10], f[11], f[12], f[13], f[14])]++;
  }
  std::string poison;
  int most = 0;
  for (const auto& [c, n] : seen)
    if (c != "128x128x64 w4 s3 g8" && c != "16x64x128 w4 s4 g1" && n > most) {
      poison = c;
      most = n;
    }
  REQUIRE(!poison.empty());
  INFO("poison config " << poison);
  const std::string cache = dir.at("poison.csv");
  const std::string args = "--poison-config " + shell_word(poison) + " --fault-rate 0.03";
  const std::string out = dir.at("run");
  const auto r = json_of(tilevolve(measured(cache, 2, args, "--out " + shell_word(out))));
  const auto& pool = r["measurement"]["pool"];
  CHECK(pool["poison"].get<long long>() >= 1);
  // The run's events end with what each device went through.
  const std::string events = tv::test::read_text(out + "/events.ndjson");
  const std::size_t last = events.rfind('\n', events.size() - 2);
  const auto devices = nlohmann::json::parse(events.substr(last + 1));
  CHECK(devices["event"] == "devices");
  CHECK(devices["pool"] == pool);
  REQUIRE(devices["devices"].size() == 2);
  CHECK(devices["devices"][0]["poison"].get<long long>() +
            devices["devices"][1]["poison"].get<long long>() ==
        pool["poison"].get<long long>());
  CHECK(devices["poison"].size() == pool["poison"].get<std::size_t>());
  CHECK(pool["retired"] == 0);
  CHECK(r["measurement"]["poison"].size() == pool["poison"].get<std::size_t>());
  const std::string text = tv::test::read_text(cache);
  CHECK(text.find(",crash,,,\"poison pair: it faulted alone on its worker ") != std::string::npos);
  // Its first shapes take every strike, on both devices: 3, or 4 and more when the first three
  // fell on one device (likelier under load); later ones are inferred from the config.
  CHECK(text.find(" times (devices 0, 1)") != std::string::npos);
  CHECK(text.find("Segmentation fault while compiling " + poison) != std::string::npos);
  // The same run again: every pair comes from the file, the poison ones too; none is sent.
  const auto again = json_of(tilevolve(measured(cache, 2, args)));
  CHECK(again["best"]["program"] == r["best"]["program"]);
  CHECK(again["measurement"]["measured"] == 0);
  CHECK(again["measurement"]["pool"]["crashes"] == 0);
  CHECK(again["measurement"]["pool"]["sent"] == 0);
  // Another split on the same file sends the config on shapes the first run did not: the
  // poison pairs on file count towards --poison-config-after, so every new one, the first
  // included, is poison after one fault alone (a pool that knew only its own would need three
  // for its first).
  // Only the poison config's own pairs: under load an innocent pair can time out alone (the
  // workers have 1 s) on both devices and be poison too, on another config.
  long long on_file = 0;
  for (const auto& d : r["measurement"]["poison"])
    on_file += d.get<std::string>().find(" with " + poison + ": ") != std::string::npos;
  REQUIRE(on_file >= 1);
  const auto other = json_of(
      tilevolve(measured(cache, 2, "--poison-config " + shell_word(poison),
                         "--split-seed 1 --poison-config-after " + std::to_string(on_file))));
  const auto& found = other["measurement"]["poison"];
  REQUIRE(found.size() >= 1);
  for (const auto& d : found) {
    INFO(d.get<std::string>());
    CHECK(d.get<std::string>().find("faulted alone on its worker once") != std::string::npos);
    CHECK(d.get<std::string>().find("and its config is a poison pair on ") != std::string::npos);
  }
}

TEST_CASE("measured_faults: a faulty run killed with SIGKILL resumes to the fault-free result") {
  ScratchDir dir("tv_measured_faults");
  const std::string common = "--checkpoint-every 8";
  const auto clean = json_of(tilevolve(measured(dir.at("clean.csv"), 2, "", common)));
  const std::string out = dir.at("run");
  const std::string cache = dir.at("run.csv");
  const std::string faults = "--fault-rate 0.05 --fault-seed 3 --slow-ms 1";
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    const int devnull = ::open("/dev/null", O_WRONLY);
    ::dup2(devnull, 1);
    ::dup2(devnull, 2);
    const std::string line = std::string(TILEVOLVE_BINARY) + " " +
                             measured(cache, 2, faults, common + " --out " + shell_word(out));
    ::execl("/bin/sh", "sh", "-c", ("exec " + line).c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  bool checkpointed = false;
  for (int i = 0; i < 800 && !checkpointed; ++i) {
    ::usleep(25000);
    const std::string cp = tv::test::read_text(out + "/checkpoint.json");
    checkpointed =
        cp.find("\"done\":8") != std::string::npos || cp.find("\"done\":16") != std::string::npos;
  }
  ::kill(pid, SIGKILL); // the controller; its workers see end of input and exit
  int st = 0;
  ::waitpid(pid, &st, 0);
  CHECK(checkpointed);
  const auto resumed = json_of(tilevolve("evolve --resume " + shell_word(out) + " --json --quiet"));
  check_same_result(clean, resumed);
  CHECK(resumed["resumed"] == true);
  CHECK(sorted_lines(cache) == sorted_lines(dir.at("clean.csv")));
}

TEST_CASE("measured_faults: a run stopped by SIGINT between two batches resumes to the result "
          "of the run never stopped") {
  ScratchDir dir("tv_measured_faults");
  const std::string common = "--checkpoint-every 8";
  const auto clean = json_of(tilevolve(
      measured(dir.at("clean.csv"), 2, "", common + " --out " + shell_word(dir.at("clean")))));
  const std::string out = dir.at("run");
  const std::string cache = dir.at("run.csv");
  const std::string line = std::string(TILEVOLVE_BINARY) + " " +
                           measured(cache, 2, "--slow-ms 5", common + " --out " + shell_word(out));
  tv::test::Process p({"/bin/sh", "-c", "exec " + line}, dir.at("log.txt"));
  // Signalled once the first batch is checkpointed: the search stops after the batch it is in.
  bool checkpointed = false;
  for (int i = 0; i < 2400 && !checkpointed && !p.exited(); ++i) {
    ::usleep(25000);
    checkpointed =
        tv::test::read_text(out + "/checkpoint.json").find("\"done\":8") != std::string::npos;
  }
  REQUIRE(checkpointed);
  const int status = p.stop(SIGINT, 120);
  const std::string said = p.output();
  INFO(said);
  CHECK(status == 128 + SIGINT);
  CHECK(said.find("stopped by SIGINT after ") != std::string::npos);
  CHECK(said.find("--resume " + out + " continues it") != std::string::npos);
  const auto cp = nlohmann::json::parse(tv::test::read_text(out + "/checkpoint.json"));
  CHECK(cp["state"]["done"].get<long long>() >= 8);
  CHECK(cp["state"]["done"].get<long long>() < 30);
  // What the workers measured before the stop is kept; the resumed run measures the rest.
  const auto resumed = json_of(tilevolve("evolve --resume " + shell_word(out) + " --json --quiet"));
  check_same_result(clean, resumed);
  CHECK(sorted_lines(cache) == sorted_lines(dir.at("clean.csv")));
  // Every view of the run as it ended (issue 65): per_shape.json comes from the final table,
  // not from the table as the run or its resume started, so the two runs write the same one.
  const std::string per_shape = tv::test::read_text(out + "/per_shape.json");
  const bool same_per_shape = per_shape == tv::test::read_text(dir.at("clean") + "/per_shape.json");
  CHECK(same_per_shape); // (not the texts: 60 KB each)
  const auto ps = nlohmann::json::parse(per_shape);
  for (const auto& m : ps["methods"]) {
    const std::string key = m["key"].get<std::string>();
    INFO(key);
    if (resumed["baselines"].contains(key))
      CHECK(m["label"] == resumed["baselines"][key]["label"]); // "over N measured configs"
  }
  for (const auto& s : ps["shapes"]) { // the best program is in the table on every shape
    INFO(s["shape"]);
    CHECK(s["times"]["best"].is_number());
  }
}

TEST_CASE("measured_faults: a second signal of the other kind ends a measured run within 2 s") {
  ScratchDir dir("tv_measured_faults");
  // The expert's times (and the baselines') first, so that the runs below start their search at
  // once; a budget of 0 leaves the configs the search tries unmeasured.
  const std::string cache = dir.at("cache.csv");
  const std::string common = " --gpu h100 --quiet --backend measured --noise-reps 0 --cache " +
                             shell_word(cache) + " --devices 0 --worker-cmd ";
  REQUIRE(tilevolve("evolve --budget 0" + common + shell_word(fake_worker_cmd())).status == 0);
  for (const std::pair<int, int>& signals :
       {std::pair{SIGINT, SIGTERM}, std::pair{SIGTERM, SIGINT}}) {
    // (Not a structured binding: clang 14's INFO cannot capture one.)
    const int first = signals.first, second = signals.second;
    INFO("first signal " << first << ", then " << second);
    const std::string out = dir.at(fmt::format("run{}", first));
    // The worker hangs at the search's first kernel run (and says so in `hung`): the batch
    // waits a minute for it, as a batch of real kernel runs can.
    const std::string hung = dir.at(fmt::format("hung{}", first));
    const std::string line =
        std::string(TILEVOLVE_BINARY) + " evolve --budget 1000" + common +
        shell_word(fake_worker_cmd("--hang-after 0 --once-file " + shell_word(hung))) +
        " --worker-timeout 60 --out " + shell_word(out);
    tv::test::Process p({"/bin/sh", "-c", "exec " + line}, dir.at("log.txt"));
    for (int i = 0; i < 2400 && !std::filesystem::exists(hung) && !p.exited(); ++i)
      ::usleep(25000);
    INFO(p.output());
    REQUIRE(std::filesystem::exists(hung));
    REQUIRE(std::filesystem::exists(out + "/config.json")); // the handlers are in place
    REQUIRE(::kill(p.pid(), first) == 0);
    REQUIRE(p.wait_for_output("stopping at the end of the search's current batch", 10));
    ::usleep(1000000);
    REQUIRE_FALSE(p.exited()); // the batch waits on its hung kernel run
    REQUIRE(::kill(p.pid(), second) == 0);
    const auto sent = std::chrono::steady_clock::now();
    while (!p.exited() && std::chrono::steady_clock::now() - sent < std::chrono::seconds(2))
      ::usleep(10000);
    CHECK(p.exited());
  }
}

TEST_CASE("measured_faults: measure and devices survive a worker faulting at random") {
  ScratchDir dir("tv_measured_faults");
  const std::string shapes = dir.write("s.csv", "name,M,N,K\na,1,4096,4096\nb,256,4096,4096\n"
                                                "c,4096,4096,4096\nd,64,1024,4096\n");
  const auto measure = [&](const std::string& cache, const std::string& args) {
    return json_of(tilevolve("measure --gpu h100 --shapes " + shell_word(shapes) +
                             " --configs sample:40 --vendor --json --devices 0,1 --cache " +
                             shell_word(cache) + " --worker-timeout 1 --worker-cmd " +
                             shell_word(fake_worker_cmd(args))));
  };
  const auto clean = measure(dir.at("clean.csv"), "");
  const auto faulty = measure(dir.at("faulty.csv"), "--fault-rate 0.1 --fault-seed 4");
  CHECK(faulty["results"] == clean["results"]);
  CHECK(faulty["statuses"] == clean["statuses"]);
  CHECK(faulty["vendor"] == clean["vendor"]);
  CHECK(sorted_lines(dir.at("faulty.csv")) == sorted_lines(dir.at("clean.csv")));
  CHECK(faulty["measurement"]["pool"]["restarts"].get<long long>() >= 1);
  const auto devices = tilevolve("devices --json --devices 0,1 --worker-timeout 1 --worker-cmd " +
                                 shell_word(fake_worker_cmd("--fault-rate 0.1 --fault-seed 4")));
  CHECK(devices.status == 0);
  CHECK(nlohmann::json::parse(devices.out)["healthy"] == 2);
}

TEST_CASE("measured_faults: a poison config in the expert is reported, and the run goes on") {
  ScratchDir dir("tv_measured_faults");
  const std::string cache = dir.at("m.csv");
  const std::string err = dir.at("err.txt");
  const auto r = tv::test::run_shell(std::string(TILEVOLVE_BINARY) + " " +
                                     measured(cache, 2, "--poison-config '128x128x64 w4 s3 g8'") +
                                     " 2>" + shell_word(err));
  REQUIRE(r.status == 0);
  const auto j = nlohmann::json::parse(r.out);
  const std::string text = tv::test::read_text(err);
  CHECK(text.find("the expert's config 128x128x64 w4 s3 g8 on") != std::string::npos);
  CHECK(text.find("is a poison pair (poison pair: it faulted alone on its worker ") !=
        std::string::npos);
  // The first shapes of the config take every strike: 3 or more, on both devices where both
  // have delivered a result, else on the one that has (the expert goes first on every shape, so
  // a device may have met nothing but poison pairs yet: its faults are no strikes). The later
  // ones may be inferred from the config (--poison-config-after), after one fault.
  CHECK(text.find(" times (device") != std::string::npos);
  CHECK(j["measurement"]["pool"]["poison"].get<long long>() >= 1);
  CHECK(j["train"]["valid"] == true);
  CHECK(tv::test::read_text(cache).find(",crash,") != std::string::npos);
}

namespace {

/// The events of a run directory's events.ndjson of kind `kind`.
std::vector<nlohmann::json> events_of(const std::string& dir, const std::string& kind) {
  std::istringstream in(tv::test::read_text(dir + "/events.ndjson"));
  std::vector<nlohmann::json> out;
  for (std::string line; std::getline(in, line);) {
    const auto e = nlohmann::json::parse(line);
    if (e.value("event", "") == kind) out.push_back(e);
  }
  return out;
}

} // namespace

TEST_CASE("measured_faults: --poison-strikes and --worker-max-faults reach the pool, and the "
          "events say what happened to each device") {
  ScratchDir dir("tv_measured_faults");
  const std::string out = dir.at("run");
  const std::string cache = dir.at("m.csv");
  // Device 1 crashes on every request: it retires after 3 faults in a row. Device 0 crashes on
  // one config, which is poison after 2 strikes (device 1 is retired: one device is left).
  const std::string args = "--crash-after 0 --fault-device 1 --poison-config '64x128x64 w4 s4 g8'";
  const auto r = json_of(tilevolve(measured(
      cache, 2, args,
      "--worker-max-faults 3 --poison-strikes 2 --poison-config-after 3 --worker-backoff 0.01 "
      "--out " +
          shell_word(out))));
  const auto& m = r["measurement"];
  INFO(m.dump());
  CHECK(m["devices"][1]["retired"] == true);
  CHECK(m["devices"][1]["faults"] == 3);
  CHECK(m["devices"][1]["fault_kinds"] == nlohmann::json{{"crash", 3}});
  CHECK(m["devices"][1]["error"].get<std::string>().find(
            "faulted 3 times in a row without a result") != std::string::npos);
  CHECK(m["devices"][0]["retired"] == false);
  CHECK(m["pool"]["poison"].get<long long>() >= 1);
  CHECK(tv::test::read_text(cache).find(
            ",crash,,,poison pair: it faulted alone on its worker 2 times (device 0);") !=
        std::string::npos);
  // The events: each fault of device 1, its retirement, each poison pair with its stderr.
  const auto retired = events_of(out, "device_retired");
  REQUIRE(retired.size() == 1);
  CHECK(retired[0]["device"] == "1");
  CHECK(retired[0]["reason"] == m["devices"][1]["error"]);
  std::vector<nlohmann::json> faults_1;
  for (const auto& e : events_of(out, "worker_fault"))
    if (e["device"] == "1") faults_1.push_back(e);
  REQUIRE(faults_1.size() == 3);
  CHECK(faults_1[0]["kind"] == "crash");
  CHECK(faults_1[0]["action"] == "restart");
  CHECK(faults_1[1]["action"] == "back-off");
  CHECK(faults_1[1]["backoff_s"] == 0.01);
  CHECK(faults_1[2]["action"] == "retire");
  const auto poison = events_of(out, "poison_pair");
  CHECK(poison.size() == m["pool"]["poison"].get<std::size_t>());
  REQUIRE(!poison.empty());
  CHECK(poison[0]["config"] == "64x128x64 w4 s4 g8");
  CHECK(poison[0]["strikes"] == 2);
  CHECK(poison[0]["stderr"].get<std::string>().find("Segmentation fault while compiling") !=
        std::string::npos);
  CHECK(events_of(out, "pair_retry").size() == m["pool"]["isolated"].get<std::size_t>());
  const auto devices = events_of(out, "devices");
  REQUIRE(devices.size() == 1);
  CHECK(devices[0]["events_dropped"] == 0);
  // The summary's lines say it per device, faults by kind.
  CHECK(tv::test::contains(tv::test::read_text(out + "/summary.txt"),
                           "0 measured, 3 faults (crash 3), 2 restarts, retired: faulted 3 times "
                           "in a row without a result"));
  // The run records its limits, for --resume.
  const auto settings = nlohmann::json::parse(tv::test::read_text(out + "/measured.json"));
  CHECK(settings["poison_strikes"] == 2);
  CHECK(settings["poison_config_after"] == 3);
  CHECK(settings["worker_max_faults"] == 3);
  CHECK(settings["worker_backoff"] == 0.01);
}

TEST_CASE("measured_faults: --worker-backoff and --worker-max-failed-starts reach the pool of "
          "devices and measure") {
  const std::string worker =
      " --worker-cmd " + shell_word(fake_worker_cmd("--exit-at-hello --fault-device 1"));
  const auto t0 = std::chrono::steady_clock::now();
  const auto slow = tilevolve("devices --json --devices 0,1 --worker-backoff 0.5" + worker);
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  CHECK(slow.status == 1); // device 1 is not healthy
  CHECK(took >= 0.5);      // its third start waited for the back-off
  const auto j = nlohmann::json::parse(slow.out);
  CHECK(j["devices"][1]["error"].get<std::string>().find("failed to start 3 times") !=
        std::string::npos);
  const auto two = nlohmann::json::parse(
      tilevolve("devices --json --devices 0,1 --worker-max-failed-starts 2" + worker).out);
  CHECK(two["devices"][1]["error"].get<std::string>().find("failed to start 2 times") !=
        std::string::npos);
  // measure gives out when its only device retires after --worker-max-faults faults.
  ScratchDir dir("tv_measured_faults");
  const std::string shapes = dir.write("s.csv", "name,M,N,K\na,1,4096,4096\n");
  const auto gave_out = tv::test::run_shell(
      std::string(TILEVOLVE_BINARY) + " measure --gpu h100 --shapes " + shell_word(shapes) +
      " --configs sample:4 --devices 0 --cache " + shell_word(dir.at("m.csv")) +
      " --worker-max-faults 3 --worker-backoff 0.01 --worker-cmd " +
      shell_word(fake_worker_cmd("--crash-after 0")) + " 2>&1");
  CHECK(gave_out.status == 4);
  CHECK(gave_out.out.find("faulted 3 times in a row without a result") != std::string::npos);
}

TEST_CASE("measured_faults: bad fault limits are refused with the flag and what it expects") {
  const auto refused = [](const std::string& args, const std::string& says) {
    const auto r = tv::test::run_shell(std::string(TILEVOLVE_BINARY) + " " + args + " 2>&1");
    INFO(args << " -> " << r.out);
    CHECK(r.status == 2);
    CHECK(r.out.find(says) != std::string::npos);
  };
  refused("evolve --backend measured --poison-strikes 0", "--poison-strikes");
  refused("evolve --backend measured --worker-max-faults -1", "--worker-max-faults");
  refused("evolve --backend measured --poison-config-after -1", "--poison-config-after");
  refused("measure --shapes x.csv --worker-backoff abc", "--worker-backoff");
  refused("devices --worker-max-failed-starts 0", "--worker-max-failed-starts");
  refused("devices --worker-backoff 20", "--worker-max-backoff (10 s) must not be below "
                                         "--worker-backoff (20 s)");
  refused("devices --poison-strikes 2", "--poison-strikes"); // devices measures nothing
  // --help-all tells what each does (--help keeps to the options most runs need).
  const auto help = tv::test::run_shell(std::string(TILEVOLVE_BINARY) + " evolve --help-all");
  for (const char* flag : {"--worker-backoff", "--worker-max-backoff", "--worker-max-failed-starts",
                           "--worker-max-faults", "--poison-strikes", "--poison-config-after"})
    CHECK_MESSAGE(help.out.find(flag) != std::string::npos, flag);
  CHECK(tv::test::contains(
      tv::test::squeezed(help.out),
      "faults a pair must cause alone on its worker before it is a poison pair"));
}

TEST_CASE("measured_faults: a run whose last device retires mid-run writes that retirement to "
          "its events before it stops") {
  ScratchDir dir("tv_measured_faults");
  // The first worker measures 150 pairs and crashes; every later one crashes at once.
  const std::string starts = dir.at("starts");
  const std::string worker = shell_word(TILEVOLVE_FAKE_WORKER) + " --device \"$1\"";
  const std::string script =
      dir.write("worker.sh", fmt::format("#!/bin/sh\nif [ -e {0} ]; then exec {1} --crash-after 0\n"
                                         "else touch {0}; exec {1} --crash-after 150; fi\n",
                                         shell_word(starts), worker));
  const std::string out = dir.at("run");
  const auto r = tv::test::run_shell(
      std::string(TILEVOLVE_BINARY) +
      " evolve --gpu h100 --budget 30 --seed 5 --quiet --json --backend measured --cache " +
      shell_word(dir.at("m.csv")) + " --devices 0 --worker-timeout 1 --worker-max-faults 3 " +
      "--worker-backoff 0.01 --out " + shell_word(out) + " --worker-cmd " +
      shell_word("sh " + shell_word(script) + " {device}") + " 2>&1");
  INFO(r.out);
  CHECK(r.status == 4);
  CHECK(tv::test::contains(r.out, "no worker is left to measure with"));
  const auto retired = events_of(out, "device_retired");
  REQUIRE(retired.size() == 1);
  CHECK(tv::test::contains(retired[0]["reason"].get<std::string>(),
                           "faulted 3 times in a row without a result"));
  CHECK(events_of(out, "worker_fault").size() >= 3);
  CHECK(events_of(out, "program").size() >= 1); // it stopped during the evolution
}

} // namespace measured_faults_test
