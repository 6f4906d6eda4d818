// The device pool's events against real fake-worker processes: a worker fault and its restart
// (kind, device, requests, pairs, back-off), a pair retried alone, a poison pair (with its
// config, shape and the worker's stderr), a retired device (with its reason); the limits that
// decide them come from PoolOptions; the log and its texts stay bounded.
#include "eval/controller/device_pool.hpp"
#include "eval/controller/pool_events.hpp"

#include "support/fake_worker.hpp"
#include "support/fixtures.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

// In a namespace of its own: the test files are compiled several to a unit (unity build).
namespace pool_events_test {

using namespace tv;
using tv::test::cfg;
using tv::test::fake_worker_cmd;
using json = nlohmann::json;

namespace {

/// `n` jobs: lecture shapes with the config 128x128x64 w4 s3 g8, and every `poison_every`-th
/// with 64x128x64 w4 s4 g8 (0: none).
std::vector<MeasureJob> jobs(std::size_t n, std::size_t poison_every = 0) {
  std::vector<MeasureJob> out;
  for (std::size_t i = 0; i < n; ++i) {
    MeasureJob j;
    j.shape = tv::test::lecture_shapes()[i % 88];
    j.config = poison_every && i % poison_every == poison_every - 1 ? cfg(64, 128, 64, 4, 4, 8)
                                                                    : cfg(128, 128, 64, 4, 3, 8);
    j.reps = 3;
    out.push_back(j);
  }
  return out;
}

PoolOptions options(const std::string& args, std::vector<std::string> devices = {"0"}) {
  PoolOptions o;
  o.command = fake_worker_cmd(args);
  o.devices = std::move(devices);
  o.timeout_s = 5;
  o.backoff_s = 0.001;
  return o;
}

std::vector<json> of_kind(const std::vector<json>& events, const std::string& kind) {
  std::vector<json> out;
  for (const auto& e : events)
    if (e.value("event", "") == kind) out.push_back(e);
  return out;
}

} // namespace

TEST_CASE("pool_events: a crash is a worker_fault event with what it hit, and each pair it had "
          "is retried alone") {
  DevicePool pool(options("--crash-after 3"));
  const auto js = jobs(10);
  const auto rs = pool.run(js);
  for (const auto& r : rs)
    CHECK(r.reply.status == MeasureStatus::ok);
  const auto events = pool.take_events();
  CHECK(pool.take_events().empty()); // taken once
  const auto faults = of_kind(events, "worker_fault");
  REQUIRE(faults.size() == std::size_t(pool.counters().restarts));
  REQUIRE(!faults.empty());
  const json& f = faults.front();
  INFO(f.dump());
  CHECK(f["device"] == "0");
  CHECK(f["kind"] == "crash");
  CHECK(f["while"] == "measuring");
  CHECK(f["action"] == "restart"); // the first fault in a row restarts at once
  CHECK(f["backoff_s"] == 0.0);
  CHECK(f["restarts"] == 1);
  CHECK(f["faults_in_row"] == 1);
  CHECK(f["error"].get<std::string>().find("exited while measuring") != std::string::npos);
  // It crashed reading the 4th request; the 5th was out too unless its 3rd reply was still
  // on the way (two ahead).
  REQUIRE(f["requests"].size() == f["pairs"].size());
  REQUIRE(f["pairs"].size() >= 1);
  REQUIRE(f["pairs"].size() <= 2);
  CHECK(f["pairs"][0]["shape"] == js[3].shape.label());
  CHECK(f["pairs"][0]["config"] == "128x128x64 w4 s3 g8");
  const auto retries = of_kind(events, "pair_retry");
  CHECK(retries.size() == std::size_t(pool.counters().isolated));
  REQUIRE(retries.size() >= f["pairs"].size());
  // Each pair it had is retried alone next (the last sent first).
  for (std::size_t k = 0; k < f["pairs"].size(); ++k) {
    const json& retry = retries[k];
    CHECK(retry["device"] == "0");
    CHECK(retry["shape"] == f["pairs"][f["pairs"].size() - 1 - k]["shape"]);
    CHECK(retry["config"] == "128x128x64 w4 s3 g8");
    CHECK(retry["faults"] == 1);
    CHECK(retry["strikes"] == 0);
  }
  CHECK(pool.devices()[0].fault_kinds.at("crash") == pool.devices()[0].faults);
  // No wall-clock data in any event: only these fields.
  const std::vector<std::string> fields = {
      "event",  "device",    "kind",     "while", "error",  "requests", "pairs",  "faults_in_row",
      "action", "backoff_s", "restarts", "shape", "config", "faults",   "strikes"};
  for (const auto& e : events)
    for (auto it = e.begin(); it != e.end(); ++it) {
      const std::string key = it.key();
      CHECK_MESSAGE(std::find(fields.begin(), fields.end(), key) != fields.end(), key);
    }
}

TEST_CASE("pool_events: a poison pair after PoolOptions::poison_strikes faults, with its config, "
          "shape and stderr") {
  PoolOptions o = options("--poison-config '64x128x64 w4 s4 g8'");
  o.poison_strikes = 2;
  DevicePool pool(o);
  const auto js = jobs(12, 6); // jobs 5 and 11 are poison
  const auto rs = pool.run(js);
  CHECK(rs[5].poison);
  CHECK(rs[11].poison);
  CHECK(rs[5].reply.detail.find("it faulted alone on its worker 2 times (device 0)") !=
        std::string::npos);
  const auto poison = of_kind(pool.take_events(), "poison_pair");
  REQUIRE(poison.size() == 2);
  const json& p = poison.front();
  INFO(p.dump());
  CHECK(p["device"] == "0");
  CHECK(p["devices"] == json::array({"0"}));
  CHECK(p["shape"] == js[5].shape.label());
  CHECK(p["config"] == "64x128x64 w4 s4 g8");
  CHECK(p["strikes"] == 2);
  CHECK(p["stderr"].get<std::string>().find(
            "Segmentation fault while compiling 64x128x64 w4 s4 g8") != std::string::npos);
  CHECK(p["error"] == rs[5].reply.detail);
}

TEST_CASE("pool_events: a device that faults max_faults_in_row times retires, with its reason") {
  PoolOptions o = options("--crash-after 0");
  o.max_faults_in_row = 3;
  o.backoff_s = 0.05;
  DevicePool pool(o);
  pool.run(jobs(2));
  CHECK(pool.counters().crashes == 3);
  const auto events = pool.take_events();
  const auto faults = of_kind(events, "worker_fault");
  REQUIRE(faults.size() == 3);
  CHECK(faults[0]["action"] == "restart");
  CHECK(faults[1]["action"] == "back-off");
  CHECK(faults[1]["backoff_s"] == 0.05);
  CHECK(faults[1]["faults_in_row"] == 2);
  CHECK(faults[2]["action"] == "retire");
  const auto retired = of_kind(events, "device_retired");
  REQUIRE(retired.size() == 1);
  CHECK(retired[0]["device"] == "0");
  CHECK(retired[0]["reason"].get<std::string>().find("faulted 3 times in a row without a result") !=
        std::string::npos);
  CHECK(retired[0]["faults"] == 3);
  CHECK(retired[0]["restarts"] == 2);
  CHECK(events.back() == retired[0]); // the last thing that happened
}

TEST_CASE("pool_events: failed starts back off and retire after max_failed_starts") {
  PoolOptions o = options("--exit-at-hello --fault-device 1", {"0", "1"});
  o.max_failed_starts = 2;
  DevicePool pool(o);
  CHECK(pool.devices()[1].retired);
  CHECK(pool.devices()[1].failed_starts == 2);
  const auto events = pool.take_events();
  const auto faults = of_kind(events, "worker_fault");
  REQUIRE(faults.size() == 2);
  CHECK(faults[0]["while"] == "starting");
  CHECK(faults[0]["device"] == "1");
  CHECK(faults[1]["action"] == "retire");
  const auto retired = of_kind(events, "device_retired");
  REQUIRE(retired.size() == 1);
  CHECK(retired[0]["reason"].get<std::string>().find("failed to start 2 times in a row") !=
        std::string::npos);
}

TEST_CASE("pool_events: the log keeps kMaxPoolEvents and counts the rest, texts are cut") {
  PoolEventLog log;
  for (std::size_t i = 0; i < kMaxPoolEvents + 5; ++i)
    log.add({{"event", "worker_fault"}, {"i", i}});
  const auto kept = log.take();
  CHECK(kept.size() == kMaxPoolEvents);
  CHECK(kept.back()["i"] == kMaxPoolEvents - 1);
  CHECK(log.dropped() == 5);
  log.add({{"event", "late"}});
  CHECK(log.take().empty()); // the limit is over the pool's life
  CHECK(log.dropped() == 6);
  const std::string long_text(5000, 'x');
  CHECK(event_text(long_text).size() == kMaxEventText);
  CHECK(event_text("short") == "short");
  const json retired = device_retired_event("3", long_text, 1, 2, 3);
  CHECK(retired["reason"].get<std::string>().size() == kMaxEventText);
  CHECK(line_excerpt(std::string(200, 'y') + "\x01").size() == 83);
  CHECK(last_lines("a\n\nb\nc\nd\n", 3) == "b | c | d");
}

} // namespace pool_events_test
