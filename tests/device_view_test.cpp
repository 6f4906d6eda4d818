// The dashboard's devices panel data: DeviceView on hand-written events (live faults, then the
// devices event that ends a measured run; bad fields and floods bounded), RunView's state, and
// the JSON API of `tilevolve serve` on a real measured run with faulty fake workers and a
// poison config.
#include "serve/device_view.hpp"
#include "serve/run_view.hpp"

#include "support/fake_worker.hpp"
#include "support/http.hpp"
#include "support/process.hpp"
#include "support/shell.hpp"
#include "support/temp_dir.hpp"

#include <doctest/doctest.h>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

// In a namespace of its own: the test files are compiled several to a unit (unity build).
namespace device_view_test {

using namespace tv;
namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

json fault(const std::string& device, const std::string& kind, int restarts) {
  return {{"event", "worker_fault"},         {"device", device},    {"kind", kind},
          {"error", kind + " on " + device}, {"action", "restart"}, {"restarts", restarts}};
}

} // namespace

TEST_CASE("device view: faults, retries, poison pairs and retirements as they happen") {
  DeviceView v;
  CHECK(v.to_json().is_null()); // no device events: no panel
  CHECK(!v.apply("program", json::object()));
  CHECK(v.apply("worker_fault", fault("0", "crash", 1)));
  v.apply("worker_fault", fault("0", "timeout", 2));
  v.apply("worker_fault", fault("1", "garbage_line", 1));
  v.apply("worker_fault", fault("1", "made-up", 2));
  v.apply("pair_retry", {{"event", "pair_retry"}, {"device", "1"}, {"shape", "a"}});
  v.apply("poison_pair", {{"event", "poison_pair"},
                          {"device", "1"},
                          {"devices", {"0", "1"}},
                          {"shape", "llama:qkv:M1"},
                          {"config", "64x128x64 w4 s4 g8"},
                          {"strikes", 3},
                          {"error", "poison pair: ..."},
                          {"stderr", "Segmentation fault while compiling"}});
  v.apply("device_retired",
          {{"event", "device_retired"}, {"device", "0"}, {"reason", "failed to start 3 times"}});
  const json j = v.to_json();
  INFO(j.dump());
  REQUIRE(j["devices"].size() == 2);
  const json& d0 = j["devices"][0];
  CHECK(d0["id"] == "0");
  CHECK(d0["state"] == "retired");
  CHECK(d0["error"] == "failed to start 3 times");
  CHECK(d0["restarts"] == 2);
  CHECK(d0["faults"] == 2);
  CHECK(d0["fault_kinds"] == json{{"crash", 1}, {"timeout", 1}});
  CHECK(d0["measured"].is_null()); // only the devices event says
  const json& d1 = j["devices"][1];
  CHECK(d1["state"] == "alive");
  CHECK(d1["error"] == "made-up on 1"); // its last fault
  CHECK(d1["fault_kinds"] == json{{"garbage_line", 1}, {"other", 1}});
  CHECK(d1["poison"] == 1);
  CHECK(j["faults"] == 4);
  CHECK(j["retries"] == 1);
  CHECK(j["final"] == false);
  CHECK(j["pool"].is_null());
  REQUIRE(j["poison"].size() == 1);
  CHECK(j["poison"][0]["config"] == "64x128x64 w4 s4 g8");
  CHECK(j["poison"][0]["devices"] == json::array({"0", "1"}));
  CHECK(j["poison"][0]["stderr"] == "Segmentation fault while compiling");

  // The devices event the run ends with replaces the per-device figures.
  v.apply("devices", {{"event", "devices"},
                      {"devices",
                       {{{"id", "0"},
                         {"retired", true},
                         {"error", "gone"},
                         {"faults", 3},
                         {"restarts", 2},
                         {"measured", 10},
                         {"fault_kinds", {{"crash", 3}}}},
                        {{"id", "1"},
                         {"retired", false},
                         {"last_fault", "late"},
                         {"faults", 2},
                         {"measured", 50},
                         {"poison", 1}}}},
                      {"pool", {{"restarts", 4}, {"poison", 1}, {"weird", "x"}}},
                      {"poison", {"llama:qkv:M1 with 64x128x64 w4 s4 g8: poison pair: ..."}}});
  const json f = v.to_json();
  INFO(f.dump());
  CHECK(f["final"] == true);
  CHECK(f["devices"][0]["measured"] == 10);
  CHECK(f["devices"][0]["error"] == "gone");
  CHECK(f["devices"][0]["fault_kinds"] == json{{"crash", 3}});
  CHECK(f["devices"][1]["error"] == "late");
  CHECK(f["pool"] == json{{"restarts", 4}, {"poison", 1}});
  CHECK(f["poison"].size() == 1); // the structured one from its event, not the summary line
  v.reset();
  CHECK(v.to_json().is_null());
}

