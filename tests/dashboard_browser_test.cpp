// The dashboard in a real browser: `tilevolve serve` on runs the real binary wrote (one
// finished, one still running), loaded in headless Chromium through chromedriver, checked for
// what a person would see. Chromium is required: without it the test fails, unless it runs
// outside CI with TILEVOLVE_SKIP_BROWSER=1, when it is skipped with a message.
// TILEVOLVE_SCREENSHOTS=DIR saves dashboard-index.png and dashboard-run.png there (docs/).
#include "models/data_dir.hpp"
#include "support/fake_worker.hpp"
#include "support/http.hpp"
#include "support/process.hpp"
#include "support/shell.hpp"
#include "support/temp_dir.hpp"
#include "support/webdriver.hpp"

#include <chrono>
#include <cstdlib>
#include <doctest/doctest.h>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

// In a namespace of its own: the test files are compiled several to a unit (unity build).
namespace dashboard_browser_test {

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

struct Tools {
  std::string chromium, chromedriver;
};

/// Chromium and chromedriver, or nullopt when the test is to be skipped (outside CI, asked
/// for); fails the test when they are missing otherwise.
std::optional<Tools> browser_tools() {
  Tools t{tv::test::find_program({"chromium", "chromium-browser", "google-chrome"}),
          tv::test::find_program({"chromedriver"})};
  if (!t.chromium.empty() && !t.chromedriver.empty()) return t;
  const char* ci = std::getenv("CI");
  const char* skip = std::getenv("TILEVOLVE_SKIP_BROWSER");
  const bool in_ci = ci && *ci && std::string(ci) != "0" && std::string(ci) != "false";
  if (!in_ci && skip && std::string(skip) == "1") {
    MESSAGE("skipped: chromium or chromedriver not found and TILEVOLVE_SKIP_BROWSER=1 "
            "(install them with ./scripts/setup.sh test to run this test)");
    return std::nullopt;
  }
  FAIL("chromium and chromedriver are needed (Debian packages chromium, chromium-driver; "
       "./scripts/setup.sh test installs them). Outside CI, TILEVOLVE_SKIP_BROWSER=1 skips this "
       "test.");
  return std::nullopt;
}

/// `scratch`'s directory, with an empty "runs" directory and a "tmp" directory for TMPDIR in it.
fs::path work_dir(const tv::test::ScratchDir& scratch) {
  const fs::path d = scratch.path;
  fs::create_directories(d / "runs");
  fs::create_directories(d / "tmp");
  return d;
}

void evolve(const std::string& args) {
  const auto r =
      tv::test::run_shell(fmt::format("{} evolve --quiet {} 2>&1", TILEVOLVE_BINARY, args));
  INFO(r.out); // what the run said, should it fail
  REQUIRE(r.status == 0);
}

/// `tilevolve serve DIR --port 0`, and its URL once printed.
struct Server {
  tv::test::Process process;
  std::string url;
  Server(const fs::path& runs, const fs::path& log)
      : process({TILEVOLVE_BINARY, "serve", runs.string(), "--port", "0"}, log.string()) {
    REQUIRE(process.wait_for_output("http://"));
    url = tv::test::served_url(process.output());
  }
};

void save_screenshot(tv::test::Browser& b, const std::string& name) {
  const char* dir = std::getenv("TILEVOLVE_SCREENSHOTS");
  if (!dir || !*dir) return;
  const std::string png = b.screenshot();
  REQUIRE(png.rfind("\x89PNG", 0) == 0);
  std::ofstream(fs::path(dir) / name, std::ios::binary) << png;
}

/// JavaScript: each chart's datasets' point counts (nulls not counted), by canvas id.
const char* kChartPoints = R"(
  const out = {};
  for (const c of document.querySelectorAll('canvas')) {
    const chart = Chart.getChart(c);
    out[c.id] = chart ? chart.data.datasets.map(d => d.data.filter(v => v !== null && v !== undefined).length) : null;
  }
  return out;)";

/// JavaScript: the count of non-transparent pixels of each canvas, by id.
const char* kInkedPixels = R"(
  const out = {};
  for (const c of document.querySelectorAll('canvas')) {
    const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    let n = 0;
    for (let i = 3; i < d.length; i += 4) if (d[i] !== 0) n++;
    out[c.id] = n;
  }
  return out;)";

