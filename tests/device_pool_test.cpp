// The device pool against real worker processes: the fake worker, healthy and in each of its
// faulty modes. Every fault must leave every finished measurement intact and be counted.
#include "eval/controller/device_pool.hpp"
#include "models/analytic_model.hpp"

#include "support/fake_worker.hpp"
#include "support/fixtures.hpp"
#include "support/temp_dir.hpp"

#include <doctest/doctest.h>

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <set>

// In a namespace of its own: the test files are compiled several to a unit (unity build).
namespace device_pool_test {

using namespace tv;
using tv::test::cfg;
using tv::test::fake_worker_cmd;

namespace {

/// The strikes a poison pair's detail names ("faulted alone on its worker 3 times" gives 3,
/// "once" 1); 0 when it names none.
int strikes_of(const std::string& detail) {
  const std::string lead = "faulted alone on its worker ";
  const std::size_t at = detail.find(lead);
  if (at == std::string::npos) return 0;
  const std::string rest = detail.substr(at + lead.size());
  if (rest.rfind("once", 0) == 0) return 1;
  return std::atoi(rest.c_str());
}

/// `n` distinct (shape, config) jobs over the lecture shapes and a few launchable configs.
std::vector<MeasureJob> jobs(std::size_t n) {
  const std::vector<Config> configs = {cfg(128, 128, 64, 4, 3, 8), cfg(64, 128, 64, 4, 4, 8),
                                       cfg(128, 256, 64, 8, 3, 8), cfg(16, 64, 128, 4, 4, 1)};
  std::vector<MeasureJob> out;
  for (std::size_t i = 0; out.size() < n; ++i) {
    MeasureJob j;
    j.shape = tv::test::lecture_shapes()[i % 88];
    j.config = configs[(i / 88) % configs.size()];
    j.reps = 3;
    out.push_back(j);
  }
  return out;
}

PoolOptions options(const std::string& args, std::vector<std::string> devices = {"0", "1"}) {
  PoolOptions o;
  o.command = fake_worker_cmd(args);
  o.devices = std::move(devices);
  o.timeout_s = 5;
  return o;
}

/// Every result is ok and within the fake worker's 1% noise of its own job's model time.
void check_all_measured(const std::vector<MeasureJob>& js, const std::vector<PoolResult>& rs) {
  REQUIRE(rs.size() == js.size());
  for (std::size_t i = 0; i < js.size(); ++i) {
    INFO("job " << i << ": " << rs[i].reply.detail);
    REQUIRE(rs[i].reply.status == MeasureStatus::ok);
    const double model = model_time(js[i].shape, js[i].config, tv::test::gpu("h100"));
    CHECK(std::abs(rs[i].reply.seconds / model - 1.0) <= 0.0100001);
    CHECK(rs[i].reply.times.size() == 3);
  }
}

} // namespace

TEST_CASE("device_pool: two healthy workers measure every job, each result its own") {
  DevicePool pool(options(""));
  REQUIRE(pool.devices().size() == 2);
  for (const auto& d : pool.devices()) {
    CHECK(d.healthy);
    CHECK(d.hello.device == "NVIDIA H100 SXM5 80GB (fake)");
    CHECK(d.hello.backend == "fake");
    CHECK(d.hello.worker == "tilevolve-fake-worker 1");
  }
  const auto js = jobs(120);
  const auto rs = pool.run(js);
  check_all_measured(js, rs);
  std::set<int> devices;
  for (const auto& r : rs)
    devices.insert(r.device);
  CHECK(devices == std::set<int>{0, 1});
  CHECK(pool.counters().measured == 120);
  CHECK(pool.counters().faults() == "no faults");
  // A second run on the same pool.
  const auto again = pool.run(jobs(10));
  check_all_measured(jobs(10), again);
}

TEST_CASE("device_pool: failures are results without a time, vendor jobs are timed") {
  DevicePool pool(options("--wrong-result-bm 64", {"0"}));
  std::vector<MeasureJob> js(3);
  js[0].shape = tv::test::shape(128, 4096, 4096);
  js[0].config = cfg(256, 128, 64, 4, 3, 8); // 296 registers per thread on h100
  js[1].shape = js[0].shape;
  js[1].config = cfg(64, 128, 64, 4, 4, 8);
  js[2].shape = js[0].shape;
  js[2].vendor = true;
  const auto rs = pool.run(js);
  CHECK(rs[0].reply.status == MeasureStatus::unlaunchable);
  CHECK(rs[0].reply.detail.find("registers per thread") != std::string::npos);
  CHECK(rs[0].reply.times.empty());
  CHECK(rs[1].reply.status == MeasureStatus::wrong_result);
  CHECK(rs[1].reply.times.empty());
  CHECK(!rs[1].controller_error);
  REQUIRE(rs[2].reply.status == MeasureStatus::ok);
  CHECK(rs[2].reply.seconds > 0);
  CHECK(pool.counters().faults() == "no faults");
}

TEST_CASE("device_pool: replies out of order are matched by id") {
  DevicePool pool(options("--out-of-order"));
  const auto js = jobs(60);
  check_all_measured(js, pool.run(js));
  CHECK(pool.counters().faults() == "no faults");
}

TEST_CASE("device_pool: a worker that crashes mid-batch is restarted and nothing is lost") {
  tv::test::ScratchDir dir("tv_pool");
  DevicePool pool(options("--crash-after 1 --fault-device 0 --once-file " + dir.at("crashed")));
  const auto js = jobs(80);
  check_all_measured(js, pool.run(js));
  const PoolCounters& c = pool.counters();
  CHECK(c.crashes == 1);
  CHECK(c.restarts == 1);
  CHECK(c.requeued >= 1);
  CHECK(c.errors == 0);
  CHECK(c.measured == 80);
}

TEST_CASE("device_pool: a worker that hangs is killed at the timeout and its pairs re-queued") {
  tv::test::ScratchDir dir("tv_pool");
  PoolOptions o = options("--hang-after 1 --fault-device 1 --once-file " + dir.at("hung"));
  o.timeout_s = 0.5;
  DevicePool pool(o);
  const auto js = jobs(40);
  check_all_measured(js, pool.run(js));
  CHECK(pool.counters().timeouts == 1);
  CHECK(pool.counters().restarts == 1);
  CHECK(pool.counters().requeued >= 1);
  CHECK(pool.counters().errors == 0);
}

TEST_CASE("device_pool: garbage lines, unknown ids and lies are faults, never results") {
  tv::test::ScratchDir dir("tv_pool");
  struct Case {
    const char* flag;
    long long PoolCounters::*counter;
  };
  for (const Case& k : {Case{"--garbage-after 1", &PoolCounters::garbage_lines},
                        Case{"--unknown-id-after 1", &PoolCounters::unknown_ids},
                        Case{"--lie-after 1", &PoolCounters::bad_replies}}) {
    INFO(std::string(k.flag));
    const std::string once =
        dir.at(std::string("once") + std::to_string(std::string(k.flag).size()));
    DevicePool pool(options(std::string(k.flag) + " --fault-device 0 --once-file " + once));
    const auto js = jobs(30);
    // The lie is a wrong_result with a time: the pair must come back ok from a re-measure.
    check_all_measured(js, pool.run(js));
    INFO(pool.counters().to_json().dump() << " device 0 did " << pool.devices()[0].done);
    CHECK(pool.counters().*k.counter == 1);
    CHECK(pool.counters().restarts == 1);
    CHECK(pool.counters().errors == 0);
  }
}

TEST_CASE("device_pool: a worker that exits at hello retires and the others carry on") {
  DevicePool pool(options("--exit-at-hello --fault-device 1"));
  REQUIRE(pool.devices().size() == 2);
  CHECK(pool.devices()[0].healthy);
  CHECK(!pool.devices()[1].healthy);
  CHECK(pool.devices()[1].error.find("exited before answering hello") != std::string::npos);
  CHECK(pool.devices()[1].error.find("exited with status 3") != std::string::npos);
  CHECK(pool.devices()[1].error.find("--exit-at-hello") != std::string::npos); // its stderr
  CHECK(pool.counters().failed_starts == 3);
  const auto js = jobs(20);
  const auto rs = pool.run(js);
  check_all_measured(js, rs);
  for (const auto& r : rs)
    CHECK(r.device == 0);
}

TEST_CASE("device_pool: a slow start is timed by the start timeout, not the request timeout") {
  // Device 1 takes 0.6 s to answer hello. A request timeout of 0.2 s does not fail it...
  PoolOptions o = options("--hello-delay-ms 600 --fault-device 1");
  o.timeout_s = 0.2;
  o.start_timeout_s = 30;
  {
    DevicePool pool(o);
    CHECK(pool.devices()[1].healthy);
    CHECK(pool.devices()[1].failed_starts == 0);
    CHECK(pool.counters().timeouts == 0);
  }
  // ...a start timeout shorter than its start does, three times, and says which limit it hit.
  // (Device 0 answers at once; on a loaded machine it may still miss 0.5 s, so only device 1's
  // record is checked.)
  o = options("--hello-delay-ms 5000 --fault-device 1");
  o.timeout_s = 30;
  o.start_timeout_s = 0.5;
  o.backoff_s = 0.01;
  DevicePool pool(o);
  CHECK(!pool.devices()[1].healthy);
  CHECK(pool.devices()[1].retired);
  CHECK(pool.devices()[1].failed_starts == 3);
  CHECK(pool.devices()[1].fault_kinds.at("timeout") == 3);
  CHECK(pool.devices()[1].error.find("did not answer hello within 0.5 s") != std::string::npos);
}

TEST_CASE("device_pool: a hello error retires the worker at once with the worker's reason") {
  DevicePool pool(options("--hello-error 'torch not importable'", {"0"}));
  CHECK(!pool.any_healthy());
  CHECK(pool.devices()[0].error == "the worker cannot run: torch not importable");
  CHECK(pool.counters().failed_starts == 1);
  const auto rs = pool.run(jobs(3));
  for (const auto& r : rs) {
    CHECK(r.reply.status == MeasureStatus::error);
    CHECK(r.controller_error);
    CHECK(r.reply.detail.find("no worker left: every device is retired") != std::string::npos);
  }
}

TEST_CASE("device_pool: a device whose worker crashes on every request retires, no pair is "
          "poison, none is lost to a result") {
  // Every incarnation crashes at its first measure request: the device never delivers a
  // result, so it is broken (retired after max_faults_in_row faults), not the pairs.
  PoolOptions o = options("--crash-after 0", {"0"});
  o.backoff_s = 0.001;
  DevicePool pool(o);
  const auto rs = pool.run(jobs(4));
  for (const auto& r : rs) {
    CHECK(r.reply.status == MeasureStatus::error);
    CHECK(r.controller_error);
    CHECK(!r.poison);
    CHECK(r.reply.detail.find("no worker left") != std::string::npos);
  }
  CHECK(pool.counters().errors == 4);
  CHECK(pool.counters().crashes == PoolOptions{}.max_faults_in_row);
  CHECK(pool.counters().poison == 0);
  CHECK(!pool.any_alive());
  CHECK(pool.devices()[0].retired);
  CHECK(pool.devices()[0].error.find("faulted 10 times in a row without a result") !=
        std::string::npos);
}

TEST_CASE("device_pool: random faults of every kind never change a result") {
  // The fake worker's random mode: a share of requests fault, kinds mixed per request.
  const auto js = jobs(100);
  DevicePool clean(options("", {"0"}));
  const auto want = clean.run(js);
  for (const char* rate : {"0.05", "0.1"})
    for (const auto& devices :
         {std::vector<std::string>{"0"}, std::vector<std::string>{"0", "1"}}) {
      INFO("rate " << rate << ", devices " << devices.size());
      PoolOptions o = options(fmt::format("--fault-rate {} --fault-seed 7", rate), devices);
      o.timeout_s = 1.5; // generous: a pair that times out three times under load would be poisoned
      o.backoff_s = 0.001;
      DevicePool pool(o);
      const auto rs = pool.run(js);
      REQUIRE(rs.size() == want.size());
      for (std::size_t i = 0; i < rs.size(); ++i) {
        INFO("job " << i << ": " << rs[i].reply.detail);
        REQUIRE(rs[i].reply.status == MeasureStatus::ok);
        CHECK(rs[i].reply.seconds == want[i].reply.seconds);
      }
      const PoolCounters& c = pool.counters();
      INFO(c.to_json().dump());
      CHECK(c.restarts > 0);
      CHECK(c.poison == 0);
      CHECK(c.errors == 0);
      CHECK(c.retired == 0);
      CHECK(c.isolated > 0);
      CHECK(c.garbage_lines + c.unknown_ids + c.bad_replies + c.crashes + c.timeouts == c.restarts);
    }
}

TEST_CASE(
    "device_pool: a poison config is found after three faults alone, on two devices, and once "
    "it is poison on two shapes, one fault is enough on the others") {
  const Config poison = cfg(64, 128, 64, 4, 4, 8);
  for (const auto& devices : {std::vector<std::string>{"0"}, std::vector<std::string>{"0", "1"}}) {
    long long crashes_without = 0, crashes_with = 0;
    for (const int after : {0, 2}) {
      INFO("devices " << devices.size() << ", poison_config_after " << after);
      PoolOptions o = options("--poison-config '" + poison.brief() + "'", devices);
      o.backoff_s = 0.001;
      o.poison_config_after = after;
      DevicePool pool(o);
      const auto js = jobs(100); // 88 with the first config, 12 with the poison one
      const auto rs = pool.run(js);
      int three = 0, once = 0;
      for (std::size_t i = 0; i < js.size(); ++i) {
        INFO("job " << i << ": " << rs[i].reply.detail);
        if (js[i].config == poison) {
          const std::string& d = rs[i].reply.detail;
          CHECK(rs[i].reply.status == MeasureStatus::crash);
          CHECK(rs[i].poison);
          CHECK(!rs[i].controller_error);
          CHECK(d.find("Segmentation fault while compiling") != std::string::npos);
          if (d.find("and its config is a poison pair on ") == std::string::npos) {
            ++three;
            // Every strike: 3 on one device; on two, at least 3 and both devices (a fourth when
            // the first three fell on one device, likelier under load).
            if (devices.size() == 1) CHECK(strikes_of(d) == 3);
            if (devices.size() == 2) {
              CHECK(strikes_of(d) >= 3);
              CHECK(d.find("devices 0, 1") != std::string::npos);
            }
          } else {
            // Inferred from the config: fewer strikes than the rule asks (once, or more where some
            // came before the config was known), the other shapes counted.
            ++once;
            CHECK(after > 0);
            CHECK(d.find("poison pair: it faulted alone on its worker ") == 0);
            CHECK(d.find(" other shapes; the last: ") != std::string::npos);
          }
        } else {
          CHECK(rs[i].reply.status == MeasureStatus::ok);
        }
      }
      CHECK(three + once == 12);
      CHECK(three >= 2); // the first two shapes always need every strike
      if (after > 0) CHECK(once >= 1);
      CHECK(pool.counters().poison == 12);
      CHECK(pool.counters().retired == 0);
      CHECK(pool.any_alive()); // the last poison pair's worker may still be restarting
      (after == 0 ? crashes_without : crashes_with) = pool.counters().crashes;
    }
    // Each strike is a crashed worker: 3 per shape without the inference (and the crashes that
    // caught the pair beside another), far fewer with.
    CHECK(crashes_without >= 36);
    CHECK(crashes_with < crashes_without);
  }
}

TEST_CASE("device_pool: a device that never delivered a result is no witness: its faults are "
          "not strikes against the pair, now or later") {
  // Device 0 crashes on every request (it never delivers); on device 1 only the poison config
  // crashes. Device 0's crash with the pair alone on it proves nothing about the pair, so the
  // pair is not poison on "two devices" by it: it is poison by its three strikes on device 1,
  // the only device that delivered, and device 0 takes no blame.
  const Config poison = cfg(64, 128, 64, 4, 4, 8);
  PoolOptions o = options(
      "--poison-config '" + poison.brief() + "' --crash-after 0 --fault-device 0", {"0", "1"});
  o.backoff_s = 0.001;
  o.poison_config_after = 0;
  DevicePool pool(o);
  std::vector<MeasureJob> js = jobs(12);
  js[0].config = poison;
  const auto rs = pool.run(js);
  INFO(rs[0].reply.detail);
  CHECK(rs[0].poison);
  CHECK(rs[0].reply.status == MeasureStatus::crash);
  CHECK(strikes_of(rs[0].reply.detail) == 3);
  CHECK(rs[0].reply.detail.find("(device 1)") != std::string::npos);
  CHECK(rs[0].reply.detail.find("devices 0, 1") == std::string::npos);
  for (std::size_t i = 1; i < js.size(); ++i)
    CHECK(rs[i].reply.status == MeasureStatus::ok);
  CHECK(pool.counters().poison == 1);
  REQUIRE(pool.devices().size() == 2);
  CHECK(pool.devices()[0].done == 0);
  CHECK(pool.devices()[0].poison == 0);
  CHECK(pool.devices()[1].poison == 1);
}

TEST_CASE("device_pool: poison pairs remembered from before count towards the config's "
          "inference, the first new shape included") {
  const Config poison = cfg(64, 128, 64, 4, 4, 8);
  PoolOptions o = options("--poison-config '" + poison.brief() + "'", {"0"});
  o.backoff_s = 0.001;
  o.poison_config_after = 2;
  DevicePool pool(o);
  const auto js = jobs(92); // 88 with the first config, 4 with the poison one
  // The last two lecture shapes were poison pairs of an earlier run; the jobs' poison pairs are
  // on the first four.
  pool.remember_poison(tv::test::lecture_shapes()[86], poison, false);
  pool.remember_poison(tv::test::lecture_shapes()[87], poison, false);
  const auto rs = pool.run(js);
  int poisoned = 0;
  for (std::size_t i = 0; i < js.size(); ++i) {
    INFO("job " << i << ": " << rs[i].reply.detail);
    if (js[i].config != poison) {
      CHECK(rs[i].reply.status == MeasureStatus::ok);
      continue;
    }
    ++poisoned;
    CHECK(rs[i].reply.status == MeasureStatus::crash);
    CHECK(rs[i].reply.detail.find("poison pair: it faulted alone on its worker once") == 0);
    CHECK(rs[i].reply.detail.find("and its config is a poison pair on ") != std::string::npos);
  }
  CHECK(poisoned == 4);
  CHECK(pool.counters().poison == 4);

  // A poison pair of the vendor library is another key: with it and one pair of the config
  // remembered, the config is a poison pair on one other shape only, so some new shape of it
  // still takes every strike.
  DevicePool other(o);
  other.remember_poison(tv::test::lecture_shapes()[86], poison, false);
  other.remember_poison(tv::test::lecture_shapes()[85], poison, true);
  const auto again = other.run(js);
  int every_strike = 0;
  for (std::size_t i = 0; i < js.size(); ++i)
    if (js[i].config == poison) {
      INFO("job " << i << ": " << again[i].reply.detail);
      CHECK(again[i].reply.status == MeasureStatus::crash);
      if (strikes_of(again[i].reply.detail) >= 3) ++every_strike;
    }
  CHECK(every_strike >= 1);
  CHECK(other.counters().poison == 4);
}

TEST_CASE("device_pool: a device that keeps failing to start retires with its reason after "
          "backing off") {
  PoolOptions o = options("--exit-at-hello --fault-device 1");
  o.backoff_s = 0.2;
  const auto t0 = std::chrono::steady_clock::now();
  DevicePool pool(o);
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  CHECK(took >= 0.2); // the third start waited for the back-off (0.2 s after the second fault)
  CHECK(pool.devices()[1].retired);
  CHECK(pool.devices()[1].error.find("failed to start 3 times in a row") != std::string::npos);
  CHECK(pool.devices()[1].failed_starts == 3);
  CHECK(pool.devices()[1].restarts == 2);
  CHECK(pool.any_alive());
}

TEST_CASE("device_pool: without --devices the first worker says how many to start") {
  PoolOptions o = options("--devices 3", {});
  DevicePool pool(o);
  REQUIRE(pool.devices().size() == 3);
  CHECK(pool.devices()[2].id == "2");
  CHECK(pool.devices()[2].command.find("--device 2") != std::string::npos);
  const auto js = jobs(30);
  check_all_measured(js, pool.run(js));
}

} // namespace device_pool_test
