// Version 2 of the measurement file and the store that appends it: keys with device, worker,
// layout, kernel and sample; torn last lines; two writers at once; version 1 still read.
#include "eval/controller/measurement_store.hpp"
#include "eval/measurement_cache.hpp"
#include "ir/error.hpp"
#include "ir/rng.hpp"

#include "support/fixtures.hpp"
#include "support/mutate.hpp"
#include "support/shell.hpp"
#include "support/temp_dir.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <fstream>
#include <set>
#include <sys/wait.h>
#include <unistd.h>

// In a namespace of its own: the test files are compiled several to a unit (unity build).
namespace measurement_store_test {

using namespace tv;
using tv::test::cfg;
using tv::test::ScratchDir;
using tv::test::shape;

namespace {

const std::string kTop2 =
    std::string(kMeasurementCacheV2Line) + "\n" + std::string(kMeasurementCacheV2Header) + "\n";

MeasurementRecord v2_record(double seconds, int sample = 0) {
  MeasurementRecord r;
  r.gpu = "h100";
  r.device = "NVIDIA H200";
  r.worker = "tilevolve-triton-worker 1 (triton 3.1.0, torch 2.5.1)";
  r.shape = shape(128, 4096, 4096);
  r.shape.layout = "NT";
  r.config = cfg(128, 128, 64, 4, 3, 8);
  r.sample = sample;
  r.result.status = MeasureStatus::ok;
  r.result.seconds = seconds;
  r.max_rel_error = 0.0031;
  return r;
}

MeasureReply ok_reply(double seconds) {
  MeasureReply r;
  r.status = MeasureStatus::ok;
  r.seconds = seconds;
  r.times = {seconds};
  r.max_rel_error = 0.001;
  return r;
}

std::string error_of(const std::string& text) {
  try {
    parse_measurement_file(text, "m.csv");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

const MeasurementStore::Family kFamily{"h100", "NVIDIA H200", "worker 1"};

} // namespace

TEST_CASE("measurement_cache v2: the documented columns, read back exactly") {
  MeasurementRecord a = v2_record(1.0 / 3.0 * 1e-4);
  CHECK(format_record_v2(a) ==
        "h100,NVIDIA H200,\"tilevolve-triton-worker 1 (triton 3.1.0, torch 2.5.1)\",128,4096,4096,"
        "bf16,NT,triton,128,128,64,4,3,8,,,,0,ok,3.3333333333333335e-05,0.0031,");
  MeasurementRecord v = v2_record(2e-5);
  v.vendor = true;
  v.config = vendor_config();
  v.shape.layout = "NN";
  v.max_rel_error.reset();
  CHECK(format_record_v2(v) == "h100,NVIDIA H200,\"tilevolve-triton-worker 1 (triton 3.1.0, "
                               "torch 2.5.1)\",128,4096,4096,bf16,NN,vendor,,,,,,,,,,0,ok,2e-05,,");
  MeasurementRecord f = v2_record(1, 3);
  f.result.status = MeasureStatus::wrong_result;
  f.result.seconds = std::numeric_limits<double>::infinity();
  f.result.detail = "max relative error 0.5 > 0.02";
  f.config.waves_per_eu = 2;
  const std::string text =
      kTop2 + format_record_v2(a) + "\n" + format_record_v2(v) + "\n" + format_record_v2(f) + "\n";
  const MeasurementFile file = parse_measurement_file(text, "m.csv");
  CHECK(file.version == 2);
  CHECK(file.warnings.empty());
  REQUIRE(file.records.size() == 3);
  CHECK(file.records[0] == a);
  CHECK(file.records[1] == v);
  CHECK(file.records[2] == f);
  CHECK(file.records[2].sample == 3);
}

TEST_CASE("measurement_cache v2: malformed rows name the file, line and what was expected") {
  const std::string row = "h100,dev,w,128,4096,4096,bf16,";
  CHECK(error_of(kTop2 + row + "XY,triton,128,128,64,4,3,8,,,,0,ok,1e-5,,\n") ==
        "m.csv:3: unknown layout 'XY' (expected NN, NT, TN or TT)");
  CHECK(error_of(kTop2 + row + "NN,cutlass,128,128,64,4,3,8,,,,0,ok,1e-5,,\n") ==
        "m.csv:3: unknown kernel 'cutlass' (expected triton or vendor)");
  CHECK(error_of(kTop2 + row + "NN,vendor,128,,,,,,,,,0,ok,1e-5,,\n") ==
        "m.csv:3: a vendor row must leave the config columns empty");
  CHECK(error_of(kTop2 + row + "NN,triton,128,128,64,4,3,8,,,,-1,ok,1e-5,,\n") ==
        "m.csv:3: sample must be an integer in [0, 1048576], got '-1'");
  CHECK(error_of(kTop2 + row + "NN,triton,128,128,64,4,3,8,,,,0,ok,1e-5,-2,\n") ==
        "m.csv:3: max_rel_error must be a non-negative number, got '-2'");
  CHECK(
      error_of(kTop2 + "h100,,w,128,4096,4096,bf16,NN,triton,128,128,64,4,3,8,,,,0,ok,1e-5,,\n") ==
      "m.csv:3: device must not be empty");
  CHECK(error_of(kTop2 + row + "NN,triton,128,128,64,4,3,8,,,,0,error,1e-5,,\n") ==
        "m.csv:3: status error must have an empty seconds column, got '1e-5'");
  CHECK(error_of(kTop2 + row + "NN,triton,128,128,64,4,3,8,,,,0,ok,1e-5\n") ==
        "m.csv:3: expected 23 comma-separated fields, got 21");
  // A malformed line that is not the last one is an error even when the file ends torn.
  CHECK(error_of(kTop2 + row + "NN\n" + format_record_v2(v2_record(1e-5))) ==
        "m.csv:3: expected 23 comma-separated fields, got 8");
}

TEST_CASE("measurement_cache v2: a torn last line is skipped with a warning, never fatal") {
  const std::string good = format_record_v2(v2_record(1e-5)) + "\n";
  const std::string line = format_record_v2(v2_record(2e-5, 1));
  // Cut at every position: the file always reads; the cut record is either whole or gone.
  for (std::size_t cut = 1; cut < line.size(); ++cut) {
    INFO("cut at " << cut);
    const MeasurementFile f = parse_measurement_file(kTop2 + good + line.substr(0, cut), "m.csv");
    REQUIRE(f.records.size() >= 1);
    CHECK(f.records[0] == v2_record(1e-5));
    if (f.records.size() == 2) {
      // Only a cut inside the detail (the last field) still reads, and then exactly.
      CHECK(f.records[1].result.seconds == 2e-5);
      CHECK(f.records[1].max_rel_error == 0.0031);
      CHECK(f.warnings.empty());
    } else {
      REQUIRE(f.warnings.size() == 1);
      CHECK(f.warnings[0] == "m.csv:4: skipped a truncated last line (the writer was stopped "
                             "mid-line)");
    }
  }
  // Version 1 keeps its strict reading.
  CHECK_THROWS_AS(parse_measurement_file(std::string(kMeasurementCacheVersionLine) + "\n" +
                                             std::string(kMeasurementCacheHeader) + "\nh100,1",
                                         "m.csv"),
                  InputError);
}

TEST_CASE("measurement_cache v2: mutated files parse or throw InputError, never crash") {
  const std::string base = kTop2 + format_record_v2(v2_record(1.5e-5)) + "\n" +
                           format_record_v2(v2_record(2.5e-5, 2)) + "\n";
  const std::string alphabet = ",\n\"#-.0123456789eokinfavNTtrionvend ";
  Rng rng(5);
  int parsed = 0;
  for (int i = 0; i < 2000; ++i) {
    const std::string t = tv::test::mutate_text(base, alphabet, rng);
    try {
      for (const auto& r : parse_measurement_file(t, "m.csv").records) {
        CHECK(r.result.ok() == std::isfinite(r.result.seconds));
        if (r.device.empty()) continue; // a version-1 reading of a mutated version line
        const auto again = parse_measurement_file(kTop2 + format_record_v2(r) + "\n", "again");
        REQUIRE(again.records.size() == 1);
        CHECK(again.records[0] == r);
      }
      ++parsed;
    } catch (const InputError& e) {
      CHECK(std::string(e.what()).rfind("m.csv:", 0) == 0);
    }
  }
  CHECK(parsed > 0);
  CHECK(parsed < 2000);
}

TEST_CASE("measurement_summary: wrong results win, then the median of ok times") {
  const auto m = [](MeasureStatus st, double s = 0) {
    Measurement x;
    x.status = st;
    if (st == MeasureStatus::ok) x.seconds = s;
    x.detail = std::string(status_name(st));
    return x;
  };
  MeasurementSummary a;
  CHECK(a.empty());
  a.add(m(MeasureStatus::unmeasured));
  CHECK(a.empty());
  a.add(m(MeasureStatus::ok, 3));
  a.add(m(MeasureStatus::ok, 1));
  CHECK(a.result().seconds == 2);
  a.add(m(MeasureStatus::timeout));
  CHECK(a.result().ok()); // an ok time beats a later failure
  a.add(m(MeasureStatus::wrong_result));
  CHECK(a.result().status == MeasureStatus::wrong_result);
  CHECK(std::isinf(a.result().seconds));
  MeasurementSummary b;
  b.add(m(MeasureStatus::compile_error));
  b.add(m(MeasureStatus::error));
  CHECK(b.result().status == MeasureStatus::error);
}

TEST_CASE("measurement_store: creates the file, appends one line per result, reads it back") {
  ScratchDir dir("tv_store");
  const std::string path = dir.at("m.csv");
  const Shape s = shape(128, 4096, 4096);
  const Config c = cfg(128, 128, 64, 4, 3, 8);
  {
    MeasurementStore store(path, kFamily);
    CHECK(tv::test::read_text(path) == kTop2);
    CHECK(!store.find(s, c, false, 0));
    CHECK(store.record(s, c, false, 0, ok_reply(1e-5)).seconds == 1e-5);
    CHECK(store.find(s, c, false, 0)->seconds == 1e-5);
    CHECK(!store.find(s, c, false, 1)); // another sample is another key
    // A key already on file is not written again: the first answer stands.
    CHECK(store.record(s, c, false, 0, ok_reply(9e-5)).seconds == 1e-5);
    MeasureReply failed;
    failed.status = MeasureStatus::unlaunchable;
    failed.detail = "out of resources: shared memory";
    store.record(s, cfg(256, 256, 64, 4, 5, 8), false, 0, failed);
    store.record(s, Config{}, true, 0, ok_reply(8e-6));
    CHECK(store.appended() == 3);
  }
  const MeasurementFile f = load_measurement_file(path);
  REQUIRE(f.records.size() == 3);
  CHECK(f.records[0].device == "NVIDIA H200");
  CHECK(f.records[0].shape.layout == "NN");
  CHECK(f.records[1].result.status == MeasureStatus::unlaunchable);
  CHECK(f.records[2].vendor);
  MeasurementStore again(path, kFamily);
  CHECK(again.loaded() == 3);
  CHECK(again.find(s, Config{}, true, 0)->seconds == 8e-6);
  CHECK(again.find(s, cfg(256, 256, 64, 4, 5, 8), false, 0)->status == MeasureStatus::unlaunchable);
  CHECK(again.configs() == std::vector<Config>{c, cfg(256, 256, 64, 4, 5, 8)});
  // Another worker version is another family: nothing of it is ours.
  MeasurementStore other(path, {"h100", "NVIDIA H200", "worker 2"});
  CHECK(other.loaded() == 0);
  CHECK(other.foreign() == 3);
  CHECK(!other.find(s, c, false, 0));
}

TEST_CASE("measurement_store: the poison pairs on file, each once, with their shape and config") {
  ScratchDir dir("tv_store");
  const std::string path = dir.at("m.csv");
  Shape nt = shape(128, 4096, 4096);
  nt.layout = "NT";
  const Config c = cfg(128, 128, 64, 4, 3, 8);
  MeasureReply crash;
  crash.status = MeasureStatus::crash;
  crash.detail = "poison pair: it faulted alone on its worker 3 times (devices 0, 1)";
  MeasureReply failed;
  failed.status = MeasureStatus::unlaunchable;
  {
    MeasurementStore store(path, kFamily);
    CHECK(store.take_new_poison().empty());
    store.record(nt, c, false, 0, crash);
    store.record(nt, c, false, 1, crash); // a re-measurement sample of the same pair
    store.record(shape(64, 1024, 1024), c, false, 0, ok_reply(2e-6));
    store.record(shape(64, 1024, 1024), cfg(256, 256, 64, 4, 5, 8), false, 0, failed);
    store.record(shape(16, 1024, 1024), Config{}, true, 0, crash);
  }
  MeasurementStore again(path, kFamily);
  const auto poison = again.take_new_poison();
  REQUIRE(poison.size() == 2);
  CHECK(again.take_new_poison().empty()); // handed over once
  for (const auto& p : poison) {
    if (p.vendor) {
      CHECK(p.shape.M == 16);
      CHECK(p.shape.layout == "NN");
    } else {
      CHECK(p.config == c);
      CHECK(p.shape.M == 128);
      CHECK(p.shape.N == 4096);
      CHECK(p.shape.K == 4096);
      CHECK(p.shape.dtype == nt.dtype);
      CHECK(p.shape.layout == "NT");
    }
  }
  // Another family's poison pairs are not ours.
  CHECK(MeasurementStore(path, {"h100", "NVIDIA H200", "worker 2"}).take_new_poison().empty());
}

TEST_CASE("measurement_store: two stores on one file never write a key twice") {
  ScratchDir dir("tv_store");
  const std::string path = dir.at("m.csv");
  MeasurementStore a(path, kFamily), b(path, kFamily);
  const Shape s = shape(64, 1024, 1024);
  const Config c = cfg(64, 64, 64, 4, 3, 8);
  a.record(s, c, false, 0, ok_reply(2e-6));
  // b has not seen a's line yet; recording the same key reads it first and keeps a's answer.
  CHECK(b.record(s, c, false, 0, ok_reply(7e-6)).seconds == 2e-6);
  CHECK(b.from_others() == 1);
  CHECK(b.appended() == 0);
  CHECK(load_measurement_file(path).records.size() == 1);
}

TEST_CASE("measurement_store: refresh reads another run's lines, and its new poison pairs "
          "are handed over once, never this store's own") {
  ScratchDir dir("tv_store");
  const std::string path = dir.at("m.csv");
  MeasurementStore a(path, kFamily), b(path, kFamily);
  MeasureReply crash;
  crash.status = MeasureStatus::crash;
  crash.detail = "poison pair: it faulted alone on its worker 3 times (devices 0, 1)";
  const Config c = cfg(128, 128, 64, 4, 3, 8);
  const Shape s1 = shape(128, 4096, 4096), s2 = shape(64, 4096, 4096);
  b.record(s1, c, false, 0, crash);
  b.record(s1, c, false, 1, crash); // a second sample of the same pair
  b.record(s2, c, false, 0, ok_reply(3e-6));
  // Nothing read yet: a knows nothing of b's lines.
  CHECK(!a.find(s1, c, false, 0));
  CHECK(a.take_new_poison().empty());
  a.refresh();
  CHECK(a.from_others() == 3);
  CHECK(a.find(s2, c, false, 0)->seconds == 3e-6);
  CHECK(a.find(s1, c, false, 0)->status == MeasureStatus::crash);
  const auto poison = a.take_new_poison();
  REQUIRE(poison.size() == 1);
  CHECK(poison[0].config == c);
  CHECK(poison[0].shape.M == 128);
  CHECK(!poison[0].vendor);
  CHECK(a.take_new_poison().empty()); // handed over once
  // a's own poison pair is a's pool's already: not handed over.
  a.record(shape(16, 4096, 4096), c, false, 0, crash);
  CHECK(a.take_new_poison().empty());
  // One that record() reads on its way in is handed over too.
  b.record(shape(32, 4096, 4096), Config{}, true, 0, crash);
  a.record(shape(8, 4096, 4096), c, false, 0, ok_reply(1e-6));
  const auto vendor = a.take_new_poison();
  REQUIRE(vendor.size() == 1);
  CHECK(vendor[0].vendor);
  CHECK(vendor[0].shape.M == 32);
  // refresh with nothing new reads nothing.
  const std::size_t before = a.from_others();
  a.refresh();
  CHECK(a.from_others() == before);
}

TEST_CASE("measurement_store: processes appending at once leave whole lines, each key once") {
  ScratchDir dir("tv_store");
  const std::string path = dir.at("m.csv");
  constexpr int kProcs = 4, kKeys = 150;
  std::vector<pid_t> kids;
  for (int p = 0; p < kProcs; ++p) {
    const pid_t pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
      int status = 0;
      try {
        MeasurementStore store(path, kFamily);
        // Every process records every key, in its own order.
        for (int i = 0; i < kKeys; ++i) {
          const int k = (i * (2 * p + 1)) % kKeys;
          store.record(shape(k + 1, 1024, 1024), cfg(64, 64, 64, 4, 3, 8), false, 0,
                       ok_reply(1e-6 * (p + 1)));
        }
      } catch (...) {
        status = 1;
      }
      ::_exit(status);
    }
    kids.push_back(pid);
  }
  for (pid_t pid : kids) {
    int st = 0;
    REQUIRE(::waitpid(pid, &st, 0) == pid);
    CHECK(WIFEXITED(st));
    CHECK(WEXITSTATUS(st) == 0);
  }
  const MeasurementFile f = load_measurement_file(path);
  CHECK(f.warnings.empty());
  CHECK(f.records.size() == std::size_t(kKeys));
  std::set<std::int64_t> ms;
  for (const auto& r : f.records)
    ms.insert(r.shape.M);
  CHECK(ms.size() == std::size_t(kKeys));
}

TEST_CASE("measurement_store: a torn last line is cut off or finished by the next writer") {
  ScratchDir dir("tv_store");
  const std::string path = dir.at("m.csv");
  const std::string whole = format_record_v2(v2_record(1e-5)) + "\n";
  MeasurementRecord rec = v2_record(3e-5);
  rec.gpu = kFamily.gpu;
  rec.device = kFamily.device;
  rec.worker = kFamily.worker;
  rec.shape.M = 256;
  rec.result.detail = "some detail";
  const std::string torn = format_record_v2(rec);
  // Cut inside the seconds: it cannot be read, so the store removes it.
  std::ofstream(path, std::ios::binary) << kTop2 << whole << torn.substr(0, torn.find("3e-05") + 2);
  {
    MeasurementStore store(path, kFamily);
    REQUIRE(store.warnings().size() == 1);
    CHECK(store.warnings()[0].find("m.csv:4: cut off a truncated last line") != std::string::npos);
    CHECK(tv::test::read_text(path) == kTop2 + whole);
    store.record(shape(1, 2, 3), cfg(64, 64, 64, 4, 3, 8), false, 0, ok_reply(1e-6));
  }
  CHECK(load_measurement_file(path).records.size() == 2);
  // Cut inside the detail: it still reads exactly, so the store finishes the line.
  std::ofstream(path, std::ios::binary) << kTop2 << whole << torn.substr(0, torn.size() - 3);
  MeasurementStore store(path, kFamily);
  CHECK(store.warnings().empty());
  CHECK(store.find(rec.shape, rec.config, false, 0)->seconds == 3e-5);
  CHECK(load_measurement_file(path).records.size() == 2);
}

TEST_CASE("measurement_store: version-1 files and other files are refused with a reason") {
  ScratchDir dir("tv_store");
  const std::string v1 = dir.write("v1.csv", std::string(kMeasurementCacheVersionLine) + "\n" +
                                                 std::string(kMeasurementCacheHeader) + "\n");
  try {
    MeasurementStore store(v1, kFamily);
    FAIL("a version-1 file must be refused");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()).find("a version-1 measurement file") != std::string::npos);
  }
  const std::string other = dir.write("other.json", "{\"a\": 1}\n");
  CHECK_THROWS_AS(MeasurementStore(other, kFamily), InputError);
  CHECK(tv::test::read_text(other) == "{\"a\": 1}\n");
  CHECK_THROWS_AS(MeasurementStore(dir.at("no/such/dir/m.csv"), kFamily), InputError);
}

} // namespace measurement_store_test