long long number_in(const json& text) {
  std::string digits;
  for (const char c : text.get<std::string>())
    if (c >= '0' && c <= '9') digits += c;
  return digits.empty() ? -1 : std::stoll(digits);
}

} // namespace

TEST_CASE("dashboard in a browser: a wait reads a script error as 'not yet', not as a failure") {
  const auto tools = browser_tools();
  if (!tools) return;
  const tv::test::ScratchDir scratch("tilevolve_browser_wait");
  const fs::path work = work_dir(scratch);
  const tv::test::TmpdirOverride tmpdir((work / "tmp").string()); // Chromium's temp dirs too
  tv::test::Browser b(tools->chromium, tools->chromedriver, work);
  // A page that defines its state late, as a busy machine runs the dashboard's script late:
  // until then, reading it throws a TypeError.
  b.go("data:text/html,<script>setTimeout(() => { window.tvLate = {ready: true}; }, 700)"
       "</script>");
  CHECK(b.eval("return typeof window.tvLate") == "undefined");
  CHECK(b.wait_until("return window.tvLate.ready === true", 20));
  // A script that never stops throwing still times out (false), it does not pass.
  CHECK_FALSE(b.wait_until("return window.tvNever.ready === true", 0.5));
}

TEST_CASE("dashboard in a browser: the index and a finished run's page show their data") {
  const auto tools = browser_tools();
  if (!tools) return;
  const tv::test::ScratchDir scratch("tilevolve_browser_finished");
  const fs::path work = work_dir(scratch);
  const tv::test::TmpdirOverride tmpdir((work / "tmp").string()); // Chromium's temp dirs too
  const fs::path runs = work / "runs";
  evolve(fmt::format("--gpu h100 --budget 1000 --out {}", (runs / "lecture-h100").string()));
  evolve(fmt::format("--backend replay:{} --vendor-dispatch --budget 400 --max-kernel-runs 100000 "
                     "--out {}",
                     tv::data_path("replay/h100_mm.txt"), (runs / "replay-vendor").string()));
  fs::create_directories(work / "outside");
  std::ofstream(work / "outside" / "secret") << "top secret\n";
  fs::create_symlink(work / "outside" / "secret", runs / "lecture-h100" / "leak");
  Server server(runs, work / "serve.log");
  tv::test::Browser b(tools->chromium, tools->chromedriver, work);

  // The index: both runs, finished, with their best figures.
  b.go(server.url + "/");
  REQUIRE(b.wait_until("return window.tvDashboard && window.tvDashboard.updates > 0 && "
                       "document.querySelectorAll('#runs tbody tr').length === 2"));
  const json rows = b.eval("return [...document.querySelectorAll('#runs tbody tr')].map("
                           "r => [...r.cells].map(c => c.textContent));");
  CHECK(rows[0][0] == "lecture-h100");
  CHECK(rows[0][1] == "finished");
  CHECK(rows[0][5] == "1,000 / 1,000");
  CHECK(rows[1][0] == "replay-vendor");
  const json summary =
      json::parse(tv::test::read_text((runs / "lecture-h100" / "summary.json").string()));
  CHECK(rows[0][6] == fmt::format("{:.3f}x", summary["train"]["speedup_vs_expert"].get<double>()));
  CHECK(rows[0][7] == fmt::format("{:.3f}x", summary["test"]["speedup_vs_expert"].get<double>()));
  // The best program against the decision tree on the held-out shapes, as the summary has it.
  const double gap = summary["test_vs_tree"]["gap_points"].get<double>();
  CHECK(rows[0][10] == fmt::format("{:+.2f} pts", gap));
  b.resize(1400, 420);
  save_screenshot(b, "dashboard-index.png");
  b.resize(1400, 3650);

  // The run page: charts drawn with their data points.
  b.go(server.url + "/run/lecture-h100");
  REQUIRE(b.wait_until(
      "return window.tvDashboard.updates > 0 && window.tvDashboard.perShape !== null"));
  const json points = b.eval(kChartPoints);
  INFO(points.dump());
  const auto improvements = summary["improvements"].size();
  CHECK(points["chart-progress"][0] == improvements + 1); // every new best, and the last program
  CHECK(points["chart-progress"][1] == improvements + 1); // their test scores
  CHECK(points["chart-cascade"][0] == 10); // one bar per stage (race_reject, over_budget included)
  CHECK(points["chart-operators"][0].get<int>() >= 5);
  for (const char* half : {"chart-shapes-train", "chart-shapes-test"}) {
    REQUIRE(points[half].size() == 5); // best, best single, per-M table, tree, oracle
    for (const auto& n : points[half])
      CHECK(n == 44);
  }
  CHECK(points["chart-lineage"][0].get<int>() >= 2);
  // The note under the methods: the same gap to the tree, and each half's shape count.
  const std::string tree_note =
      b.eval("return document.getElementById('tree-note').textContent;").get<std::string>();
  INFO(tree_note);
  CHECK(tree_note.find(fmt::format("({:+.2f} pts)", gap)) != std::string::npos);
  CHECK(tree_note.find("On the 44 held-out shapes") != std::string::npos);
  CHECK(tree_note.find("On the 44 training shapes") != std::string::npos);
  const json inked = b.eval(kInkedPixels);
  INFO(inked.dump());
  for (const auto& [id, n] : inked.items())
    CHECK(n.get<long long>() > 2000); // drawn, not blank
  const json cascade_sum = b.eval("return Chart.getChart('chart-cascade').data.datasets[0].data"
                                  ".reduce((a, b) => a + b, 0);");
  CHECK(cascade_sum == 1000);
  // The best program, its simplified form and the diff from the expert are on the page.
  CHECK(b.eval("return document.getElementById('best-program').textContent;") ==
        tv::test::read_text((runs / "lecture-h100" / "best.py").string()));
  CHECK(b.eval("return document.getElementById('best-simplified').textContent;") ==
        tv::test::read_text((runs / "lecture-h100" / "best_simplified.py").string()));
  CHECK(b.eval("return document.querySelectorAll('#best-diff .add').length;").get<int>() > 0);
  CHECK(number_in(b.eval("return document.getElementById('programs').textContent;")) == 1000);
  CHECK(b.eval("return document.getElementById('best-id').textContent;") ==
        fmt::format("#{}", summary["best"]["id"].get<long long>()));
  save_screenshot(b, "dashboard-run.png");

  // Requests that leave the runs directory are refused, in the browser too.
  const json statuses = b.eval(R"(
    return Promise.all(['/files/lecture-h100/..%2f..%2foutside%2fsecret',
                        '/files/lecture-h100/leak',
                        '/files/lecture-h100/%2e%2e%2f%2e%2e%2foutside/secret',
                        '/files/lecture-h100/best.py']
      .map(u => fetch(u).then(r => r.status)));)");
  CHECK(statuses[0] == 403);
  CHECK(statuses[1] == 403);
  CHECK(statuses[2] == 403);
  CHECK(statuses[3] == 200);
  b.go(server.url + "/files/lecture-h100/..%2f..%2foutside%2fsecret");
  const json body = b.eval("return document.body.innerText;");
  CHECK(body.get<std::string>().find("refused") != std::string::npos);
  CHECK(body.get<std::string>().find("top secret") == std::string::npos);

  // A vendor-dispatch run labels the shapes that call the vendor library.
  b.go(server.url + "/run/replay-vendor");
  REQUIRE(b.wait_until(
      "return window.tvDashboard.updates > 0 && window.tvDashboard.perShape !== null"));
  const json vendor_cells =
      b.eval("return document.querySelectorAll('#shapes td .vendor').length;");
  CHECK(vendor_cells.get<int>() > 0);
  const json vendor_points = b.eval(kChartPoints);
  CHECK(vendor_points["chart-shapes-train"].size() == 6); // the vendor library is a method too
  // Its kernel-run cap is shown beside the count.
  CHECK(b.eval("return document.getElementById('exhaustive').textContent;")
            .get<std::string>()
            .find("cap: 100,000") != std::string::npos);
}

