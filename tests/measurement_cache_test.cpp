#include "eval/measurement_cache.hpp"
#include "ir/error.hpp"
#include "ir/rng.hpp"
#include "support/shell.hpp"
#include "support/temp_dir.hpp"

#include "support/mutate.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

// In a namespace of its own: the test files are compiled several to a unit (unity build).
namespace measurement_cache_test {

using namespace tv;
namespace fs = std::filesystem;

namespace {

const std::string kTop =
    std::string(kMeasurementCacheVersionLine) + "\n" + std::string(kMeasurementCacheHeader) + "\n";

/// The InputError message parsing `text` throws, or "" if it parses.
std::string error_of(const std::string& text) {
  try {
    parse_measurement_cache(text, "cache.csv");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

using tv::test::ScratchDir;

std::string read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

MeasurementRecord ok_record(double seconds) {
  MeasurementRecord r;
  r.gpu = "h100";
  r.shape.M = 128;
  r.shape.N = 4096;
  r.shape.K = 4096;
  r.shape.dtype = DType::bf16;
  r.result.status = MeasureStatus::ok;
  r.result.seconds = seconds;
  return r;
}

MeasurementRecord amd_failure() {
  MeasurementRecord r;
  r.gpu = "mi300x";
  r.shape.M = 1;
  r.shape.N = 8192;
  r.shape.K = 1024;
  r.shape.dtype = DType::f16;
  r.config.BM = 256;
  r.config.BN = 256;
  r.config.waves_per_eu = 2;
  r.config.matrix_instr_nonkdim = 16;
  r.config.kpack = 2;
  r.result.status = MeasureStatus::compile_error;
  r.result.detail = "error: \"out of LDS\", needs 131072 > 65536\nsecond line";
  return r;
}

} // namespace

TEST_CASE("measurement_cache: format_record writes the documented columns") {
  CHECK(format_record(ok_record(1.25e-05)) ==
        "h100,128,4096,4096,bf16,128,128,64,4,3,8,,,,ok,1.25e-05,");
  CHECK(format_record(amd_failure()) ==
        "mi300x,1,8192,1024,f16,256,256,64,4,3,8,2,16,2,compile_error,,"
        "\"error: \"\"out of LDS\"\", needs 131072 > 65536 second line\"");
}

TEST_CASE("measurement_cache: records read back exactly") {
  MeasurementRecord a = ok_record(1.0 / 3.0 * 1e-4); // needs all 17 digits
  MeasurementRecord b = amd_failure();
  MeasurementRecord c = ok_record(2e-3);
  c.result.detail = "  padded  ";
  c.gpu = "#gpu, with a comma";
  MeasurementRecord d = ok_record(1);
  d.result.status = MeasureStatus::wrong_result;
  d.result.seconds = std::numeric_limits<double>::infinity();
  const std::string text = kTop + format_record(a) + "\n# a comment\n\n" + format_record(b) +
                           "\r\n" + format_record(c) + "\n" + format_record(d);
  const auto got = parse_measurement_cache(text, "cache.csv");
  REQUIRE(got.size() == 4);
  CHECK(got[0] == a);
  b.result.detail = "error: \"out of LDS\", needs 131072 > 65536 second line";
  CHECK(got[1] == b);
  CHECK(got[2] == c);
  CHECK(got[3] == d);
  CHECK(!got[3].result.ok());
  CHECK(std::isinf(got[3].result.seconds));
}

TEST_CASE("measurement_cache: append_record creates the file with headers and appends") {
  ScratchDir dir("tv_cache_test");
  const std::string path = dir.path + "/m.csv";
  append_record(path, ok_record(1e-5));
  append_record(path, amd_failure());
  append_record(path, ok_record(2e-5));
  const std::string text = read_all(path);
  CHECK(text.rfind(kTop, 0) == 0);
  CHECK(std::count(text.begin(), text.end(), '\n') == 5);
  const auto got = load_measurement_cache(path);
  REQUIRE(got.size() == 3);
  CHECK(got[0].result.seconds == 1e-5);
  CHECK(got[1].gpu == "mi300x");
  CHECK(got[2].result.seconds == 2e-5);

  // An empty existing file gets the headers too.
  const std::string empty = dir.path + "/empty.csv";
  std::ofstream(empty).close();
  append_record(empty, ok_record(3e-5));
  CHECK(load_measurement_cache(empty).size() == 1);

  // A torn last line stays on its own line (and is reported when read).
  std::ofstream(path, std::ios::app) << "h100,128,40";
  append_record(path, ok_record(4e-5));
  const std::string torn = read_all(path);
  CHECK(torn.find("h100,128,40\nh100,128,4096") != std::string::npos);
  try {
    load_measurement_cache(path);
    FAIL("a torn line must not parse");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()).rfind(path + ":6: expected 17 comma-separated fields", 0) == 0);
  }
}

TEST_CASE("measurement_cache: append_record refuses other files") {
  ScratchDir dir("tv_cache_test");
  const std::string path = dir.path + "/other.txt";
  std::ofstream(path) << "{\"name\": \"mm\"}\n";
  CHECK_THROWS_AS(append_record(path, ok_record(1e-5)), InputError);
  CHECK(read_all(path) == "{\"name\": \"mm\"}\n");
  CHECK_THROWS_AS(append_record(dir.path + "/no/such/dir/m.csv", ok_record(1e-5)), InputError);
  CHECK_THROWS_AS(load_measurement_cache(dir.path + "/missing.csv"), InputError);
}

TEST_CASE("measurement_cache: malformed files name the file and line") {
  const std::string row = "h100,128,4096,4096,bf16,128,128,64,4,3,8,,,,";
  CHECK(error_of("") ==
        "cache.csv:1: empty file (expected the line '# tilevolve-measurements v2')");
  CHECK(error_of("# tilevolve-measurements v3\n") ==
        "cache.csv:1: unsupported version '# tilevolve-measurements v3' (this tilevolve reads "
        "'# tilevolve-measurements v1' and '# tilevolve-measurements v2')");
  CHECK(error_of(std::string(kMeasurementCacheHeader) + "\n") ==
        "cache.csv:1: expected the line '# tilevolve-measurements v2' (or "
        "'# tilevolve-measurements v1') first");
  CHECK(error_of("# tilevolve-measurements v1\n").rfind("cache.csv:1: missing the header", 0) == 0);
  CHECK(error_of("# tilevolve-measurements v1\ngpu,M,N,K\n")
            .rfind("cache.csv:2: expected the header 'gpu,M,N,K,dtype,", 0) == 0);
  CHECK(error_of(kTop + row + "ok,1e-5\n") ==
        "cache.csv:3: expected 17 comma-separated fields, got 16");
  CHECK(error_of(kTop + "h100,12x,4096,4096,bf16,128,128,64,4,3,8,,,,ok,1e-5,\n") ==
        "cache.csv:3: M must be an integer in [1, 2147483648], got '12x'");
  CHECK(error_of(kTop + "h100,128,4096,4096,bf16,128,128,64,0,3,8,,,,ok,1e-5,\n") ==
        "cache.csv:3: warps must be an integer in [1, 1048576], got '0'");
  CHECK(error_of(kTop + "h100,128,4096,4096,bf16,128,128,64,4,3,8,x,,,ok,1e-5,\n")
            .rfind("cache.csv:3: waves_per_eu must be an integer", 0) == 0);
  CHECK(error_of(kTop + "h100,128,4096,4096,int4,128,128,64,4,3,8,,,,ok,1e-5,\n")
            .rfind("cache.csv:3: unknown dtype 'int4'", 0) == 0);
  CHECK(error_of(kTop + row + "fast,1e-5,\n").rfind("cache.csv:3: unknown status 'fast'", 0) == 0);
  CHECK(error_of(kTop + row + "ok,,\n") ==
        "cache.csv:3: status ok needs a time in the seconds column");
  CHECK(error_of(kTop + row + "timeout,1e-5,\n") ==
        "cache.csv:3: status timeout must have an empty seconds column, got '1e-5'");
  CHECK(error_of(kTop + "\n" + row + "ok,-1e-5,\n") ==
        "cache.csv:4: seconds must be positive and finite, got '-1e-5'");
  CHECK(error_of(kTop + row + "ok,0,\n") ==
        "cache.csv:3: seconds must be positive and finite, got '0'");
  CHECK(error_of(kTop + row + "ok,inf,\n") ==
        "cache.csv:3: seconds must be positive and finite, got 'inf'");
  CHECK(error_of(kTop + row + "ok,nan,\n") ==
        "cache.csv:3: seconds must be positive and finite, got 'nan'");
  CHECK(error_of(kTop + row + "ok,1e-5s,\n") ==
        "cache.csv:3: seconds must be a number, got '1e-5s'");
  CHECK(error_of(kTop + row + "ok,1e-5,\"open\n") == "cache.csv:3: a quoted field is not closed");
  CHECK(error_of(kTop + row + "ok,1e-5,\"a\"b\n") ==
        "cache.csv:3: a closing quote must be followed by a comma");
  CHECK(error_of(kTop + ",128,4096,4096,bf16,128,128,64,4,3,8,,,,ok,1e-5,\n") ==
        "cache.csv:3: gpu must not be empty");
}

TEST_CASE("measurement_cache: first-line detection") {
  CHECK(is_measurement_cache("# tilevolve-measurements v1"));
  CHECK(is_measurement_cache("# tilevolve-measurements v7\r"));
  CHECK(!is_measurement_cache("{\"name\": \"mm\"}"));
  CHECK(!is_measurement_cache("gpu,M,N,K"));
}

TEST_CASE("measurement_cache: mutated files parse or throw InputError, never crash") {
  const std::string base =
      kTop + format_record(ok_record(1.5e-5)) + "\n" + format_record(amd_failure()) + "\n";
  const std::string alphabet = ",\n\"#-.0123456789eokinfav ";
  Rng rng(11);
  int parsed = 0;
  for (int i = 0; i < 2000; ++i) {
    const std::string t = tv::test::mutate_text(base, alphabet, rng);
    try {
      for (const auto& r : parse_measurement_cache(t, "cache.csv")) {
        // Whatever parses obeys the format's rules and reads back the same.
        CHECK(r.result.ok() == std::isfinite(r.result.seconds));
        const auto again = parse_measurement_cache(kTop + format_record(r) + "\n", "again.csv");
        REQUIRE(again.size() == 1);
        CHECK(again[0] == r);
      }
      ++parsed;
    } catch (const InputError& e) {
      CHECK(std::string(e.what()).rfind("cache.csv:", 0) == 0);
    }
  }
  CHECK(parsed > 0);
  CHECK(parsed < 2000);
}

TEST_CASE("measurement_cache: a time no kernel takes is refused") {
  // Issue 13: a recorded time of 1e300 s was accepted (and 1e-300 s made every other config
  // look infinitely slow).
  const std::string top = std::string(kMeasurementCacheVersionLine) + "\n" +
                          std::string(kMeasurementCacheHeader) + "\n";
  const std::string row = "h100,128,4096,4096,bf16,128,128,64,4,3,8,,,,ok,";
  for (const char* bad : {"1e300", "1e-300", "3601", "1e-10"}) {
    CAPTURE(bad);
    std::string e;
    try {
      parse_measurement_cache(top + row + bad + ",\n", "m.csv");
    } catch (const InputError& x) {
      e = x.what();
    }
    CHECK(e == std::string("m.csv:3: seconds must be a plausible kernel time from 1e-09 to 3600 s, "
                           "got '") +
                   bad + "'");
  }
  CHECK(parse_measurement_cache(top + row + "3600,\n", "m.csv").size() == 1);
  CHECK(parse_measurement_cache(top + row + "1e-9,\n", "m.csv").size() == 1);
}

TEST_CASE("measurement_cache: a torn last line is warned about once, though the file is read "
          "twice") {
  // `--backend table:FILE` reads the file for the profile it was measured on, then for its
  // times: one warning, not one per reading.
  ScratchDir dir("tv_cache_torn");
  std::ifstream in(std::string(TILEVOLVE_SOURCE_DIR) + "/data/replay/h100_triton.csv");
  std::stringstream whole;
  whole << in.rdbuf();
  std::string text = whole.str();
  REQUIRE(text.size() > 1000);
  text.pop_back(); // the last newline
  const std::size_t last = text.rfind('\n') + 1;
  text.resize(last + 40); // the last line stopped mid-way: fields missing
  const std::string path = dir.write("torn.csv", text);
  const auto r = tv::test::run_shell(std::string(TILEVOLVE_BINARY) +
                                     " baselines --backend table:" + path + " --split none 2>&1");
  INFO(r.out.substr(0, 3000));
  CHECK(r.status == 0);
  const std::string warning = "skipped a truncated last line";
  const std::size_t first = r.out.find(warning);
  REQUIRE(first != std::string::npos);
  CHECK(r.out.find(warning, first + 1) == std::string::npos);
}

} // namespace measurement_cache_test
