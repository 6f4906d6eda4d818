// The dashboard's model of a run directory, on directories the real binary wrote: its
// counters agree with the run's own summary, old directories still read, a run in progress is
// followed (also through a resume's truncation), and bad files are counted, never fatal.
#include "evolve/evolution.hpp"
#include "serve/run_view.hpp"
#include "support/shell.hpp"
#include "support/temp_dir.hpp"

#include <doctest/doctest.h>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

// In a namespace of its own: the test files are compiled several to a unit (unity build).
namespace run_view_test {

using namespace tv;
namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

/// `name` in `scratch`, not created yet.
fs::path temp_dir(const test::ScratchDir& scratch, const std::string& name) {
  return scratch.at(name);
}

/// A finished run of `budget` programs (h100 lecture problem), written once per process and
/// removed when it ends.
const fs::path& finished_run() {
  static const test::ScratchDir scratch("tilevolve_run_view_test");
  static const fs::path dir = [] {
    const fs::path d = temp_dir(scratch, "finished");
    const auto r = tv::test::run_shell(std::string(TILEVOLVE_BINARY) +
                                       " evolve --gpu h100 --budget 400 --quiet --out " +
                                       d.string() + " > /dev/null 2>&1");
    REQUIRE(r.status == 0);
    return d;
  }();
  return dir;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);)
    out.push_back(l);
  return out;
}

void write_lines(const fs::path& p, const std::vector<std::string>& lines, std::size_t from,
                 std::size_t to) {
  std::ofstream out(p, from == 0 ? std::ios::trunc : std::ios::app);
  for (std::size_t i = from; i < to; ++i)
    out << lines[i] << "\n";
}

} // namespace

TEST_CASE("run view: the kernel runs of leaf exploration and guard validation are counted") {
  // On the measured H200 table the search stops well before its 30% cap and exploration spends
  // the rest: the view's count is the summary's only with the steps after the search in it.
  const test::ScratchDir scratch("tilevolve_run_view_steps");
  const fs::path d = temp_dir(scratch, "table");
  const auto r =
      tv::test::run_shell(std::string(TILEVOLVE_BINARY) +
                          " evolve --backend table:" TILEVOLVE_SOURCE_DIR
                          "/data/replay/h200_triton.csv --gpu h200 --shapes " TILEVOLVE_SOURCE_DIR
                          "/data/shapes/lecture.csv --budget 200 --quiet --out " +
                          d.string() + " > /dev/null 2>&1");
  REQUIRE(r.status == 0);
  const json summary = json::parse(tv::test::read_text((d / "summary.json").string()));
  long long explored = 0;
  for (const json& pass : summary["passes"])
    if (pass["name"] == "leaf-exploration") explored = pass["kernel_runs"];
  CHECK(explored > 0);
  const std::string events = tv::test::read_text((d / "events.ndjson").string());
  CHECK(events.find("\"event\":\"pass\"") != std::string::npos);
  RunView v(d, "table");
  v.update();
  CHECK(v.state()["counters"]["kernel_runs"] == summary["counters"]["kernel_runs"]);
}