TEST_CASE("dashboard in a browser: a split study on the index and on its own page") {
  const auto tools = browser_tools();
  if (!tools) return;
  const tv::test::ScratchDir scratch("tilevolve_browser_study");
  const fs::path work = work_dir(scratch);
  const tv::test::TmpdirOverride tmpdir((work / "tmp").string()); // Chromium's temp dirs too
  const fs::path runs = work / "runs";
  const auto r = tv::test::run_shell(
      fmt::format("{} splits --gpu h100 --splits 3 --seeds 2 --budget 200 --out {} 2>&1",
                  TILEVOLVE_BINARY, (runs / "h100-study").string()));
  INFO(r.out);
  REQUIRE(r.status == 0);
  const json study =
      json::parse(tv::test::read_text((runs / "h100-study" / "study.json").string()));
  Server server(runs, work / "serve.log");
  tv::test::Browser b(tools->chromium, tools->chromedriver, work);

  // The index: no run, the study in its own table with its headline figures.
  b.go(server.url + "/");
  REQUIRE(b.wait_until("return window.tvDashboard && window.tvDashboard.updates > 0 && "
                       "document.querySelectorAll('#studies tbody tr').length === 1"));
  CHECK(b.eval("return document.getElementById('studies-section').hidden;") == false);
  const json row = b.eval("return [...document.querySelector('#studies tbody tr').cells].map("
                          "c => c.textContent);");
  INFO(row.dump());
  CHECK(row[0] == "h100-study");
  CHECK(row[1] == "ok");
  CHECK(row[2] == "h100");
  CHECK(row[5] == "3");
  CHECK(row[7] == fmt::format("{:+.2f}\u00a0±\u00a0{:.2f}\u00a0pts",
                              100 * study["mean_test_gap_to_tree"].get<double>(),
                              100 * study["mean_test_gap_to_tree_standard_error"].get<double>()));
  CHECK(row[8] == fmt::format("{} of 3", study["splits_at_least_tree"].get<int>()));

  // The study's page: one bar per split and method, the table's figures the file's.
  b.go(server.url + "/study/h100-study");
  REQUIRE(
      b.wait_until("return window.tvDashboard.updates > 0 && window.tvDashboard.study !== null"));
  const json points = b.eval(kChartPoints);
  INFO(points.dump());
  CHECK(points["chart-splits"] == json::array({3, 3, 3, 3}));
  CHECK(points["chart-gaps"] == json::array({3}));
  const json inked = b.eval(kInkedPixels);
  for (const auto& [id, n] : inked.items())
    CHECK(n.get<long long>() > 2000); // drawn, not blank
  const json rows = b.eval("return [...document.querySelectorAll('#splits tbody tr')].map("
                           "r => [...r.cells].map(c => c.textContent));");
  INFO(rows.dump());
  REQUIRE(rows.size() == 3);
  for (std::size_t i = 0; i < 3; ++i) {
    const json& sp = study["splits"][i];
    CHECK(rows[i][0] == std::to_string(sp["split_seed"].get<int>()));
    CHECK(rows[i][1] == fmt::format("{:.1f}%", 100 * sp["evolved"]["test_median"].get<double>()));
    CHECK(
        rows[i][3] ==
        fmt::format("{:.1f}%", 100 * sp["decision_tree"]["test_fraction_of_oracle"].get<double>()));
    CHECK(rows[i][4] == fmt::format("{:+.2f} pts", 100 * sp["test_gap_to_tree"].get<double>()));
  }
  CHECK(b.eval("return document.getElementById('gap-tree').textContent;") ==
        fmt::format("{:+.2f} pts", 100 * study["mean_test_gap_to_tree"].get<double>()));
  CHECK(b.eval("return document.getElementById('problem').textContent;")
            .get<std::string>()
            .find("3 splits x 2 seeds") != std::string::npos);
  // Its report, as text.
  const json report = b.eval("return fetch(document.getElementById('report-link').href)"
                             ".then(r => r.text());");
  CHECK(report.get<std::string>().rfind("# tilevolve splits", 0) == 0);
  b.resize(1400, 1500);
  save_screenshot(b, "dashboard-study.png");

  // Items of `splits` of any type, null included (issue 65: "Cannot read properties of null"):
  // each shows as a row of '-', the valid one as it is.
  json hostile = study;
  hostile["splits"][0] = nullptr;
  hostile["splits"][1] = 7;
  hostile["splits"][2]["evolved"] = nullptr;
  fs::create_directories(runs / "hostile-study");
  std::ofstream(runs / "hostile-study" / "study.json") << hostile.dump();
  b.go(server.url + "/study/hostile-study");
  REQUIRE(
      b.wait_until("return window.tvDashboard.updates > 0 && window.tvDashboard.study !== null"));
  CHECK(b.eval("return document.getElementById('error').hidden;") == true);
  const json hostile_rows = b.eval("return [...document.querySelectorAll('#splits tbody tr')].map("
                                   "r => [...r.cells].map(c => c.textContent));");
  INFO(hostile_rows.dump());
  REQUIRE(hostile_rows.size() == 3);
  for (std::size_t i = 0; i < 2; ++i)
    for (const json& cell : hostile_rows[i])
      CHECK(cell == "-");
  CHECK(hostile_rows[2][0] == std::to_string(study["splits"][2]["split_seed"].get<int>()));
  CHECK(hostile_rows[2][1] == "-"); // its evolved figures are null
  CHECK(hostile_rows[2][3] ==
        fmt::format(
            "{:.1f}%",
            100 * study["splits"][2]["decision_tree"]["test_fraction_of_oracle"].get<double>()));
}

