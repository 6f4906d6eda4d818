// The measured backend with fake workers behind a real measurement file: cache first, then
// workers; failures as data; the table of what was measured; vendor; noise.
#include "eval/analytic_backend.hpp"
#include "eval/backends/measured_backend.hpp"
#include "eval/noise.hpp"
#include "eval/replay_backend.hpp"
#include "ir/error.hpp"
#include "models/analytic_model.hpp"

#include "support/fake_worker.hpp"
#include "support/fixtures.hpp"
#include "support/temp_dir.hpp"

#include <doctest/doctest.h>

#include <cmath>

// In a namespace of its own: the test files are compiled several to a unit (unity build).
namespace measured_backend_test {

using namespace tv;
using tv::test::cfg;
using tv::test::fake_worker_cmd;
using tv::test::shape;

namespace {

PoolOptions pool(const std::string& args = "", std::vector<std::string> devices = {"0", "1"}) {
  PoolOptions o;
  o.command = fake_worker_cmd(args);
  o.devices = std::move(devices);
  o.timeout_s = 5;
  o.reps = 5;
  return o;
}

std::vector<TimingRequest> requests() {
  std::vector<TimingRequest> out;
  for (const Config& c : {cfg(128, 128, 64, 4, 3, 8), cfg(64, 128, 64, 4, 4, 8)})
    for (std::int64_t m : {1, 16, 128, 1024, 4096})
      out.push_back({shape(m, 4096, 4096), c});
  return out;
}

} // namespace

TEST_CASE("measured_backend: measures once, then answers from the file, run after run") {
  tv::test::ScratchDir dir("tv_measured");
  const std::string cache = dir.at("m.csv");
  const Gpu& h100 = tv::test::gpu("h100");
  std::vector<TimingRequest> batch = requests();
  batch.push_back(batch.front()); // a pair asked twice in one batch is measured once
  std::vector<Measurement> first;
  {
    MeasuredBackend b(h100, pool(), cache);
    CHECK(b.name() == "measured: NVIDIA H100 SXM5 80GB (fake) x2 (tilevolve-fake-worker 1), "
                      "cache " +
                          cache);
    first = b.time(batch);
    CHECK(b.counters().measured == 10);
    CHECK(b.counters().from_cache == 0);
    CHECK(b.counters().requested == 10); // the repeat counts once
    CHECK(b.store().appended() == 10);
    for (std::size_t i = 0; i < batch.size(); ++i) {
      REQUIRE(first[i].ok());
      const double model = model_time(batch[i].shape, batch[i].config, h100);
      CHECK(std::abs(first[i].seconds / model - 1) <= 0.0100001);
    }
    CHECK(first.back().seconds == first.front().seconds);
    // Asked again in the same run: the cache answers.
    b.time(batch);
    CHECK(b.counters().measured == 10);
    CHECK(b.counters().from_cache == 10);
  }
  MeasuredBackend again(h100, pool("", {"0"}), cache);
  const auto second = again.time(batch);
  CHECK(again.counters().measured == 0);
  CHECK(again.counters().from_cache == 10);
  CHECK(second.back().seconds == second.front().seconds);
  for (std::size_t i = 0; i < batch.size(); ++i)
    CHECK(second[i].seconds == first[i].seconds);
  // Another worker version is another key: measured anew, into the same file.
  MeasuredBackend upgraded(h100, pool("--worker-version 2", {"0"}), cache);
  upgraded.time(batch);
  CHECK(upgraded.counters().measured == 10);
  CHECK(upgraded.store().foreign() == 10);
}

TEST_CASE("measured_backend: failed pairs carry no time and are remembered") {
  tv::test::ScratchDir dir("tv_measured");
  const std::string cache = dir.at("m.csv");
  const std::vector<TimingRequest> batch = {{shape(128, 4096, 4096), cfg(256, 128, 64, 4, 3, 8)},
                                            {shape(128, 4096, 4096), cfg(64, 128, 64, 4, 4, 8)}};
  {
    MeasuredBackend b(tv::test::gpu("h100"), pool("--wrong-result-bm 64"), cache);
    const auto got = b.time(batch);
    CHECK(got[0].status == MeasureStatus::unlaunchable);
    CHECK(got[1].status == MeasureStatus::wrong_result);
    CHECK(std::isinf(got[0].seconds));
    CHECK(std::isinf(got[1].seconds));
  }
  // A healthy worker now: the recorded failures stand (nothing is measured twice).
  MeasuredBackend b(tv::test::gpu("h100"), pool(), cache);
  CHECK(b.time(batch)[1].status == MeasureStatus::wrong_result);
  CHECK(b.counters().measured == 0);
}

TEST_CASE("measured_backend: pairs left when every device retired are errors, not cached, and "
          "no worker left is fatal") {
  tv::test::ScratchDir dir("tv_measured");
  const std::string cache = dir.at("m.csv");
  {
    PoolOptions o = pool("--crash-after 0", {"0"});
    o.backoff_s = 0.001; // it faults max_faults_in_row times before it retires: back off briefly
    MeasuredBackend b(tv::test::gpu("h100"), o, cache);
    try {
      b.time(requests());
      FAIL("every worker crashed: time() must say so");
    } catch (const InputError& e) {
      const std::string what = e.what();
      CHECK(what.find("no worker is left to measure with") != std::string::npos);
      CHECK(what.find(cache) != std::string::npos);
      CHECK(what.find("crashing as asked") != std::string::npos); // the worker's stderr
    }
    CHECK(b.counters().errors > 0);
    CHECK(b.store().appended() == 0);
  }
  MeasuredBackend healthy(tv::test::gpu("h100"), pool(), cache);
  CHECK(healthy.store().loaded() == 0);
  for (const auto& m : healthy.time(requests()))
    CHECK(m.ok());
}

TEST_CASE("measured_backend: workers that cannot start or disagree are refused with reasons") {
  tv::test::ScratchDir dir("tv_measured");
  try {
    MeasuredBackend b(tv::test::gpu("h100"), pool("--exit-at-hello"), dir.at("m.csv"));
    FAIL("no worker started");
  } catch (const InputError& e) {
    const std::string what = e.what();
    CHECK(what.find("no worker started") != std::string::npos);
    CHECK(what.find("device 1") != std::string::npos);
    CHECK(what.find("exited with status 3") != std::string::npos);
  }
  CHECK_THROWS_WITH_AS(
      MeasuredBackend(tv::test::gpu("h100"), pool("--device-name 'GPU {device}'"), dir.at("m.csv")),
      doctest::Contains("the workers report different devices"), InputError);
}

TEST_CASE("measured_backend: the table holds what was measured, as replay reads the file") {
  tv::test::ScratchDir dir("tv_measured");
  const std::string cache = dir.at("m.csv");
  const Gpu& h100 = tv::test::gpu("h100");
  MeasuredBackend b(h100, pool(), cache);
  b.time(requests());
  b.time({{shape(1, 4096, 4096), cfg(256, 128, 64, 4, 3, 8)}}); // unlaunchable: a column of inf
  std::vector<Shape> shapes = {shape(1, 4096, 4096), shape(128, 4096, 4096), shape(77, 4096, 4096)};
  for (std::size_t i = 0; i < shapes.size(); ++i)
    shapes[i].name = "s" + std::to_string(i);
  const TimeTable t = b.table(shapes);
  REQUIRE(t.configs().size() == 3);
  CHECK(std::isinf(t.time(2, 0))); // M = 77 was never measured
  CHECK(std::isfinite(t.time(1, std::size_t(t.config_index(cfg(64, 128, 64, 4, 4, 8))))));
  CHECK(std::isinf(t.time(0, std::size_t(t.config_index(cfg(256, 128, 64, 4, 3, 8))))));
  CHECK(!b.complete_table());
  CHECK(b.noisy());
  ReplayBackend replay(cache, ReplayFilter{}, h100);
  CHECK(!replay.complete_table());
  CHECK(replay.noisy());
  const TimeTable r = replay.table(shapes);
  REQUIRE(r.configs() == t.configs());
  for (std::size_t i = 0; i < shapes.size(); ++i)
    for (std::size_t c = 0; c < t.configs().size(); ++c)
      CHECK(
          (r.time(i, c) == t.time(i, c) || (std::isinf(r.time(i, c)) && std::isinf(t.time(i, c)))));
  // A config never measured is unmeasured in the replay (and can be asked for).
  CHECK(!replay.cannot_time(cfg(32, 32, 32, 4, 3, 8), DType::bf16));
  CHECK(replay.time({{shapes[2], cfg(32, 32, 32, 4, 3, 8)}})[0].status ==
        MeasureStatus::unmeasured);
}

TEST_CASE("measured_backend: poison pairs another run appends meanwhile count towards "
          "--poison-config-after") {
  tv::test::ScratchDir dir("tv_measured");
  const std::string cache = dir.at("m.csv");
  const Config poison = cfg(128, 128, 64, 4, 3, 8), healthy = cfg(64, 128, 64, 4, 4, 8);
  // One device, so that the strike counts do not depend on scheduling: with one device left,
  // a pair is poison after every strike (3) on it, or after one once its config is known, and
  // a fault counts only on a device that has delivered a result.
  PoolOptions o = pool("--poison-config '" + poison.brief() + "'", {"0"});
  o.backoff_s = 0.001; // every strike restarts a worker: back off briefly
  std::vector<TimingRequest> two, third, warm;
  for (std::int64_t m : {128, 256}) {
    two.push_back({shape(m, 4096, 4096), poison});
    two.push_back({shape(m, 4096, 4096), healthy});
  }
  third.push_back({shape(512, 4096, 4096), poison});
  third.push_back({shape(512, 4096, 4096), healthy});
  warm.push_back({shape(1024, 4096, 4096), healthy});
  // Both runs open the file while it is empty: what the other finds comes in as they go.
  MeasuredBackend a(tv::test::gpu("h100"), o, cache);
  MeasuredBackend b(tv::test::gpu("h100"), o, cache);
  const auto by_b = b.time(two);
  CHECK(by_b[0].status == MeasureStatus::crash);
  CHECK(by_b[2].status == MeasureStatus::crash);
  CHECK(b.pool().counters().poison == 2);
  REQUIRE(a.time(warm)[0].ok()); // a's device has delivered a result
  // a learns b's two poison pairs before it measures: its own first one is poison after one
  // fault alone, not three.
  const auto by_a = a.time(third);
  INFO("a's pair: " << by_a[0].detail);
  CHECK(by_a[0].status == MeasureStatus::crash);
  CHECK(by_a[0].detail.find("poison pair: it faulted alone on its worker once (device 0), and its "
                            "config is a poison pair on 2 other shapes") == 0);
  CHECK(by_a[1].ok());
  CHECK(a.pool().counters().poison == 1);
  CHECK(a.store().from_others() == 4);
  // b's pairs themselves come from the file: a sends nothing for them.
  const long long sent = a.pool().counters().sent;
  const auto again = a.time(two);
  CHECK(again[0].status == MeasureStatus::crash);
  CHECK(again[2].status == MeasureStatus::crash);
  CHECK(a.pool().counters().sent == sent);
  CHECK(a.counters().from_cache == 4);
  // A run that never heard of them needs every strike.
  MeasuredBackend fresh(tv::test::gpu("h100"), o, dir.at("other.csv"));
  REQUIRE(fresh.time(warm)[0].ok());
  const auto alone = fresh.time(third);
  INFO("the fresh run's pair: " << alone[0].detail);
  CHECK(alone[0].status == MeasureStatus::crash);
  CHECK(alone[0].detail.find("poison pair: it faulted alone on its worker 3 times (device 0)") ==
        0);
  CHECK(alone[0].detail.find("other shape") == std::string::npos);
}

TEST_CASE("measured_backend: the vendor library is measured once per shape on request") {
  tv::test::ScratchDir dir("tv_measured");
  const std::string cache = dir.at("m.csv");
  const std::vector<Shape> shapes = {shape(16, 4096, 4096), shape(4096, 4096, 4096)};
  {
    MeasuredBackend b(tv::test::gpu("h100"), pool(), cache);
    CHECK(!b.vendor_time(shapes[0]));
    const auto got = b.time_vendor(shapes);
    REQUIRE(got[0].ok());
    REQUIRE(got[1].ok());
    CHECK(b.vendor_time(shapes[1]) == got[1].seconds);
    CHECK(b.vendor_label() == "torch.matmul on NVIDIA H100 SXM5 80GB (fake), measured");
    CHECK(b.counters().measured == 2);
  }
  MeasuredBackend b(tv::test::gpu("h100"), pool(), cache);
  b.time_vendor(shapes);
  CHECK(b.counters().measured == 0);
  CHECK(b.vendor_time(shapes[0]));
  b.time({{shapes[0], cfg(64, 64, 64, 4, 3, 8)}});
  ReplayBackend replay(cache, ReplayFilter{}, tv::test::gpu("h100"));
  CHECK(replay.vendor_time(shapes[0]) == b.vendor_time(shapes[0]));
  CHECK(replay.vendor_label() == "torch.matmul on NVIDIA H100 SXM5 80GB (fake), recorded");
}

TEST_CASE("noise: independent samples of one kernel spread, the model does not") {
  tv::test::ScratchDir dir("tv_measured");
  MeasuredBackend b(tv::test::gpu("h100"), pool("--noise 0.02"), dir.at("m.csv"));
  const Shape s = shape(512, 4096, 4096);
  const Config c = cfg(128, 128, 64, 4, 3, 8);
  const NoiseEstimate e = estimate_noise(b, s, c, 6);
  REQUIRE(e.valid);
  CHECK(e.times.size() == 6);
  CHECK(e.spread > 0);
  CHECK(e.spread < 0.04); // medians of 5 reps of +-2% noise
  CHECK(std::abs(e.median / model_time(s, c, tv::test::gpu("h100")) - 1) < 0.02);
  // The same samples again come from the cache: the estimate repeats exactly.
  CHECK(estimate_noise(b, s, c, 6).spread == e.spread);
  AnalyticBackend model(tv::test::gpu("h100"));
  CHECK(estimate_noise(model, s, c, 6).spread == 0);
  const NoiseEstimate bad = estimate_noise(model, s, cfg(256, 128, 64, 4, 3, 8), 3);
  CHECK(!bad.valid);
  CHECK(bad.problem.find("unlaunchable") != std::string::npos);
}

} // namespace measured_backend_test