TEST_CASE("run view: a finished run's counters, operators and best agree with its summary") {
  const fs::path dir = finished_run();
  const json summary = json::parse(tv::test::read_text((dir / "summary.json").string()));
  RunView v(dir, "finished");
  v.update();
  const json s = v.state();
  CHECK(s["status"] == "finished");
  CHECK(s["programs"] == summary["programs"]);
  CHECK(s["end"]["stop"] == "budget");
  const json& c = s["counters"];
  const json& sc = summary["counters"];
  for (const char* k : {"proposed", "improved", "new_best", "kernel_runs", "cache_hits"}) {
    INFO(k);
    CHECK(c[k] == sc[k]);
  }
  for (const char* k : {"noop", "static_reject", "probe_reject", "full"}) {
    INFO(k);
    CHECK(c["stages"].value(k, 0) == sc[k].get<long long>());
  }
  CHECK(c["exhaustive_train_runs"] == summary["exhaustive_train_runs"]);
  long long reasons = 0;
  for (const auto& [k, n] : c["static_reasons"].items())
    reasons += n.get<long long>();
  CHECK(reasons == sc["static_reject"].get<long long>());
  // Per operator, as the run counted them.
  // The seed is not an operator of the mutator: the view leaves it out. (The passes after the
  // search are not among the operators at all; the view counts their kernel runs from their
  // own events, above.)
  CHECK_FALSE(summary["per_operator"].contains("polish"));
  std::size_t steps = 0;
  for (const auto& [op, counts] : summary["per_operator"].items())
    steps += tv::is_run_step(op);
  CHECK(steps >= 1);
  REQUIRE(s["operators"].size() + steps == summary["per_operator"].size());
  for (const json& o : s["operators"]) {
    const json& so = summary["per_operator"][o["op"].get<std::string>()];
    INFO(o["op"]);
    CHECK(o["proposed"] == so["proposed"]);
    CHECK(o["full"] == so["full"]);
    CHECK(o["improved"] == so["improved"]);
    CHECK(o["new_best"] == so["new_best"]);
    CHECK(o["kernel_runs"] == so["kernel_runs"]);
  }
  // The improvement timeline is the run's, and each point has its held-out figures.
  const json& imp = s["improvements"];
  REQUIRE(imp.size() == summary["improvements"].size());
  for (std::size_t i = 0; i < imp.size(); ++i) {
    CHECK(imp[i]["n"] == summary["improvements"][i]["program"]);
    CHECK(imp[i]["id"] == summary["improvements"][i]["id"]);
    CHECK(imp[i]["train"].get<double>() == summary["improvements"][i]["score"].get<double>());
    CHECK(imp[i]["test"].is_number());
    CHECK(imp[i]["train_of_oracle"].is_number());
  }
  CHECK(imp[0]["test"] == 1.0);
  // The best: its text, the simplification the run wrote, its figures on both halves.
  const json& b = s["best"];
  CHECK(b["id"] == summary["best"]["id"]);
  CHECK(b["program"] == tv::test::read_text((dir / "best.py").string()));
  CHECK(b["simplified"] == tv::test::read_text((dir / "best_simplified.py").string()));
  // Placed thresholds make the result another program than the last new best: the end's
  // result event carries it.
  CHECK(b["source"] ==
        (summary["best"]["placed_thresholds"].empty() ? "new_best event" : "result event"));
  CHECK(b["train"].get<double>() ==
        doctest::Approx(summary["train"]["speedup_vs_expert"].get<double>()));
  CHECK(b["test"].get<double>() ==
        doctest::Approx(summary["test"]["speedup_vs_expert"].get<double>()));
  CHECK(b["test_of_oracle"].get<double>() ==
        doctest::Approx(summary["test"]["fraction_of_oracle"].get<double>()));
  // The diff from the expert rebuilds both texts.
  std::string before, after;
  for (const json& l : b["diff"]) {
    if (l["kind"] != "+") before += l["text"].get<std::string>() + "\n";
    if (l["kind"] != "-") after += l["text"].get<std::string>() + "\n";
  }
  CHECK(before == s["expert"]);
  CHECK(after == b["program"]);
  // Lineage: a chain from the seed to the best, in the order the programs were made.
  const json& lin = s["lineage"];
  REQUIRE(lin.size() >= 2);
  CHECK(lin.front()["op"] == "seed");
  CHECK(lin.back()["id"] == b["id"]);
  for (std::size_t i = 1; i < lin.size(); ++i)
    CHECK(lin[i]["n"].get<long long>() > lin[i - 1]["n"].get<long long>());
}

TEST_CASE("run view: a run stopped by its kernel-run budget shows the cap and the stop") {
  const test::ScratchDir scratch("tilevolve_run_view_test");
  const fs::path d = temp_dir(scratch, "capped");
  const auto r = tv::test::run_shell(std::string(TILEVOLVE_BINARY) +
                                     " evolve --gpu h100 --budget 400 --max-kernel-runs 290 "
                                     "--quiet --out " +
                                     d.string() + " > /dev/null 2>&1");
  REQUIRE(r.status == 0);
  RunView v(d, "capped");
  v.update();
  const json s = v.state();
  CHECK(s["status"] == "finished");
  CHECK(s["end"]["stop"] == "kernel-run budget");
  CHECK(s["config"]["options"]["max_kernel_runs"] == 290);
  CHECK_FALSE(s["config"]["options"].contains("max_kernel_share"));
  CHECK(s["counters"]["kernel_runs"].get<long long>() <= 290); // never past the cap
  CHECK(s["counters"]["stages"]["over_budget"] == 1);          // the program it stopped at
}