TEST_CASE("dashboard in a browser: a measured run's page shows its devices and poison pairs") {
  const auto tools = browser_tools();
  if (!tools) return;
  const tv::test::ScratchDir scratch("tilevolve_browser_devices");
  const fs::path work = work_dir(scratch);
  const tv::test::TmpdirOverride tmpdir((work / "tmp").string()); // Chromium's temp dirs too
  const fs::path runs = work / "runs";
  // Three fake devices: the third never starts (retired), the others fault at random, and one
  // config crashes its worker every time (poison pairs).
  const std::string worker = tv::test::fake_worker_cmd(
      "--exit-at-hello --fault-device 2 --poison-config '64x128x64 w4 s4 g8' --fault-rate 0.03 "
      "--fault-seed 2");
  evolve(fmt::format("--gpu h100 --budget 30 --seed 5 --backend measured --cache {} --devices "
                     "0,1,2 --worker-timeout 1 --worker-backoff 0.01 --worker-cmd \"{}\" --out {}",
                     (work / "m.csv").string(), worker, (runs / "measured").string()));
  evolve(fmt::format("--gpu h100 --budget 50 --out {}", (runs / "analytic").string()));
  const json summary =
      json::parse(tv::test::read_text((runs / "measured" / "summary.json").string()));
  const json& m = summary["measurement"];
  Server server(runs, work / "serve.log");
  tv::test::Browser b(tools->chromium, tools->chromedriver, work);
  b.go(server.url + "/run/measured");
  REQUIRE(b.wait_until("return window.tvDashboard.updates > 0"));
  CHECK(b.eval("return document.getElementById('devices-section').hidden;") == false);
  const json rows = b.eval("return [...document.querySelectorAll('#devices tbody tr')].map("
                           "r => [...r.cells].map(c => c.textContent));");
  INFO(rows.dump());
  REQUIRE(rows.size() == 3);
  for (std::size_t i = 0; i < 3; ++i) {
    const json& d = m["devices"][i];
    CHECK(rows[i][0] == d["id"]);
    CHECK(rows[i][1] == (i == 2 ? "retired" : "alive"));
    CHECK(number_in(rows[i][2]) == d["measured"].get<long long>());
    CHECK(number_in(rows[i][3]) == d["restarts"].get<long long>());
    CHECK(number_in(rows[i][4]) == d["faults"].get<long long>());
    CHECK(number_in(rows[i][6]) == d["poison"].get<long long>());
  }
  // Its three failed starts are crashes: it exits at hello (a start has --worker-start-timeout,
  // 120 s, not --worker-timeout's 1 s, so a loaded machine's slow start is no timeout).
  CHECK(rows[2][5] == "crash 3");
  CHECK(rows[2][7].get<std::string>().find("failed to start 3 times in a row") !=
        std::string::npos);
  CHECK(b.eval("return document.getElementById('devices-note').textContent;")
            .get<std::string>()
            .find("2 of 3 alive") != std::string::npos);
  // The poison pairs, with the worker's stderr.
  const json poison = b.eval("return [...document.querySelectorAll('#poison tbody tr')].map("
                             "r => [...r.cells].map(c => c.textContent));");
  INFO(poison.dump());
  REQUIRE(poison.size() == m["poison"].size());
  REQUIRE(!poison.empty());
  CHECK(poison[0][1] == "64x128x64 w4 s4 g8");
  CHECK(poison[0][3] == "3");
  CHECK(poison[0][5].get<std::string>().find("Segmentation fault while compiling") !=
        std::string::npos);
  CHECK(b.eval("return document.getElementById('poison-none').hidden;") == true);
  b.eval("document.getElementById('devices-section').scrollIntoView(); return true;");
  save_screenshot(b, "dashboard-devices.png");
  // A run without workers has no devices panel.
  b.go(server.url + "/run/analytic");
  REQUIRE(b.wait_until("return window.tvDashboard.updates > 0"));
  CHECK(b.eval("return document.getElementById('devices-section').hidden;") == true);
}

