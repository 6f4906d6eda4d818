// Split studies on the dashboard: `tilevolve splits --out DIR` writes study.json beside its
// report (the object `splits --json` prints), and `tilevolve serve` lists and answers the
// studies under its runs directory over real HTTP on 127.0.0.1; broken, oversized and
// escaping study files are refused with their reason, never served as figures.
#include "ir/error.hpp"
#include "serve/study_index.hpp"
#include "support/http.hpp"
#include "support/process.hpp"
#include "support/serve_process.hpp"
#include "support/shell.hpp"
#include "support/temp_dir.hpp"

#include <doctest/doctest.h>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <nlohmann/json.hpp>

// In a namespace of its own: the test files are compiled several to a unit (unity build).
namespace serve_studies_test {

namespace fs = std::filesystem;
using json = nlohmann::json;
using tv::test::get_json;
using tv::test::http_request;

namespace {

/// The split study command of these tests (a few seconds on the analytic model).
const std::string kStudyArgs = "splits --gpu h100 --splits 2 --seeds 2 --budget 150";

/// base/runs/study (a real study), runs/run (an evolve run), runs/broken (study.json not JSON),
/// runs/not_a_study (a JSON object without splits), runs/big (study.json over the size limit,
/// sparse), runs/outside (a symlink to a study outside the root), and the study's --json output.
struct Studies {
  tv::test::ScratchDir scratch{"tilevolve_serve_studies_test"};
  fs::path base, runs;
  json printed; ///< what `splits --json` printed for the same study
  Studies() {
    base = scratch.path;
    runs = base / "runs";
    fs::create_directories(runs);
    const auto r =
        tv::test::run_shell(fmt::format("{} {} --json --out {} 2>/dev/null", TILEVOLVE_BINARY,
                                        kStudyArgs, (runs / "study").string()));
    REQUIRE(r.status == 0);
    printed = json::parse(r.out);
    const auto e = tv::test::run_shell(
        fmt::format("{} evolve --gpu h100 --budget 50 --quiet --out {} > /dev/null 2>&1",
                    TILEVOLVE_BINARY, (runs / "run").string()));
    REQUIRE(e.status == 0);
    fs::create_directories(runs / "broken");
    std::ofstream(runs / "broken" / "study.json") << "{\"splits\": [";
    fs::create_directories(runs / "not_a_study");
    std::ofstream(runs / "not_a_study" / "study.json") << "{\"splits\": 3}";
    fs::create_directories(runs / "big");
    {
      std::ofstream big(runs / "big" / "study.json");
      big << "{\"splits\": []}";
    }
    fs::resize_file(runs / "big" / "study.json", tv::kMaxStudyBytes + 1);
    fs::create_directories(base / "elsewhere");
    fs::copy_file(runs / "study" / "study.json", base / "elsewhere" / "study.json");
    fs::create_directory_symlink(base / "elsewhere", runs / "outside");
  }
};

const Studies& studies() {
  static const Studies s;
  return s;
}

/// `tilevolve serve DIR` on a free port.
struct Server : tv::test::ServeProcess {
  Server(const fs::path& dir, const fs::path& log) : ServeProcess(dir.string(), log.string()) {}
};

} // namespace

TEST_CASE("splits --out: study.json is the object --json prints, on the GPU the study ran on") {
  const Studies& s = studies();
  const json written = json::parse(tv::test::read_text((s.runs / "study" / "study.json").string()));
  CHECK(written == s.printed);
  CHECK(written["splits"].size() == 2);
  CHECK(written["gpu"] == "h100");
  CHECK(fs::exists(s.runs / "study" / "report.md"));
  // A replay study names the device of its file, not the default profile.
  const auto r = tv::test::run_shell(fmt::format(
      "{} splits --backend replay:{}/data/replay/a100_hf_mm.txt --splits 1 --seeds 1 --budget 20 "
      "--json 2>/dev/null",
      TILEVOLVE_BINARY, TILEVOLVE_SOURCE_DIR));
  REQUIRE(r.status == 0);
  CHECK(json::parse(r.out)["gpu"] == "a100");
  // The text report names both files.
  const auto text = tv::test::run_shell(
      fmt::format("{} splits --gpu h100 --splits 1 --seeds 1 --budget 20 --out {} 2>/dev/null",
                  TILEVOLVE_BINARY, (s.base / "text_study").string()));
  REQUIRE(text.status == 0);
  CHECK(text.out.find("its figures to " + (s.base / "text_study").string() + "/study.json") !=
        std::string::npos);
}

TEST_CASE("serve: the split studies are listed with their headline figures, or why not") {
  const Studies& s = studies();
  Server server(s.runs, s.base / "serve_list.log");
  const json list = get_json(server.port, "/api/studies");
  CHECK(list["root"] == fs::canonical(s.runs).string());
  // Not the run, not the symlink out; the broken ones with their reasons.
  REQUIRE(list["studies"].size() == 4);
  const json& big = list["studies"][0];
  const json& broken = list["studies"][1];
  const json& not_a_study = list["studies"][2];
  const json& study = list["studies"][3];
  CHECK(big["name"] == "big");
  CHECK(big["status"] == "unreadable");
  CHECK(big["error"].get<std::string>().find("more than the") != std::string::npos);
  CHECK(broken["name"] == "broken");
  CHECK(broken["error"].get<std::string>().find("not valid JSON") != std::string::npos);
  CHECK(not_a_study["error"].get<std::string>().find("not a split study") != std::string::npos);
  CHECK(study["name"] == "study");
  CHECK(study["status"] == "ok");
  CHECK(study["gpu"] == "h100");
  CHECK(study["splits"] == 2);
  CHECK(study["seeds"] == 2);
  CHECK(study["mean_test_gap_to_tree"] == s.printed["mean_test_gap_to_tree"]);
  CHECK(study["splits_at_least_tree"] == s.printed["splits_at_least_tree"]);
  CHECK(study["max_kernel_run_fraction"] == s.printed["max_kernel_run_fraction"]);
  // The runs list is unchanged by the studies beside it.
  const json runs = get_json(server.port, "/api/runs");
  REQUIRE(runs["runs"].size() == 1);
  CHECK(runs["runs"][0]["name"] == "run");
}

TEST_CASE("serve: one study's figures, its page and its files, and refusals with their reasons") {
  const Studies& s = studies();
  Server server(s.runs, s.base / "serve_one.log");
  CHECK(get_json(server.port, "/api/studies/study") == s.printed);
  CHECK(get_json(server.port, "/api/studies/nope", 404)["error"].get<std::string>().find(
            "no split study named 'nope'") != std::string::npos);
  CHECK(get_json(server.port, "/api/studies/broken", 422)["error"].get<std::string>().find(
            "not valid JSON") != std::string::npos);
  CHECK(get_json(server.port, "/api/studies/outside", 404).contains("error"));
  CHECK(get_json(server.port, "/api/studies/.hidden", 403).contains("error"));
  const auto page = http_request(server.port, "/study/study");
  CHECK(page.status == 200);
  CHECK(page.body.find("/assets/study.js") != std::string::npos);
  CHECK(http_request(server.port, "/study/run").status == 404); // a run is not a study
  CHECK(http_request(server.port, "/study/outside").status == 404);
  const auto report = http_request(server.port, "/files/study/report.md");
  CHECK(report.status == 200);
  CHECK(report.body.find("# tilevolve splits") == 0);
  CHECK(http_request(server.port, "/files/outside/study.json").status == 404);
  // The endpoint list names both.
  const json api = get_json(server.port, "/api");
  CHECK(api["endpoints"].size() == 6);
  CHECK(api["endpoints"][4]["path"] == "/api/studies");
}

TEST_CASE("serve: a runs directory that is itself a study lists it under its own name") {
  const Studies& s = studies();
  Server server(s.runs / "study", s.base / "serve_root.log");
  const json list = get_json(server.port, "/api/studies");
  REQUIRE(list["studies"].size() == 1);
  CHECK(list["studies"][0]["name"] == "study");
  CHECK(get_json(server.port, "/api/studies/study")["splits"].size() == 2);
  CHECK(get_json(server.port, "/api/runs")["runs"].empty());
}

TEST_CASE("study index: a changed file is read again, an unchanged one from memory") {
  tv::test::ScratchDir scratch("tilevolve_study_index_test");
  const fs::path d = fs::path(scratch.path) / "s";
  fs::create_directories(d);
  std::ofstream(d / "study.json") << R"({"splits": [{"split_seed": 0}], "gpu": "h100"})";
  tv::StudyIndex index(scratch.path);
  CHECK(index.names() == std::vector<std::string>{"s"});
  CHECK(index.study("s")["gpu"] == "h100");
  // Another size: read again.
  std::ofstream(d / "study.json") << R"({"splits": [], "gpu": "mi300x", "seeds": 3})";
  CHECK(index.study("s")["gpu"] == "mi300x");
  const json sum = index.summaries();
  REQUIRE(sum.size() == 1);
  CHECK(sum[0]["seeds"] == 3);
  CHECK(sum[0]["splits"] == 0);
  // Fields of another type than a study's are left out of the summary, not trusted.
  std::ofstream(d / "study.json") << R"({"splits": [], "gpu": 7, "seeds": "many", "x": 1})";
  const json odd = index.summaries();
  CHECK(odd[0]["status"] == "ok");
  CHECK(odd[0]["gpu"].is_null());
  CHECK(odd[0]["seeds"].is_null());
  CHECK(index.study("none").is_null());
  CHECK_THROWS_AS(tv::StudyIndex(fs::path(scratch.path) / "missing"), tv::InputError);
}

} // namespace serve_studies_test