TEST_CASE("run view: per-shape speedups of the best and the baselines come from per_shape.json") {
  RunView v(finished_run(), "finished");
  v.update();
  const json& ps = v.per_shape();
  REQUIRE(ps.is_object());
  REQUIRE_FALSE(ps.contains("error"));
  CHECK(ps["best_id"] == v.state()["best"]["id"]);
  REQUIRE(ps["shapes"].size() == 88);
  int train = 0, test = 0;
  for (const json& r : ps["shapes"]) {
    train += r["split"] == "train";
    test += r["split"] == "test";
    const json& sp = r["speedup"];
    CHECK(sp["expert"].get<double>() == doctest::Approx(1.0));
    // The oracle is the fastest legal config: no method beats it on any shape.
    for (const char* k : {"best", "best_single", "per_m_table", "tree"})
      CHECK(sp[k].get<double>() <= sp["oracle"].get<double>() * (1 + 1e-12));
    CHECK(r["configs"]["best"].is_string());
    CHECK(r["configs"]["tree"].is_string());
  }
  CHECK(train == 44);
  CHECK(test == 44);
  bool has_best = false;
  for (const json& m : ps["methods"])
    if (m["key"] == "best") {
      has_best = true;
      CHECK(m["test"]["fraction_of_oracle"].get<double>() ==
            doctest::Approx(v.state()["best"]["test_of_oracle"].get<double>()));
    }
  CHECK(has_best);
}

TEST_CASE("run view: the index row holds the best program against the decision tree") {
  const fs::path dir = finished_run();
  const json summary = json::parse(tv::test::read_text((dir / "summary.json").string()));
  RunView v(dir, "finished");
  v.update();
  const json row = v.summary();
  REQUIRE(row["vs_tree"].is_object());
  // The text summary's own comparison on the held-out shapes, and the training figures.
  CHECK(row["vs_tree"]["test"].get<double>() ==
        doctest::Approx(summary["test_vs_tree"]["gap_points"].get<double>()));
  CHECK(row["vs_tree"]["train"].get<double>() ==
        doctest::Approx(
            100 * (summary["train"]["fraction_of_oracle"].get<double>() -
                   summary["baselines"]["tree"]["train"]["fraction_of_oracle"].get<double>())));
  // A per_shape.json without a tree (written before the tree was a method): no comparison.
  const test::ScratchDir scratch("tilevolve_run_view_no_tree");
  const fs::path old = temp_dir(scratch, "old");
  fs::create_directories(old);
  for (const char* f : {"events.ndjson", "config.json", "best.py"})
    fs::copy_file(dir / f, old / f);
  json ps = json::parse(tv::test::read_text((dir / "per_shape.json").string()));
  json methods = json::array();
  for (const json& m : ps["methods"])
    if (m["key"] != "tree") methods.push_back(m);
  ps["methods"] = methods;
  std::ofstream(old / "per_shape.json") << ps.dump();
  RunView o(old, "old");
  o.update();
  CHECK(o.summary()["vs_tree"].is_null());
  CHECK(o.summary()["best"]["id"] == row["best"]["id"]);
}

TEST_CASE("run view: a run directory written before the dashboard still shows") {
  const test::ScratchDir scratch("tilevolve_run_view_test");
  const fs::path dir = temp_dir(scratch, "old");
  fs::copy(finished_run(), dir);
  fs::remove(dir / "per_shape.json");
  // Old new_best events had only n, id, score and op, and no run wrote a result event: an old
  // run returned its last new best, the program of best.py and the end event's best_id.
  std::string events;
  json last_best;
  for (const std::string& l : lines_of(tv::test::read_text((dir / "events.ndjson").string()))) {
    json e = json::parse(l);
    if (e["event"] == "result") continue;
    if (e["event"] == "new_best") {
      last_best = e;
      for (const char* k : {"program", "test", "train_of_oracle", "test_of_oracle"})
        e.erase(k);
    }
    if (e["event"] == "end") e["best_id"] = last_best["id"];
    events += e.dump() + "\n";
  }
  std::ofstream(dir / "best.py", std::ios::trunc) << last_best["program"].get<std::string>();
  std::ofstream(dir / "events.ndjson", std::ios::trunc) << events;
  RunView v(dir, "old");
  v.update();
  const json s = v.state();
  CHECK(s["best"]["source"] == "best.py");
  CHECK(s["best"]["program"] == tv::test::read_text((dir / "best.py").string()));
  CHECK(s["best"]["test"].is_null());
  CHECK(s["improvements"].back()["test"].is_null());
  CHECK(v.per_shape().is_null());
  CHECK(s["counters"]["exhaustive_train_runs"].is_null());
}