TEST_CASE("dashboard in a browser: the page of a run in progress advances until it ends") {
  const auto tools = browser_tools();
  if (!tools) return;
  const tv::test::ScratchDir scratch("tilevolve_browser_live");
  const fs::path work = work_dir(scratch);
  const tv::test::TmpdirOverride tmpdir((work / "tmp").string()); // Chromium's temp dirs too
  const fs::path runs = work / "runs";
  // The server and the browser first (starting Chromium takes seconds on a loaded machine),
  // then a run with a budget it does not reach: the test ends it with SIGTERM once the page
  // has followed it, so nothing here waits on wall time (every wait below is a deadline for
  // a loaded machine, not a duration the test relies on).
  fs::create_directories(runs);
  Server server(runs, work / "serve.log");
  tv::test::Browser b(tools->chromium, tools->chromedriver, work);
  tv::test::Process run({TILEVOLVE_BINARY, "evolve", "--gpu", "h100", "--quiet", "--budget",
                         "100000000", "--checkpoint-every", "2000", "--out",
                         (runs / "live").string()},
                        (work / "evolve.log").string());
  for (int i = 0; i < 2400 && !fs::exists(runs / "live" / "events.ndjson"); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  b.go(server.url + "/run/live?poll=250");
  REQUIRE(b.wait_until(
      "return window.tvDashboard.updates > 0 && window.tvDashboard.last.programs > 0", 120));
  const auto programs = [&] {
    return number_in(b.eval("return document.getElementById('programs').textContent;"));
  };
  const long long first = programs();
  const json first_x = b.eval("const d = Chart.getChart('chart-progress').data.datasets[0].data;"
                              "return d[d.length - 1].x;");
  // The run cannot end before the test stops it: the page says it runs.
  REQUIRE(!run.exited());
  CHECK(b.wait_until("return document.getElementById('status').textContent === 'running';", 60));
  // The page advances by itself as the run writes events.
  REQUIRE(b.wait_until(fmt::format("return Number(document.getElementById('programs')"
                                   ".textContent.replace(/,/g, '')) > {} + 100;",
                                   first),
                       120));
  // The progress chart follows (on a loaded machine it may be drawn a refresh later).
  CHECK(b.wait_until(fmt::format("const d = Chart.getChart('chart-progress').data.datasets[0]"
                                 ".data; return d[d.length - 1].x > {};",
                                 first_x.get<long long>()),
                     60));
  CHECK(b.eval("return document.getElementById('best-program').textContent.startsWith("
               "'def choose(M, N, K):');") == true);
  // SIGTERM: the run stops between two batches, checkpointed, and says so in its events; the
  // page shows it interrupted (not finished, and not "stopped" ten seconds later) with the
  // programs of its checkpoint.
  CHECK(run.stop(SIGTERM, 300) == 128 + SIGTERM);
  const auto checkpoint =
      json::parse(tv::test::read_text((runs / "live" / "checkpoint.json").string()));
  REQUIRE(
      b.wait_until("return document.getElementById('status').textContent === 'interrupted';", 60));
  const std::string events = tv::test::read_text((runs / "live" / "events.ndjson").string());
  const auto last_line = events.substr(events.rfind('\n', events.size() - 2) + 1);
  const json interrupted = json::parse(last_line);
  CHECK(interrupted["event"] == "interrupted");
  REQUIRE(b.wait_until(fmt::format("return Number(document.getElementById('programs')"
                                   ".textContent.replace(/,/g, '')) === {};",
                                   interrupted["programs"].get<long long>()),
                       60));
  CHECK(programs() > first);
  // The checkpoint holds the programs the event reports: a resume goes on from there.
  CHECK(checkpoint["state"]["done"] == interrupted["programs"]);
}

} // namespace dashboard_browser_test
