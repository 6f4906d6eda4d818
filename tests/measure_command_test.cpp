// End to end: `tilevolve devices` and `tilevolve measure` with fake workers.
#include "eval/measurement_cache.hpp"
#include "ir/program.hpp"
#include "ir/text.hpp"

#include "support/fake_worker.hpp"
#include "support/shell.hpp"
#include "support/temp_dir.hpp"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <set>

// In a namespace of its own: the test files are compiled several to a unit (unity build).
namespace measure_command_test {

namespace {

using tv::test::ScratchDir;

tv::test::ShellResult tilevolve(const std::string& args) {
  return tv::test::run_shell(std::string(TILEVOLVE_BINARY) + " " + args + " 2>&1");
}

std::string worker(const std::string& args = "") {
  return " --worker-cmd \"" + tv::test::fake_worker_cmd(args) + "\"";
}

} // namespace

TEST_CASE("devices: what each worker reports, and the ones that fail with their reason") {
  const auto ok = tilevolve("devices --devices 0,1" + worker());
  CHECK(ok.status == 0);
  CHECK(ok.out.find("2 of 2 healthy") != std::string::npos);
  CHECK(ok.out.find("NVIDIA H100 SXM5 80GB (fake)  fake     tilevolve-fake-worker 1") !=
        std::string::npos);
  // Without --devices: as many as the first worker reports.
  const auto all = tilevolve("devices --json" + worker("--devices 3"));
  REQUIRE(all.status == 0);
  const auto j = nlohmann::json::parse(all.out);
  CHECK(j["healthy"] == 3);
  CHECK(j["devices"][2]["id"] == "2");
  // One that exits at hello: exit status 1, the reason and its stderr.
  const auto bad = tilevolve("devices --devices 0,1" + worker("--exit-at-hello --fault-device 1"));
  CHECK(bad.status == 1);
  CHECK(bad.out.find("1 of 2 healthy") != std::string::npos);
  CHECK(bad.out.find("exited before answering hello") != std::string::npos);
  CHECK(bad.out.find("exiting at hello as asked") != std::string::npos);
  CHECK(tilevolve("devices --worker-timeout 0").status == 2);
}

TEST_CASE("measure: fills the cache for a shape set, then measures nothing twice") {
  ScratchDir dir("tv_measure");
  const std::string shapes = dir.write("s.csv", "name,M,N,K\na,1,4096,4096\nb,256,4096,4096\n");
  const std::string cache = dir.at("m.csv");
  const std::string cmd = "measure --gpu h100 --shapes " + shapes +
                          " --configs sample:12 --seed 4 " + "--vendor --cache " + cache +
                          " --devices 0,1" + worker();
  const auto first = tilevolve(cmd + " --json");
  REQUIRE(first.status == 0);
  const auto j = nlohmann::json::parse(first.out.substr(first.out.find('{')));
  const long long pairs = j["pairs"].get<long long>();
  CHECK(pairs + j["ruled_out_by_profile"].get<long long>() == 24);
  CHECK(j["measurement"]["measured"] == pairs + 2); // and the vendor library on both shapes
  CHECK(j["vendor"]["ok"] == 2);
  CHECK(j["results"].size() == std::size_t(pairs));
  CHECK(j["model"]["median_measured_over_model"].get<double>() ==
        doctest::Approx(1.0).epsilon(0.01)); // the fake's noise is 1%
  const auto file = tv::load_measurement_file(cache);
  CHECK(file.version == 2);
  CHECK(file.records.size() == std::size_t(pairs + 2));
  // Again: all from the cache.
  const auto second = tilevolve(cmd);
  REQUIRE(second.status == 0);
  CHECK(second.out.find("0 measured now (nothing new: cache hits only)") != std::string::npos);
  CHECK(tv::load_measurement_file(cache).records.size() == file.records.size());
  // The configs a program chooses.
  const std::string prog = dir.write("p.py", "def choose(M, N, K):\n"
                                             "    return Config(BM=64, BN=64, BK=64, warps=4, "
                                             "stages=3, group=8)\n");
  const auto p = tilevolve("measure --gpu h100 --shapes " + shapes + " --configs program:" + prog +
                           " --cache " + cache + " --devices 0 --json" + worker());
  REQUIRE(p.status == 0);
  CHECK(nlohmann::json::parse(p.out.substr(p.out.find('{')))["pairs"] == 2);
  // Bad input names what was wrong.
  const auto bad =
      tilevolve("measure --shapes " + shapes + " --configs some --cache " + cache + worker());
  CHECK(bad.status == 2);
  CHECK(bad.out.find("--configs must be all, sample:N or program:FILE") != std::string::npos);
  CHECK(tilevolve("measure --shapes " + shapes + " --configs sample:x" + worker()).status == 2);
}

TEST_CASE(
    "measure: a run stopped part way keeps every pair it measured, and a rerun does the rest") {
  ScratchDir dir("tv_measure_stop");
  const std::string shapes = dir.write("s.csv", "name,M,N,K\na,256,4096,4096\n");
  const std::string cache = dir.at("m.csv");
  const std::string cmd = std::string(TILEVOLVE_BINARY) + " measure --gpu h100 --shapes " + shapes +
                          " --configs sample:80 --seed 1 --cache " + cache + " --devices 0 --quiet";
  // Each pair takes the slow worker 40 ms; the run is stopped by SIGTERM (what `timeout` and a
  // batch system send) once five results are in the file. (A background job of a script
  // ignores SIGINT, so that one would not stop it.)
  const auto stopped = tv::test::run_shell(
      cmd + worker("--slow-ms 40") + " > /dev/null 2>&1 & pid=$!; i=0; " +
      "while [ $i -lt 600 ]; do n=$(grep -c '^h100,' " + cache + " 2>/dev/null); " +
      "[ \"${n:-0}\" -ge 5 ] && break; sleep 0.05; i=$((i+1)); done; " +
      "kill -TERM $pid; wait $pid; echo \"exit $?\"");
  CHECK(stopped.out.find("exit 0") == std::string::npos); // it did not run to the end
  const auto kept = tv::load_measurement_file(cache);     // every line whole
  CHECK(kept.records.size() >= 5);
  CHECK(kept.records.size() < 80);
  // The rerun takes those from the file and measures only the rest.
  const auto rest =
      tilevolve(cmd.substr(std::string(TILEVOLVE_BINARY).size() + 1) + " --json" + worker());
  REQUIRE(rest.status == 0);
  const auto j = nlohmann::json::parse(rest.out.substr(rest.out.find('{')));
  CHECK(j["measurement"]["from_cache"] == kept.records.size());
  CHECK(j["measurement"]["measured"].get<long long>() +
            j["measurement"]["from_cache"].get<long long>() ==
        j["pairs"].get<long long>());
  CHECK(tv::load_measurement_file(cache).records.size() == j["pairs"].get<std::size_t>());
}

TEST_CASE("measure, then evolve on its file read as a table (table:FILE)") {
  ScratchDir dir("tv_measure_table");
  const std::string shapes = dir.write("s.csv", "name,M,N,K\na,1,4096,4096\nb,16,8192,4096\n"
                                                "c,256,4096,4096\nd,2048,4096,4096\n"
                                                "e,512,14336,4096\nf,64,4096,14336\n");
  const std::string cache = dir.at("m.csv");
  REQUIRE(tilevolve("measure --gpu h100 --shapes " + shapes + " --configs sample:10 --seed 3 " +
                    "--cache " + cache + " --devices 0 --quiet" + worker())
              .status == 0);
  // An expert in the measured configs: the first one recorded.
  const auto file = tv::load_measurement_file(cache);
  REQUIRE(!file.records.empty());
  tv::Program expert;
  expert.default_config = file.records.front().config;
  const std::string expert_file = dir.write("expert.py", tv::print_program(expert));
  const std::string evolve = "evolve --gpu h100 --shapes " + shapes + " --expert " + expert_file +
                             " --budget 60 --seed 0 --quiet --json --backend ";
  // Replayed as a run, the configs the search proposes were never measured: refused, with
  // the spelling that reads the file as a table.
  const auto as_run = tilevolve(evolve + "replay:" + cache);
  CHECK(as_run.status == 2);
  CHECK(as_run.out.find("noise estimate failed") != std::string::npos);
  CHECK(as_run.out.find("--backend table:" + cache + " reads it as a table") != std::string::npos);
  // Read as a table: the search keeps to the measured configs and times nothing new.
  const auto as_table = tilevolve(evolve + "table:" + cache);
  REQUIRE(as_table.status == 0);
  const auto j = nlohmann::json::parse(as_table.out.substr(as_table.out.find('{')));
  CHECK(j["train"]["valid"] == true);
  CHECK(j["train"]["speedup_vs_expert"].get<double>() >= 1.0);
  // Every config the returned program names was measured (the search kept to the table).
  std::set<tv::Config> measured;
  for (const auto& r : file.records)
    measured.insert(r.config);
  const tv::Program best =
      tv::parse_program_or_throw(j["best"]["program"].get<std::string>(), "best");
  CHECK(measured.count(best.default_config) == 1);
  for (const auto& r : best.rules)
    CHECK_MESSAGE(measured.count(r.config) == 1, r.config.brief());
  CHECK(tv::load_measurement_file(cache).records.size() == file.records.size());
  // Without --expert the lecture's expert takes the nearest measured configs, and says so.
  const auto lecture = tilevolve("evolve --gpu h100 --shapes " + shapes +
                                 " --budget 60 --seed 0 --quiet --json --backend table:" + cache);
  REQUIRE(lecture.status == 0);
  const auto lj = nlohmann::json::parse(lecture.out.substr(lecture.out.find('{')));
  const std::string notes = lj["problem"]["notes"].dump();
  CHECK(notes.find("with each config the table lacks replaced by its nearest of the table's") !=
        std::string::npos);
  CHECK(notes.find("16x64x128 w4 s4 g1 -> ") != std::string::npos); // the decode rule's config
  // The same run again gives the same program.
  const auto again = tilevolve(evolve + "table:" + cache);
  REQUIRE(again.status == 0);
  CHECK(nlohmann::json::parse(again.out.substr(again.out.find('{')))["best"]["program"] ==
        j["best"]["program"]);
}

} // namespace measure_command_test