TEST_CASE("run view: a run in progress is followed, and a resume's truncation starts it over") {
  const test::ScratchDir scratch("tilevolve_run_view_test");
  const fs::path dir = temp_dir(scratch, "live");
  fs::create_directories(dir);
  fs::copy_file(finished_run() / "config.json", dir / "config.json");
  const auto lines = lines_of(tv::test::read_text((finished_run() / "events.ndjson").string()));
  REQUIRE(lines.size() > 100);
  const std::size_t half = lines.size() / 2;
  write_lines(dir / "events.ndjson", lines, 0, half);
  RunView v(dir, "live");
  v.update();
  json s = v.state();
  CHECK(s["status"] == "running"); // just written
  CHECK(s["end"].is_null());
  const long long at_half = s["programs"];
  CHECK(at_half > 0);
  CHECK(at_half < 400);
  CHECK(s["best"]["program"].is_string());
  // The lines that follow arrive.
  write_lines(dir / "events.ndjson", lines, half, lines.size());
  v.update();
  s = v.state();
  CHECK(s["status"] == "finished");
  CHECK(s["programs"] == 400);
  // A resume truncates the stream to its last checkpoint and appends from there.
  write_lines(dir / "events.ndjson", lines, 0, half / 2);
  v.update();
  s = v.state();
  CHECK(s["status"] != "finished");
  CHECK(s["programs"].get<long long>() < at_half);
  RunView fresh(dir, "live");
  fresh.update();
  CHECK(fresh.state()["counters"] == s["counters"]);
}

TEST_CASE("run view: an interrupted run says so until a resume truncates the event away") {
  const test::ScratchDir scratch("tilevolve_run_view_test");
  const fs::path dir = temp_dir(scratch, "interrupted");
  fs::create_directories(dir);
  fs::copy_file(finished_run() / "config.json", dir / "config.json");
  const auto lines = lines_of(tv::test::read_text((finished_run() / "events.ndjson").string()));
  const std::size_t half = lines.size() / 2;
  write_lines(dir / "events.ndjson", lines, 0, half);
  RunView v(dir, "interrupted");
  v.update();
  CHECK(v.state()["status"] == "running");
  std::ofstream(dir / "events.ndjson", std::ios::app)
      << R"({"event":"interrupted","programs":7,"best_train":1.5})"
      << "\n";
  v.update();
  CHECK(v.state()["status"] == "interrupted");
  CHECK(v.state()["end"].is_null());
  // --resume truncates the stream to the checkpoint (before the event) and goes on.
  write_lines(dir / "events.ndjson", lines, 0, half);
  v.update();
  CHECK(v.state()["status"] == "running");
}

TEST_CASE("run view: run files that are symlinks to outside the run directory are not read") {
  const test::ScratchDir scratch("tilevolve_run_view_test");
  const fs::path dir = temp_dir(scratch, "linked");
  const fs::path outside = temp_dir(scratch, "outside");
  fs::create_directories(dir);
  fs::copy(finished_run(), outside);
  for (const char* f : {"events.ndjson", "config.json", "per_shape.json", "best.py"})
    fs::create_symlink(outside / f, dir / f);
  RunView v(dir, "linked");
  v.update();
  const json s = v.state();
  CHECK(s["programs"] == 0);
  CHECK(s["events"]["lines"] == 0);
  CHECK(s["events"]["problem"] == "events.ndjson points outside the run directory: not read");
  CHECK(s["config_problem"] == "config.json points outside the run directory: not read");
  CHECK(s["expert"] == "");
  CHECK(v.per_shape()["error"] == "per_shape.json points outside the run directory: not read");
  // A symlink that stays inside the run directory is followed.
  fs::remove(dir / "events.ndjson");
  fs::copy_file(outside / "events.ndjson", dir / "events.real");
  fs::create_symlink(dir / "events.real", dir / "events.ndjson");
  v.update();
  CHECK(v.state()["programs"] == 400);
}

