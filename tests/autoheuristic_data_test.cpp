#include "eval/autoheuristic_data.hpp"
#include "ir/error.hpp"
#include "ir/rng.hpp"

#include "support/fixtures.hpp"
#include "support/mutate.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <string>

// In a namespace of its own: the test files are compiled several to a unit (unity build).
namespace autoheuristic_data_test {

using namespace tv;

namespace {

const std::string kJson =
    R"({"shared_memory": 232448, "device_capa": [9, 0], "name": "mm", "numerical_features": ["m"]})";
const std::string kHeader =
    "m,k,n,mat1_dtype,mat2_dtype,mat1_stride_0,mat1_stride_1,mat2_stride_0,mat2_stride_1,"
    "mat1_iscontig,mat2_iscontig,using_tf32,choice,feedback";

/// A dataset text: the JSON line, the header, then `rows`.
std::string dataset(const std::string& rows) {
  return kJson + "\n" + kHeader + "\n" + rows;
}

/// The InputError message parsing `text` throws, or "" if it parses.
std::string error_of(const std::string& text) {
  try {
    parse_autoheuristic(text, "ah.txt");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

const std::string kTriton = "type=triton_BLOCK-M=64_BLOCK-K=32_BLOCK-N=128_numstages=3_numwarps=4";

Config make(int bm, int bn, int bk, int warps, int stages) {
  return tv::test::cfg(bm, bn, bk, warps, stages, kInductorGroupM);
}

} // namespace

TEST_CASE("autoheuristic_data: reads the JSON line, shapes, configs and times") {
  const auto d = parse_autoheuristic(
      dataset("1152,10112,2048,torch.bfloat16,torch.bfloat16,10112,1,2048,1,True,True,"
              "not_float_32,extern_mm,0.5\n"
              "1152,10112,2048,torch.bfloat16,torch.bfloat16,10112,1,2048,1,True,True,"
              "not_float_32," +
              kTriton +
              ",0.25\n"
              "\n"
              "64,32,16,torch.float32,torch.float32,32,1,16,1,True,True,True," +
              kTriton + ",inf\n"),
      "ah.txt");
  CHECK(d.name == "mm");
  REQUIRE(d.shared_memory);
  CHECK(*d.shared_memory == 232448);
  REQUIRE(d.device_capability);
  CHECK(d.device_capability->first == 9);
  CHECK(d.device_capability->second == 0);
  REQUIRE(d.rows.size() == 3);
  CHECK(d.skipped_rows == 0);

  const auto& vendor = d.rows[0];
  CHECK(vendor.line == 3);
  CHECK(vendor.M == 1152); // the file's order is m, k, n
  CHECK(vendor.K == 10112);
  CHECK(vendor.N == 2048);
  CHECK(vendor.dtype == DType::bf16);
  CHECK(vendor.layout == "NN");
  CHECK(!vendor.config);
  REQUIRE(vendor.seconds);
  CHECK(*vendor.seconds == doctest::Approx(0.5e-3));

  const auto& triton = d.rows[1];
  REQUIRE(triton.config);
  CHECK(*triton.config == make(64, 128, 32, 4, 3)); // BLOCK-K is BK, BLOCK-N is BN
  CHECK(triton.config->group == 8);
  REQUIRE(triton.seconds);
  CHECK(*triton.seconds == doctest::Approx(0.25e-3));

  const auto& failed = d.rows[2];
  CHECK(failed.line == 6); // the blank line still counts
  CHECK(failed.dtype == DType::f32);
  CHECK(failed.tf32);
  CHECK(!failed.seconds);
}

TEST_CASE("autoheuristic_data: layouts come from the strides") {
  CHECK(layout_of(4096, 1, true, 1024, 1, true) == "NN");
  CHECK(layout_of(4096, 1, true, 1, 4096, false) == "NT");
  CHECK(layout_of(1, 128, false, 1024, 1, true) == "TN");
  CHECK(layout_of(1, 128, false, 1, 4096, false) == "TT");
  CHECK(layout_of(1, 1, true, 1, 1, false) == "NT"); // both strides 1: the contig flag decides
  CHECK(layout_of(8192, 2, false, 1024, 1, true) == "SN");
  const auto d = parse_autoheuristic(
      dataset("16,32,64,torch.float16,torch.float16,1,16,1,32,False,False,not_float_32,"
              "extern_mm,1\n"),
      "ah.txt");
  REQUIRE(d.rows.size() == 1);
  CHECK(d.rows[0].layout == "TT");
  CHECK(d.rows[0].dtype == DType::f16);
}

TEST_CASE("autoheuristic_data: rows of dtypes tilevolve cannot name are skipped and counted") {
  const auto d = parse_autoheuristic(
      dataset(
          "16,32,64,torch.float16,torch.int8,32,1,64,1,True,True,not_float_32,extern_mm,1\n"
          "16,32,64,torch.int8,torch.int8,32,1,64,1,True,True,not_float_32,extern_mm,1\n"
          "16,32,64,torch.float16,torch.float16,32,1,64,1,True,True,not_float_32,extern_mm,1\n"),
      "ah.txt");
  CHECK(d.rows.size() == 1);
  CHECK(d.skipped_rows == 2);
}

TEST_CASE("autoheuristic_data: malformed files name the file and line") {
  const std::string good = "16,32,64,torch.float16,torch.float16,32,1,64,1,True,True,"
                           "not_float_32,";
  CHECK(error_of("") == "ah.txt:1: empty file (expected the dataset's JSON object on line 1)");
  CHECK(error_of("m,k,n\n").rfind("ah.txt:1: expected the dataset's JSON object", 0) == 0);
  CHECK(error_of("{not json\n" + kHeader + "\n").rfind("ah.txt:1: expected a JSON object", 0) == 0);
  CHECK(error_of(R"({"shared_memory": "big"})"
                 "\n" +
                 kHeader + "\n")
            .rfind("ah.txt:1: \"shared_memory\"", 0) == 0);
  CHECK(error_of(kJson + "\n").rfind("ah.txt:1: missing the CSV header", 0) == 0);
  CHECK(error_of(kJson + "\nm,k,n,choice,feedback\n").rfind("ah.txt:2: header lacks column", 0) ==
        0);
  CHECK(error_of(dataset(good + "extern_mm\n")) ==
        "ah.txt:3: expected 14 comma-separated fields, got 13");
  CHECK(error_of(dataset("16,x,64,torch.float16,torch.float16,32,1,64,1,True,True,"
                         "not_float_32,extern_mm,1\n"))
            .rfind("ah.txt:3: k must be an integer", 0) == 0);
  CHECK(error_of(dataset("0,32,64,torch.float16,torch.float16,32,1,64,1,True,True,"
                         "not_float_32,extern_mm,1\n"))
            .rfind("ah.txt:3: m must be an integer in [1,", 0) == 0);
  CHECK(error_of(dataset(good + "extern_mm,1\n" + good + "extern_bmm,1\n"))
            .rfind("ah.txt:4: choice 'extern_bmm': unknown kind of choice", 0) == 0);
  CHECK(error_of(dataset(good + "type=triton_BLOCK-M=16_BLOCK-K=16_numstages=2_numwarps=2,1\n"))
            .rfind("ah.txt:3: choice 'type=triton_BLOCK-M=16_BLOCK-K=16_numstages=2_numwarps=2': "
                   "missing BLOCK-N",
                   0) == 0);
  CHECK(error_of(dataset(good + kTriton + "_EVEN-K=1,1\n")).find("unknown key 'EVEN-K'") !=
        std::string::npos);
  CHECK(error_of(dataset(good + "type=triton_BLOCK-M=0_BLOCK-K=16_BLOCK-N=16_numstages=2_"
                                "numwarps=2,1\n"))
            .rfind("ah.txt:3: BLOCK-M must be an integer", 0) == 0);
  CHECK(error_of(dataset(good + "extern_mm,-1\n")) ==
        "ah.txt:3: feedback must be a positive finite time or inf, got '-1'");
  CHECK(error_of(dataset(good + "extern_mm,nan\n")) ==
        "ah.txt:3: feedback must be a positive finite time or inf, got 'nan'");
  CHECK(error_of(dataset(good + "extern_mm,fast\n")) ==
        "ah.txt:3: feedback must be a time in milliseconds or inf, got 'fast'");
  CHECK(error_of(dataset("16,32,64,torch.float16,torch.float16,32,1,64,1,maybe,True,"
                         "not_float_32,extern_mm,1\n"))
            .rfind("ah.txt:3: mat1_iscontig must be True or False", 0) == 0);
}

TEST_CASE("autoheuristic_data: Inductor's shrink rule on edge sizes") {
  const Config big = make(128, 128, 64, 8, 3);
  // Large dims: unchanged.
  CHECK(inductor_shrink(big, 4096, 4096, 4096) == big);
  CHECK(inductor_shrink(big, 128, 128, 64) == big);
  // M = 1 and M = 16: BM becomes the minimum block 16; warps clamp to 16*128/256 = 8.
  CHECK(inductor_shrink(big, 1, 4096, 4096) == make(16, 128, 64, 8, 3));
  CHECK(inductor_shrink(big, 16, 4096, 4096) == make(16, 128, 64, 8, 3));
  // M = 17: next power of two is 32.
  CHECK(inductor_shrink(big, 17, 4096, 4096) == make(32, 128, 64, 8, 3));
  // M = 100 < BM: 128 is already the next power of two, so nothing shrinks.
  CHECK(inductor_shrink(big, 100, 4096, 4096) == big);
  // A dim smaller than its block, for N and K too.
  CHECK(inductor_shrink(big, 4096, 40, 4096) == make(128, 64, 64, 8, 3));
  CHECK(inductor_shrink(big, 4096, 4096, 2) == make(128, 128, 16, 8, 3));
  CHECK(inductor_shrink(big, 4096, 4096, 33) == make(128, 128, 64, 8, 3));
  CHECK(inductor_shrink(big, 4096, 4096, 31) == make(128, 128, 32, 8, 3));
  // Warps clamp on the shrunk blocks: one 16x16 tile per warp, at least one warp.
  CHECK(inductor_shrink(big, 8, 8, 8) == make(16, 16, 16, 1, 3));
  CHECK(inductor_shrink(make(32, 32, 128, 4, 2), 8, 76672, 2) == make(16, 32, 16, 2, 2));
  CHECK(inductor_shrink(make(64, 64, 32, 4, 2), 4096, 4096, 4096) == make(64, 64, 32, 4, 2));
  CHECK(inductor_shrink(make(32, 32, 16, 8, 2), 4096, 4096, 4096) == make(32, 32, 16, 4, 2));
  // Blocks below 16 grow to 16; other fields are kept.
  Config odd = make(8, 8, 8, 1, 1);
  odd.group = 4;
  odd.kpack = 2;
  const Config s = inductor_shrink(odd, 1 << 20, 1 << 20, 1 << 20);
  CHECK(s.BM == 16);
  CHECK(s.BN == 16);
  CHECK(s.BK == 16);
  CHECK(s.warps == 1);
  CHECK(s.group == 4);
  CHECK(s.kpack == 2);
  // Huge blocks and dims do not overflow.
  CHECK(inductor_shrink(make(1 << 20, 1 << 20, 16, 8, 1), 1 << 30, 1 << 30, 16).warps == 8);
  CHECK(inductor_shrink(big, std::int64_t(1) << 40, 3, 5) == make(128, 16, 16, 8, 3));
}

TEST_CASE("autoheuristic_data: first-line detection") {
  CHECK(looks_like_autoheuristic(kJson));
  CHECK(looks_like_autoheuristic("  {\"name\": \"mm\"}\r"));
  CHECK(!looks_like_autoheuristic("# tilevolve-measurements v1"));
  CHECK(!looks_like_autoheuristic(""));
}

TEST_CASE("autoheuristic_data: mutated files parse or throw InputError, never crash") {
  const std::string base =
      dataset("16,32,64,torch.float16,torch.float16,32,1,64,1,True,True,not_float_32,extern_mm,1\n"
              "16,32,64,torch.float16,torch.float16,32,1,64,1,True,True,not_float_32," +
              kTriton + ",0.5\n");
  const std::string alphabet = ",\n=_{}[]\"-.0123456789eTinfa ";
  Rng rng(7);
  int parsed = 0;
  for (int i = 0; i < 2000; ++i) {
    const std::string t = tv::test::mutate_text(base, alphabet, rng);
    try {
      const auto d = parse_autoheuristic(t, "ah.txt");
      for (const auto& r : d.rows) {
        CHECK(r.M >= 1);
        CHECK((!r.seconds || (std::isfinite(*r.seconds) && *r.seconds > 0)));
      }
      ++parsed;
    } catch (const InputError& e) {
      CHECK(std::string(e.what()).rfind("ah.txt:", 0) == 0);
    }
  }
  CHECK(parsed > 0);
  CHECK(parsed < 2000);
}

TEST_CASE("autoheuristic_data: a time no kernel takes is refused") {
  const std::string head = "{\"name\": \"mm\"}\nm,k,n,mat1_dtype,mat2_dtype,mat1_stride_0,"
                           "mat1_stride_1,mat2_stride_0,mat2_stride_1,choice,feedback\n";
  const std::string row = "16,32,64,torch.float16,torch.float16,32,1,64,1,extern_mm,";
  for (const char* bad : {"1e300", "1e-300", "3600001"}) {
    CAPTURE(bad);
    std::string e;
    try {
      parse_autoheuristic(head + row + bad + "\n", "ah.txt");
    } catch (const InputError& x) {
      e = x.what();
    }
    CHECK(e == std::string("ah.txt:3: feedback must be a plausible kernel time from 1e-06 to "
                           "3.6e+06 ms, got '") +
                   bad + "'");
  }
  CHECK(parse_autoheuristic(head + row + "0.5\n", "ah.txt").rows.size() == 1);
  std::string e;
  try {
    parse_autoheuristic("{\"name\": \"mm\", \"device_capa\": [9, 4294967296]}\nm\n", "ah.txt");
  } catch (const InputError& x) {
    e = x.what();
  }
  CHECK(e == "ah.txt:1: \"device_capa\" must be [major, minor]");
}

} // namespace autoheuristic_data_test
