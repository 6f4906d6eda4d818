#include "eval/autoheuristic_data.hpp"
#include "eval/backend_factory.hpp"
#include "eval/measurement_cache.hpp"
#include "eval/problem.hpp"
#include "eval/replay_backend.hpp"
#include "ir/error.hpp"
#include "ir/text.hpp"
#include "models/data_dir.hpp"
#include "models/gpu.hpp"
#include "models/launch.hpp"
#include "models/shape_file.hpp"
#include "support/temp_dir.hpp"

#include "support/fixtures.hpp"

#include <doctest/doctest.h>
#include <fmt/format.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>

// In a namespace of its own: the test files are compiled several to a unit (unity build).
namespace replay_backend_test {

using namespace tv;
namespace fs = std::filesystem;

namespace {

using tv::test::gpu;

using tv::test::cfg;

using tv::test::ScratchDir;

using tv::test::shape;

MeasurementRecord record(const std::string& gpu, const Shape& s, const Config& c, MeasureStatus st,
                         double seconds = 0) {
  MeasurementRecord r;
  r.gpu = gpu;
  r.shape = s;
  r.config = c;
  r.result.status = st;
  if (st == MeasureStatus::ok) r.result.seconds = seconds;
  return r;
}

/// The shapes and configs of the small files of our format the tests below write.
struct TwoShapesThreeConfigs {
  Shape a = shape(128, 4096, 4096), b = shape(1, 4096, 4096);
  Config c1 = cfg(128, 128, 64, 4, 3, 8), c2 = cfg(64, 64, 32, 4, 2, 1),
         c3 = cfg(16, 64, 128, 4, 4, 1);
};

Measurement time_one(ReplayBackend& b, const Shape& s, const Config& c) {
  return b.time({TimingRequest{s, c}}).at(0);
}

/// Every (shape, config) of the table must read the same from time().
void check_table_agrees(ReplayBackend& b, const std::vector<Shape>& shapes) {
  const TimeTable t = b.table(shapes);
  REQUIRE(t.configs() == b.configs());
  std::vector<TimingRequest> batch;
  for (const auto& s : shapes)
    for (const auto& c : t.configs())
      batch.push_back({s, c});
  const auto ms = b.time(batch);
  std::size_t i = 0;
  for (std::size_t r = 0; r < shapes.size(); ++r)
    for (std::size_t c = 0; c < t.configs().size(); ++c, ++i) {
      if (ms[i].ok())
        CHECK(t.time(r, c) == ms[i].seconds);
      else
        CHECK(std::isinf(t.time(r, c)));
    }
}

const std::string kJson = R"({"shared_memory": 232448, "device_capa": [9, 0], "name": "mm"})";
const std::string kHeader =
    "m,k,n,mat1_dtype,mat2_dtype,mat1_stride_0,mat1_stride_1,mat2_stride_0,mat2_stride_1,"
    "mat1_iscontig,mat2_iscontig,using_tf32,choice,feedback";

/// One AutoHeuristic row of an NN bf16 GEMM (m, k, n in the file's order).
std::string ah_row(std::int64_t m, std::int64_t n, std::int64_t k, const std::string& choice,
                   const std::string& ms, const std::string& dtype = "torch.bfloat16") {
  return fmt::format("{},{},{},{},{},{},1,{},1,True,True,not_float_32,{},{}\n", m, k, n, dtype,
                     dtype, k, n, choice, ms);
}

std::string triton(int bm, int bn, int bk, int warps, int stages) {
  return fmt::format("type=triton_BLOCK-M={}_BLOCK-K={}_BLOCK-N={}_numstages={}_numwarps={}", bm,
                     bk, bn, stages, warps);
}

/// A small AutoHeuristic file: two full-size keys and one small-M key recorded under the
/// shrunk configs, plus a failed config, vendor rows, and rows other filters must drop.
std::string small_dataset() {
  std::string t = kJson + "\n" + kHeader + "\n";
  for (const std::string ms : {"0.30", "0.10", "0.20"}) // median 0.20 ms
    t += ah_row(4096, 4096, 4096, triton(128, 128, 64, 4, 3), ms);
  t += ah_row(4096, 4096, 4096, triton(64, 64, 32, 4, 2), "0.5");
  t += ah_row(4096, 4096, 4096, triton(128, 64, 128, 8, 5), "inf");
  t += ah_row(4096, 4096, 4096, "extern_mm", "0.15");
  t += ah_row(4096, 4096, 4096, "extern_mm", "0.25");
  t += ah_row(2048, 1024, 512, triton(128, 128, 64, 4, 3), "0.05");
  t += ah_row(2048, 1024, 512, triton(64, 64, 32, 4, 2), "0.07");
  t += ah_row(2048, 1024, 512, triton(128, 64, 128, 8, 5), "0.09");
  // M = 8: Inductor shrinks BM to 16 and warps to 16*128/256 = 8, 16*64/256 = 4.
  t += ah_row(8, 4096, 4096, triton(16, 128, 64, 4, 3), "0.02");
  t += ah_row(8, 4096, 4096, triton(16, 64, 32, 4, 2), "0.03");
  // Other layouts and dtypes the default filter drops.
  t += "4096,4096,4096,torch.bfloat16,torch.bfloat16,4096,1,1,4096,True,False,not_float_32," +
       triton(256, 256, 64, 8, 3) + ",0.01\n";
  t += ah_row(4096, 4096, 4096, triton(32, 32, 32, 2, 2), "0.01", "torch.float32");
  return t;
}

} // namespace

TEST_CASE("replay_backend: our format: median, failures, unmeasured, other gpus") {
  ScratchDir dir("tv_replay_test");
  const std::string path = dir.path + "/cache.csv";
  const auto [a, b, c1, c2, c3] = TwoShapesThreeConfigs{};
  for (double s : {3e-5, 1e-5, 2e-5})
    append_record(path, record("h100", a, c1, MeasureStatus::ok, s));
  append_record(path, record("h100", b, c1, MeasureStatus::ok, 4e-5));
  append_record(path, record("h100", b, c1, MeasureStatus::ok, 6e-5));
  append_record(path, record("h100", a, c2, MeasureStatus::compile_error));
  append_record(path, record("h100", b, c2, MeasureStatus::ok, 1e-5));
  append_record(path, record("h100", b, c2, MeasureStatus::wrong_result));
  append_record(path, record("h100", b, c3, MeasureStatus::timeout));
  append_record(path, record("h100", b, c3, MeasureStatus::unlaunchable));
  append_record(path, record("mi300x", a, c3, MeasureStatus::ok, 1e-6));

  ReplayBackend rb(path, ReplayFilter{}, gpu("h100"));
  CHECK(!rb.autoheuristic());
  CHECK(rb.name() == "replay:" + path + " (h100)");
  CHECK(rb.recorded_pairs() == 5);
  const auto m = rb.time({{a, c1},
                          {b, c1},
                          {a, c2},
                          {b, c2},
                          {b, c3},
                          {a, c3},
                          {shape(2, 4096, 4096), c1},
                          {a, cfg(128, 128, 64, 4, 3, 1)}});
  REQUIRE(m.size() == 8);
  CHECK(m[0].ok());
  CHECK(m[0].seconds == 2e-5);                  // median of three
  CHECK(m[1].seconds == doctest::Approx(5e-5)); // median of two = their mean
  CHECK(m[2].status == MeasureStatus::compile_error);
  CHECK(m[3].status == MeasureStatus::wrong_result); // a wrong result beats an ok time
  CHECK(m[4].status == MeasureStatus::unlaunchable); // the last failure recorded
  CHECK(m[5].status == MeasureStatus::unmeasured);   // only the mi300x has it
  CHECK(m[6].status == MeasureStatus::unmeasured);
  CHECK(m[7].status == MeasureStatus::unmeasured); // our format keeps the group
  for (std::size_t i = 2; i < m.size(); ++i) {
    CHECK(!m[i].ok());
    CHECK(std::isinf(m[i].seconds));
  }
  CHECK(m[6].detail.find("has no measurement for 2x4096x4096 bf16 in cache") != std::string::npos);

  CHECK(rb.configs() == std::vector<Config>{c3, c2, c1}); // sorted
  CHECK(!rb.cannot_time(c1, DType::bf16));
  CHECK(rb.cannot_time(c2, DType::bf16)); // a compile error and a wrong result: no time
  const auto only_failed = rb.cannot_time(c3, DType::bf16);
  REQUIRE(only_failed);
  CHECK(*only_failed == "16x64x128 w4 s4 g1 has only failed measurements for bf16 in cache");
  const auto outside = rb.cannot_time(cfg(256, 128, 64, 8, 3, 8), DType::bf16);
  REQUIRE(outside);
  CHECK(outside->rfind("256x128x64 w8 s3 g8 has no recorded measurements in cache (configs: "
                       "16x64x128 w4 s4 g1, 64x64x32 w4 s2 g1, 128x128x64 w4 s3 g8)",
                       0) == 0);
  const auto no_dtype = rb.cannot_time(c1, DType::f16);
  REQUIRE(no_dtype);
  CHECK(*no_dtype == "cache has no successful f16 measurements (it has: bf16)");

  Shape na = a, nb = b;
  na.name = "a";
  nb.name = "b";
  check_table_agrees(rb, {na, nb});
  const TimeTable t = rb.table({na, nb});
  CHECK(t.oracle_time(0) == 2e-5);
  CHECK(t.config_index(cfg(128, 128, 64, 4, 3, 1)) < 0);

  CHECK(rb.shapes().size() == 2);
  CHECK(rb.shapes()[0].name == "h100:bf16:M1:N4096:K4096");
  CHECK(!rb.vendor_time(a));

  // The same file for another GPU keeps only that GPU's rows; a GPU with none is an error.
  ReplayBackend amd(path, ReplayFilter{}, gpu("mi300x"));
  CHECK(amd.recorded_pairs() == 1);
  CHECK_THROWS_WITH_AS(ReplayBackend(path, ReplayFilter{}, gpu("mi355x")),
                       doctest::Contains("no measurements for gpu 'mi355x' (the file has gpus: "
                                         "h100, mi300x)"),
                       InputError);
  ReplayFilter f16_only;
  f16_only.dtypes = {DType::f16};
  CHECK_THROWS_AS(ReplayBackend(path, f16_only, gpu("h100")), InputError);
}

TEST_CASE("replay_backend: a version-2 file read as a table, and as the record of a run") {
  ScratchDir dir("tv_replay_table_test");
  const std::string path = dir.path + "/measured.csv";
  const auto [a, b, c1, c2, c3] = TwoShapesThreeConfigs{};
  std::string text = fmt::format("{}\n{}\n", kMeasurementCacheV2Line, kMeasurementCacheV2Header);
  const auto append_v2 = [&](MeasurementRecord r) {
    r.device = "NVIDIA H100 80GB HBM3";
    r.worker = "w 1";
    text += format_record_v2(r) + "\n";
    std::ofstream(path, std::ios::binary) << text;
  };
  const auto add = [&](const Shape& s, const Config& c, MeasureStatus st, double t, int sample) {
    MeasurementRecord r = record("h100", s, c, st, t);
    r.sample = sample;
    append_v2(r);
  };
  // c1 and c2 on both shapes (c1 measured three times on a), c3 on a only (a measured run's
  // extra); the vendor library on both.
  add(a, c1, MeasureStatus::ok, 1e-5, 0);
  add(a, c1, MeasureStatus::ok, 3e-5, 1);
  add(a, c1, MeasureStatus::ok, 2e-5, 2);
  add(b, c1, MeasureStatus::ok, 4e-5, 0);
  add(a, c2, MeasureStatus::ok, 5e-5, 0);
  add(b, c2, MeasureStatus::compile_error, 0, 0);
  add(a, c3, MeasureStatus::ok, 6e-6, 0);
  MeasurementRecord v = record("h100", a, vendor_config(), MeasureStatus::ok, 7e-6);
  v.vendor = true;
  append_v2(v);
  REQUIRE(load_measurement_file(path).version == 2);

  // As the record of a run: any config can be asked for, samples are answered apart.
  ReplayBackend run(path, ReplayFilter{}, gpu("h100"));
  CHECK(run.noisy());
  CHECK(!run.complete_table());
  CHECK(!run.cannot_time(cfg(256, 128, 64, 8, 3, 8), DType::bf16));
  CHECK(run.time({{a, c1, 1}})[0].seconds == 3e-5);

  // As a table: one median per pair for every sample, the configs recorded at every shape.
  ReplayFilter as_table;
  as_table.table = true;
  ReplayBackend table(path, as_table, gpu("h100"));
  CHECK(table.name() == "table:" + path + " (h100)");
  CHECK(!table.noisy());
  CHECK(table.complete_table());
  CHECK(table.configs() == std::vector<Config>{c2, c1}); // c3 is left out
  const auto m = table.time({{a, c1, 0}, {a, c1, 1}, {a, c1, 7}, {b, c2, 0}, {a, c3, 0}});
  CHECK(m[0].seconds == 2e-5);
  CHECK(m[1].seconds == 2e-5);
  CHECK(m[2].seconds == 2e-5);
  CHECK(m[3].status == MeasureStatus::compile_error);
  CHECK(m[4].status == MeasureStatus::unmeasured);
  const auto outside = table.cannot_time(c3, DType::bf16);
  REQUIRE(outside);
  CHECK(outside->find("has no recorded measurements in measured (configs: 64x64x32 w4 s2 g1, "
                      "128x128x64 w4 s3 g8)") != std::string::npos);
  CHECK(!table.cannot_time(c1, DType::bf16));
  CHECK(table.shapes().size() == 2);
  CHECK(table.shapes()[0].layout == "NN"); // version 2 records the layout
  CHECK(table.vendor_time(a) == 7e-6);
  CHECK(table.vendor_label() == "torch.matmul on NVIDIA H100 80GB HBM3, recorded");
  check_table_agrees(table, {a, b});
  // The spelling reaches it.
  CHECK(make_backend("table:" + path, gpu("h100"))->complete_table());
  CHECK(make_backend("replay:" + path, gpu("h100"))->noisy());
  CHECK(replay_file_of("table:" + path) == path);
  CHECK_THROWS_WITH_AS(make_backend("table:", gpu("h100")),
                       doctest::Contains("backend 'table:' needs a file"), InputError);

  // A file where no config is recorded at every shape is no table.
  const std::string sparse = dir.path + "/sparse.csv";
  text = fmt::format("{}\n{}\n", kMeasurementCacheV2Line, kMeasurementCacheV2Header);
  for (const auto& [s, c] : {std::pair{a, c1}, {b, c2}}) {
    MeasurementRecord r = record("h100", s, c, MeasureStatus::ok, 1e-5);
    r.device = "d";
    r.worker = "w";
    text += format_record_v2(r) + "\n";
  }
  std::ofstream(sparse, std::ios::binary) << text;
  CHECK_THROWS_WITH_AS(ReplayBackend(sparse, as_table, gpu("h100")),
                       doctest::Contains("no config is recorded at every shape of its dtype"),
                       InputError);
}

TEST_CASE("replay_backend: AutoHeuristic data is looked up as Inductor launches it") {
  ScratchDir dir("tv_replay_test");
  const std::string path = dir.write("small_mm.txt", small_dataset());
  ReplayFilter nn;
  nn.layout = "NN";
  ReplayBackend rb(path, nn, gpu("h100"));
  CHECK(rb.autoheuristic());
  // The space: the configs recorded where nothing shrinks (not the M=8 rows).
  const std::vector<Config> space = {cfg(64, 64, 32, 4, 2, 8), cfg(128, 64, 128, 8, 5, 8),
                                     cfg(128, 128, 64, 4, 3, 8)};
  CHECK(rb.configs() == space);

  const Shape big = shape(4096, 4096, 4096), mid = shape(2048, 1024, 512),
              small = shape(8, 4096, 4096);
  const Config c = cfg(128, 128, 64, 4, 3, 8);
  const auto m = time_one(rb, big, c);
  REQUIRE(m.ok());
  CHECK(m.seconds == doctest::Approx(0.20e-3)); // median of the three repeats
  CHECK(time_one(rb, mid, c).seconds == doctest::Approx(0.05e-3));
  // The M=8 row was recorded under 16x128x64 w4 s3: the un-shrunk request finds it.
  CHECK(rb.launched_config(c, small) == cfg(16, 128, 64, 4, 3, 8));
  CHECK(time_one(rb, small, c).seconds == doctest::Approx(0.02e-3));
  CHECK(time_one(rb, small, cfg(16, 128, 64, 4, 3, 8)).seconds == doctest::Approx(0.02e-3));
  CHECK(time_one(rb, small, cfg(64, 64, 32, 4, 2, 8)).seconds == doctest::Approx(0.03e-3));
  // A config differing only in group (or AMD knobs) hits the same row.
  Config g1 = c;
  g1.group = 1;
  CHECK(time_one(rb, big, g1).seconds == m.seconds);
  CHECK(time_one(rb, small, cfg(128, 128, 64, 4, 3, 16)).seconds == doctest::Approx(0.02e-3));
  Config knobs = c;
  knobs.kpack = 2;
  CHECK(time_one(rb, big, knobs).seconds == m.seconds);

  // Failed (inf) rows are unlaunchable, never a time; missing pairs are unmeasured.
  const auto failed = time_one(rb, big, cfg(128, 64, 128, 8, 5, 8));
  CHECK(failed.status == MeasureStatus::unlaunchable);
  CHECK(std::isinf(failed.seconds));
  CHECK(failed.detail == "recorded as failed (inf) in small_mm, line 7");
  const auto missing = time_one(rb, small, cfg(128, 64, 128, 8, 5, 8));
  CHECK(missing.status == MeasureStatus::unmeasured);
  CHECK(std::isinf(missing.seconds));
  CHECK(missing.detail == "128x64x128 w8 s5 g8 has no measurement for 8x4096x4096 bf16 NN in "
                          "small_mm (Inductor launches it as 16x64x128 w4 s5 g8 on this shape)");
  CHECK(time_one(rb, shape(4096, 4096, 4096, DType::f32), c).status == MeasureStatus::unmeasured);
  CHECK(time_one(rb, shape(4096, 4096, 4096), cfg(256, 256, 64, 8, 3, 8)).status ==
        MeasureStatus::unmeasured); // only in the NT layout

  // The static check: group must be 8, the config must be in the space and have a time.
  CHECK(!rb.cannot_time(c, DType::bf16));
  const auto group = rb.cannot_time(g1, DType::bf16);
  REQUIRE(group);
  CHECK(group->rfind("group=1: small_mm was measured by Inductor", 0) == 0);
  const auto outside = rb.cannot_time(cfg(16, 128, 64, 4, 3, 8), DType::bf16);
  REQUIRE(outside);
  CHECK(*outside == "16x128x64 w4 s3 g8 has no recorded measurements in small_mm (configs: "
                    "64x64x32 w4 s2 g8, 128x64x128 w8 s5 g8, 128x128x64 w4 s3 g8)");
  CHECK(!rb.cannot_time(cfg(128, 64, 128, 8, 5, 8), DType::bf16)); // ok on the mid shape
  CHECK(rb.cannot_time(c, DType::f16));

  // table() agrees with time(), including shrunk, failed and unmeasured pairs.
  std::vector<Shape> shapes = rb.shapes();
  REQUIRE(shapes.size() == 3);
  CHECK(shapes[0].name == "h100:bf16:NN:M8:N4096:K4096");
  CHECK(shapes[1].name == "h100:bf16:NN:M2048:N1024:K512");
  CHECK(shapes[2].name == "h100:bf16:NN:M4096:N4096:K4096");
  Shape other = shape(3, 5, 7);
  other.name = "not-in-file";
  shapes.push_back(other);
  check_table_agrees(rb, shapes);
  const TimeTable t = rb.table(shapes);
  CHECK(t.ignores_amd_knobs());
  CHECK(t.config_index(knobs) == t.config_index(c));
  CHECK(t.oracle_config(3) == -1);

  // The vendor library: median of the extern_mm rows.
  REQUIRE(rb.vendor_time(big));
  CHECK(*rb.vendor_time(big) == doctest::Approx(0.20e-3));
  CHECK(!rb.vendor_time(mid));

  // Other filters. The default keeps all four layouts: the NT key adds its config to the space.
  ReplayBackend all(path, ReplayFilter{}, gpu("h100"));
  CHECK(all.configs() == std::vector<Config>{cfg(64, 64, 32, 4, 2, 8), cfg(128, 64, 128, 8, 5, 8),
                                             cfg(128, 128, 64, 4, 3, 8),
                                             cfg(256, 256, 64, 8, 3, 8)});
  CHECK(all.shapes().size() == 4);
  ReplayFilter nt;
  nt.layout = "NT";
  ReplayBackend rb_nt(path, nt, gpu("h100"));
  CHECK(rb_nt.configs() == std::vector<Config>{cfg(256, 256, 64, 8, 3, 8)});
  ReplayFilter f32;
  f32.dtypes = {DType::f32};
  CHECK(ReplayBackend(path, f32, gpu("h100")).configs() ==
        std::vector<Config>{cfg(32, 32, 32, 2, 2, 8)});
  ReplayFilter bad_layout;
  bad_layout.layout = "nn";
  CHECK_THROWS_WITH_AS(ReplayBackend(path, bad_layout, gpu("h100")),
                       "replay layout must be all, NN, NT, TN or TT, got 'nn'", InputError);
  ReplayFilter tt;
  tt.layout = "TT";
  CHECK_THROWS_WITH_AS(ReplayBackend(path, tt, gpu("h100")),
                       doctest::Contains("no Triton rows with dtype bf16, f16 and layout TT"),
                       InputError);
  CHECK_THROWS_WITH_AS(ReplayBackend(path, ReplayFilter{}, gpu("mi300x")),
                       doctest::Contains("measured on a device with 232448 bytes of shared "
                                         "memory per block (compute capability 9.0)"),
                       InputError);
}

TEST_CASE("replay_backend: f32 rows are kept by their TF32 setting") {
  ScratchDir dir("tv_replay_test");
  std::string t = kJson + "\n" + kHeader + "\n";
  t += "256,256,256,torch.float32,torch.float32,256,1,256,1,True,True,True," +
       triton(64, 64, 32, 4, 2) + ",0.01\n";
  t += "256,256,256,torch.float32,torch.float32,256,1,256,1,True,True,False," +
       triton(64, 64, 32, 4, 2) + ",0.04\n";
  const std::string path = dir.write("f32.txt", t);
  ReplayFilter f;
  f.dtypes = {DType::f32};
  ReplayBackend off(path, f, gpu("h100"));
  CHECK(time_one(off, shape(256, 256, 256, DType::f32), cfg(64, 64, 32, 4, 2, 8)).seconds ==
        doctest::Approx(0.04e-3));
  f.tf32 = true;
  ReplayBackend on(path, f, gpu("h100"));
  CHECK(time_one(on, shape(256, 256, 256, DType::f32), cfg(64, 64, 32, 4, 2, 8)).seconds ==
        doctest::Approx(0.01e-3));
}

TEST_CASE("replay_backend: bad files and specs") {
  ScratchDir dir("tv_replay_test");
  CHECK_THROWS_WITH_AS(
      ReplayBackend(dir.write("x.csv", "name,M,N,K\n"), ReplayFilter{}, gpu("h100")),
      doctest::Contains("x.csv:1: unknown replay file format"), InputError);
  CHECK_THROWS_WITH_AS(ReplayBackend(dir.path + "/missing.txt", ReplayFilter{}, gpu("h100")),
                       doctest::Contains("missing.txt: cannot read"), InputError);
  CHECK_THROWS_WITH_AS(ReplayBackend(dir.path, ReplayFilter{}, gpu("h100")),
                       doctest::Contains("is a directory"), InputError);
  const std::string bad_cache =
      dir.write("bad.csv", std::string(kMeasurementCacheVersionLine) + "\n" +
                               std::string(kMeasurementCacheHeader) + "\n" +
                               "h100,1,2,3,bf16,16,16,16,2,2,8,,,,ok,,\n");
  CHECK_THROWS_WITH_AS(ReplayBackend(bad_cache, ReplayFilter{}, gpu("h100")),
                       doctest::Contains("bad.csv:3: status ok needs a time"), InputError);
  const std::string bad_ah =
      dir.write("bad_mm.txt", kJson + "\n" + kHeader + "\n" + ah_row(4, 4, 4, "extern_mm", "-2"));
  CHECK_THROWS_WITH_AS(ReplayBackend(bad_ah, ReplayFilter{}, gpu("h100")),
                       doctest::Contains("bad_mm.txt:3: feedback must be"), InputError);
  CHECK_THROWS_AS(make_backend("replay:", gpu("h100")), InputError);
  CHECK_THROWS_AS(make_backend("replay:" + dir.path + "/missing.txt", gpu("h100")), InputError);
  CHECK_THROWS_AS(make_backend("replay", gpu("h100")), InputError);
}

/// A measured table of this repository's worker read as a table: `configs` configs timed on
/// every one of `shapes` (M, N, K), each ok, and the vendor library on every shape, labelled
/// `vendor`.
void check_complete_table(ReplayBackend& rb, std::size_t configs, std::size_t shapes,
                          const std::string& vendor) {
  REQUIRE(rb.configs().size() == configs);
  const auto all = rb.shapes();
  CHECK(all.size() == shapes);
  CHECK(rb.recorded_pairs() == configs * shapes);
  const TimeTable t = rb.table(all);
  for (std::size_t r = 0; r < all.size(); ++r) {
    CHECK(rb.vendor_time(all[r]));
    for (std::size_t c = 0; c < rb.configs().size(); ++c)
      CHECK(std::isfinite(t.time(r, c)));
  }
  CHECK(rb.vendor_label() == vendor);
}

TEST_CASE("replay_backend: the committed H200 table is what its README says") {
  const std::string path = data_path("replay/h200_triton.csv");
  ReplayFilter as_table;
  as_table.table = true;
  ReplayBackend rb(path, as_table, gpu("h200"));
  // 48 configs on every one of 323 (M, N, K), each ok, and torch.matmul on every one.
  check_complete_table(rb, 48, 323, "torch.matmul on NVIDIA H200, recorded");
  // The lecture and the six models' shapes up to M = 2048 are all in it.
  for (const char* file : {"shapes/lecture.csv", "shapes/six_models_m2048.csv"})
    for (const Shape& s : load_shape_file(data_path(file)))
      CHECK_MESSAGE(rb.time({{s, rb.configs().front()}})[0].ok(), s.label());
  // h200_sample48.py is the lecture's expert moved into the table's configs.
  ProblemSpec spec;
  spec.gpu = "h200";
  spec.backend = "table:" + path;
  spec.shapes = data_path("shapes/lecture.csv");
  const auto p = load_problem(spec);
  CHECK(p->expert == load_program_file(data_path("experts/h200_sample48.py")));
}

TEST_CASE("replay_backend: the committed H100 table (this repository's worker) is what its "
          "README says") {
  const std::string path = data_path("replay/h100_triton.csv");
  ReplayFilter as_table;
  as_table.table = true;
  ReplayBackend rb(path, as_table, gpu("h100"));
  // The H200 table's 48 configs, on each of the lecture's 88 shapes, each ok, and torch.matmul.
  ReplayBackend h200(data_path("replay/h200_triton.csv"), as_table, gpu("h200"));
  CHECK(rb.configs() == h200.configs());
  check_complete_table(rb, 48, 88, "torch.matmul on NVIDIA H100 80GB HBM3, recorded");
  for (const Shape& s : load_shape_file(data_path("shapes/lecture.csv")))
    CHECK_MESSAGE(rb.time({{s, rb.configs().front()}})[0].ok(), s.label());
}

TEST_CASE("replay_backend: the committed H100 data, its shapes and the expert") {
  const std::string path = data_path("replay/h100_mm.txt");
  const Gpu& h100 = gpu("h100");
  auto backend = make_backend("replay:" + path, h100);
  REQUIRE(backend);
  CHECK(backend->name().rfind("replay:", 0) == 0);
  ReplayBackend rb(path, ReplayFilter{}, h100);
  const auto shapes = rb.shapes();
  CHECK(shapes.size() == 212); // every bf16 and f16 key of h100_mm: 53 M, N, K x 4 layouts
  CHECK(rb.recorded_pairs() > 1000);
  REQUIRE(rb.configs().size() == 29);

  // The shape file is exactly the backend's shape list.
  const auto listed = load_shape_file(data_path("replay/h100_shapes.csv"));
  CHECK(listed == shapes);

  // Every config of the space launches on the h100 profile and can time both dtypes.
  for (const Config& c : rb.configs()) {
    CHECK(c.group == kInductorGroupM);
    for (DType d : {DType::bf16, DType::f16}) {
      CHECK_MESSAGE(!launch_problem(c, h100, d), c.brief());
      CHECK_MESSAGE(!rb.cannot_time(c, d), c.brief());
    }
  }

  // Each key's rows are exactly the space shrunk to the key, three repeats each.
  const AutoHeuristicData data = load_autoheuristic_file(path);
  std::map<std::tuple<std::int64_t, std::int64_t, std::int64_t, DType, std::string>,
           std::multiset<Config>>
      recorded;
  for (const auto& r : data.rows)
    if (r.config) recorded[{r.M, r.N, r.K, r.dtype, r.layout}].insert(*r.config);
  CHECK(recorded.size() == shapes.size());
  for (const auto& [k, configs] : recorded) {
    std::set<Config> expected;
    for (const Config& c : rb.configs())
      expected.insert(inductor_shrink(c, std::get<0>(k), std::get<1>(k), std::get<2>(k)));
    CHECK(std::set<Config>(configs.begin(), configs.end()) == expected);
    for (const Config& c : expected)
      CHECK(configs.count(c) == 3);
  }

  // table() agrees with time(); every shape has a vendor time and some Triton time.
  check_table_agrees(rb, shapes);
  const TimeTable t = rb.table(shapes);
  for (std::size_t r = 0; r < shapes.size(); ++r) {
    CHECK(std::isfinite(t.oracle_time(r)));
    CHECK(rb.vendor_time(shapes[r]));
  }

  // The expert uses only configs of the space, launches on h100, and has a time everywhere.
  const Program expert = load_program_file(data_path("experts/h100_inductor.py"));
  for (const Shape& s : shapes) {
    const Config& c = expert.choose(s);
    CHECK(!launch_problem(c, h100, s.dtype));
    CHECK(!rb.cannot_time(c, s.dtype));
    CHECK(t.config_index(c) >= 0);
    CHECK(time_one(rb, s, c).ok());
  }
}

namespace {

/// One bf16 AutoHeuristic row of an M x N x K GEMM with operand layout `layout` ("NN", "NT",
/// "TN", "TT"): 'N' is row-major (stride_1 == 1), 'T' column-major (stride_0 == 1).
std::string ah_row_layout(std::int64_t m, std::int64_t n, std::int64_t k, const std::string& layout,
                          const std::string& choice, const std::string& ms) {
  const bool a_t = layout[0] == 'T', b_t = layout[1] == 'T';
  // mat1 is [M, K], mat2 is [K, N].
  const std::string a = a_t ? fmt::format("1,{}", m) : fmt::format("{},1", k);
  const std::string b = b_t ? fmt::format("1,{}", k) : fmt::format("{},1", n);
  return fmt::format("{},{},{},torch.bfloat16,torch.bfloat16,{},{},{},{},not_float_32,{},{}\n", m,
                     k, n, a, b, a_t ? "False" : "True", b_t ? "False" : "True", choice, ms);
}

} // namespace

TEST_CASE("replay_backend: each operand layout of one M, N, K is its own key") {
  ScratchDir dir("tv_replay_test");
  std::string text = kJson + "\n" + kHeader + "\n";
  const std::map<std::string, std::string> ms = {
      {"NN", "0.10"}, {"NT", "0.12"}, {"TN", "0.14"}, {"TT", "0.16"}};
  for (const auto& [layout, t] : ms) {
    text += ah_row_layout(1024, 2048, 512, layout, triton(64, 64, 32, 4, 2), t);
    text += ah_row_layout(1024, 2048, 512, layout, "extern_mm", layout == "NN" ? "0.05" : "0.07");
  }
  const std::string path = dir.write("layouts_mm.txt", text);
  ReplayBackend rb(path, ReplayFilter{}, gpu("h100"));
  const Config c = cfg(64, 64, 32, 4, 2, 8);
  CHECK(rb.configs() == std::vector<Config>{c});

  // shapes(): one per layout, carrying it in the field and in the name.
  const auto shapes = rb.shapes();
  REQUIRE(shapes.size() == 4);
  const std::vector<std::string> layouts = {"NN", "NT", "TN", "TT"};
  for (std::size_t i = 0; i < shapes.size(); ++i) {
    CHECK(shapes[i].layout == layouts[i]);
    CHECK(shapes[i].name == "h100:bf16:" + layouts[i] + ":M1024:N2048:K512");
    CHECK(time_one(rb, shapes[i], c).seconds ==
          doctest::Approx(std::stod(ms.at(layouts[i])) * 1e-3));
  }
  CHECK(time_one(rb, shapes[0], c).seconds != time_one(rb, shapes[1], c).seconds);

  // A shape with no layout reads the NN rows, for Triton configs and the vendor library alike.
  const Shape plain = shape(1024, 2048, 512);
  REQUIRE(plain.layout.empty());
  CHECK(time_one(rb, plain, c).seconds == time_one(rb, shapes[0], c).seconds);
  CHECK(rb.vendor_time(plain) == rb.vendor_time(shapes[0]));
  REQUIRE(rb.vendor_time(shapes[1]));
  CHECK(*rb.vendor_time(shapes[0]) == doctest::Approx(0.05e-3));
  CHECK(*rb.vendor_time(shapes[1]) == doctest::Approx(0.07e-3));
  Shape st = plain;
  st.layout = "ST"; // not a layout: nothing recorded
  CHECK(time_one(rb, st, c).status == MeasureStatus::unmeasured);
  CHECK(!rb.vendor_time(st));

  // The table keeps the layouts apart too.
  check_table_agrees(rb, shapes);
  const TimeTable t = rb.table(shapes);
  CHECK(t.time(0, 0) < t.time(1, 0));
  CHECK(t.time(1, 0) < t.time(3, 0));

  // A layout filter keeps only that layout; the others are unmeasured, even an empty one (NN).
  ReplayFilter nt;
  nt.layout = "NT";
  ReplayBackend only_nt(path, nt, gpu("h100"));
  REQUIRE(only_nt.shapes().size() == 1);
  CHECK(only_nt.shapes()[0].layout == "NT");
  CHECK(time_one(only_nt, shapes[1], c).seconds == doctest::Approx(0.12e-3));
  CHECK(time_one(only_nt, plain, c).status == MeasureStatus::unmeasured);
  CHECK(time_one(only_nt, plain, c).detail.find("1024x2048x512 bf16 NN") != std::string::npos);
}

TEST_CASE("replay_backend: the committed H100 data times the layouts of one M, N, K apart") {
  ReplayBackend rb(data_path("replay/h100_mm.txt"), ReplayFilter{}, gpu("h100"));
  const Config c = cfg(128, 128, 64, 4, 3, 8);
  std::map<std::tuple<std::int64_t, std::int64_t, std::int64_t, DType>, std::set<double>> times;
  std::size_t keys = 0;
  for (const Shape& s : rb.shapes()) {
    const Measurement m = time_one(rb, s, c);
    REQUIRE(m.ok());
    times[{s.M, s.N, s.K, s.dtype}].insert(m.seconds);
    ++keys;
    if (s.layout == "NN") {
      Shape plain = s;
      plain.layout.clear();
      CHECK(time_one(rb, plain, c).seconds == m.seconds);
    }
  }
  CHECK(keys == 212);
  REQUIRE(times.size() == 53);
  std::size_t differ = 0;
  for (const auto& [k, ts] : times)
    differ += ts.size() > 1;
  CHECK(differ > 40); // the layouts are really different measurements, not copies
}

} // namespace replay_backend_test