TEST_CASE("run view: bad lines, mistyped fields and unknown events are counted, not fatal") {
  const test::ScratchDir scratch("tilevolve_run_view_test");
  const fs::path dir = temp_dir(scratch, "bad");
  fs::create_directories(dir);
  std::ofstream(dir / "config.json") << "{ not json";
  std::ofstream(dir / "per_shape.json") << "[1, 2, 3]";
  std::ofstream(dir / "events.ndjson")
      << "{\"event\":\"start\",\"budget\":10}\n"
      << "garbage\n"
      << "{\"event\":\"program\",\"n\":0,\"id\":1,\"parent\":0,\"op\":\"seed\",\"stage\":\"full\","
         "\"train\":1.0,\"kernel_runs\":44}\n"
      << "{\"event\":\"program\",\"n\":\"one\",\"id\":2,\"op\":\"x\",\"stage\":\"full\"}\n"
      << "{\"event\":\"program\",\"n\":1,\"id\":3,\"parent\":1,\"op\":\"tweak\","
         "\"stage\":\"made-up\",\"kernel_runs\":-5}\n"
      << "{\"event\":\"program\",\"n\":2,\"id\":4,\"parent\":1,\"op\":\"tweak\","
         "\"stage\":\"full\",\"train\":\"fast\"}\n"
      << "{\"event\":\"new_best\",\"n\":2,\"id\":4,\"score\":\"high\"}\n"
      << "{\"event\":\"from-the-future\"}\n"
      << "{\"no_event\":1}\n"
      << "\"a string\"\n";
  RunView v(dir, "bad");
  v.update();
  const json s = v.state();
  CHECK(s["events"]["bad_lines"] == 2);  // garbage, a string
  CHECK(s["events"]["bad_events"] == 3); // n not a number, score not a number, no event kind
  CHECK(s["config_problem"] == "config.json is not a JSON object");
  CHECK(v.per_shape().contains("error"));
  CHECK(s["programs"] == 2);
  CHECK(s["counters"]["proposed"] == 2);
  CHECK(s["counters"]["stages"]["unknown"] == 1);
  CHECK(s["counters"]["kernel_runs"] == 44); // -5 is not a count
  CHECK(s["best"]["id"] == 1);               // the seed: the only valid best
  CHECK(s["bad_lines"] == 5);
  CHECK(s.dump().size() > 0);
}

TEST_CASE("run view: only the latest best program's text is held, however many bests came") {
  const test::ScratchDir scratch("tilevolve_run_view_test");
  const fs::path dir = temp_dir(scratch, "many_bests");
  fs::create_directories(dir);
  {
    std::ofstream out(dir / "events.ndjson");
    out << R"({"event":"program","n":0,"id":1,"op":"seed","stage":"full","train":1.0})"
        << "\n";
    // 60 new bests of 100 KB each: 6 MB of program texts, of which one is shown.
    for (int i = 1; i <= 60; ++i) {
      const std::string program =
          "def choose(M, N, K):\n" + std::string(100000, '#') + fmt::format("\n# best {}\n", i);
      out << json{{"event", "new_best"}, {"n", i},         {"id", i + 1},
                  {"op", "tweak"},       {"score", 1 + i}, {"program", program}}
                 .dump()
          << "\n";
    }
  }
  RunView v(dir, "many");
  v.update();
  CHECK(v.held_program_bytes() >= 100000);
  CHECK(v.held_program_bytes() < 300000);
  const json s = v.state();
  CHECK(s["improvements"].size() == 61);
  CHECK(s["best"]["id"] == 61);
  CHECK(s["best"]["source"] == "new_best event");
  CHECK(s["best"]["program"].get<std::string>().find("# best 60\n") != std::string::npos);
}

} // namespace run_view_test