TEST_CASE("device view: bad fields are skipped and floods are bounded") {
  DeviceView v;
  v.apply("worker_fault", {{"event", "worker_fault"}, {"device", 7}}); // not a string id
  v.apply("worker_fault", {{"event", "worker_fault"},
                           {"device", "0"},
                           {"restarts", -3},
                           {"error", std::string(100000, 'e')}});
  for (int i = 0; i < 300; ++i)
    v.apply("device_retired", {{"event", "device_retired"}, {"device", fmt::format("d{}", i)}});
  for (int i = 0; i < 150; ++i)
    v.apply("poison_pair", {{"event", "poison_pair"},
                            {"device", "0"},
                            {"shape", i},
                            {"devices", json::array({1, "0"})}});
  const json j = v.to_json();
  CHECK(j["devices"].size() == kMaxViewDevices);
  CHECK(j["devices"][0]["restarts"] == 0);
  CHECK(j["devices"][0]["error"].get<std::string>().size() == 1000);
  CHECK(j["skipped"] == 1 + (300 + 1 - kMaxViewDevices));
  CHECK(j["poison"].size() == kMaxViewPoison);
  CHECK(j["poison_count"] == 150);
  CHECK(j["poison"][0]["shape"] == "");
  CHECK(j["poison"][0]["devices"] == json::array({"0"}));
  // An older run's devices event: poison pairs only as the summary's lines.
  DeviceView old;
  old.apply("devices", {{"event", "devices"}, {"devices", json::array()}, {"poison", {"a", 1}}});
  CHECK(old.to_json()["poison"] == json::array({json{{"text", "a"}}}));
  CHECK(old.to_json()["poison_count"] == 1);
}

TEST_CASE("device view: the API gives a measured run's devices and poison pairs") {
  const tv::test::ScratchDir scratch("tilevolve_device_view_test");
  const fs::path base = scratch.path;
  const fs::path runs = base / "runs";
  fs::create_directories(runs);
  const fs::path run = runs / "measured";
  const std::string worker = tv::test::fake_worker_cmd(
      "--poison-config '64x128x64 w4 s4 g8' --fault-rate 0.05 --fault-seed 2");
  const auto r = tv::test::run_shell(fmt::format(
      "{} evolve --gpu h100 --budget 30 --seed 5 --quiet --backend measured --cache {} "
      "--devices 0,1 --worker-timeout 1 --worker-backoff 0.01 --worker-cmd \"{}\" --out {} "
      "> /dev/null 2>&1",
      TILEVOLVE_BINARY, (base / "m.csv").string(), worker, run.string()));
  REQUIRE(r.status == 0);
  const json summary = json::parse(tv::test::read_text((run / "summary.json").string()));
  const json& m = summary["measurement"];
  // Also an analytic run: no device panel.
  REQUIRE(tv::test::run_shell(fmt::format("{} evolve --gpu h100 --budget 20 --quiet --out {} "
                                          "> /dev/null 2>&1",
                                          TILEVOLVE_BINARY, (runs / "analytic").string()))
              .status == 0);

  tv::test::Process serve({TILEVOLVE_BINARY, "serve", runs.string(), "--port", "0"},
                          (base / "serve.log").string());
  REQUIRE(serve.wait_for_output("http://"));
  const int port = tv::test::url_port(tv::test::served_url(serve.output()));
  const auto got = tv::test::http_request(port, "/api/runs/measured");
  REQUIRE(got.status == 200);
  const json dv = json::parse(got.body)["devices"];
  INFO(dv.dump());
  CHECK(dv["final"] == true);
  REQUIRE(dv["devices"].size() == 2);
  for (std::size_t i = 0; i < 2; ++i) {
    const json& d = dv["devices"][i];
    const json& want = m["devices"][i];
    CHECK(d["id"] == want["id"]);
    CHECK(d["state"] == "alive");
    CHECK(d["restarts"] == want["restarts"]);
    CHECK(d["faults"] == want["faults"]);
    CHECK(d["fault_kinds"] == want["fault_kinds"]);
    CHECK(d["measured"] == want["measured"]);
    CHECK(d["poison"] == want["poison"]);
  }
  CHECK(dv["pool"] == m["pool"]);
  CHECK(dv["poison_count"] == m["pool"]["poison"]);
  REQUIRE(dv["poison"].size() >= 1);
  CHECK(dv["poison"][0]["config"] == "64x128x64 w4 s4 g8");
  CHECK(dv["poison"][0]["strikes"] == 3);
  CHECK(dv["poison"][0]["stderr"].get<std::string>().find("Segmentation fault while compiling") !=
        std::string::npos);
  // The live view counted every fault the pool counted.
  long long faults = 0;
  for (const auto& d : m["devices"])
    faults += d["faults"].get<long long>();
  CHECK(dv["faults"] == faults);
  CHECK(dv["retries"] == m["pool"]["isolated"]);
  const auto other = tv::test::http_request(port, "/api/runs/analytic");
  REQUIRE(other.status == 200);
  CHECK(json::parse(other.body)["devices"].is_null());
}

} // namespace device_view_test
