// The aiter export and import (ir/exporters/aiter_*.hpp): the buckets aiter's getter reads, the
// lookup as the getter does it, exact round trips for programs whose decisions follow the
// buckets and the differing M named exactly for those that do not, the knobs as aiter's own
// files write them, the vendor region, a file in aiter's public format written here by hand, and
// hostile files refused with the key named.
#include "support/export_check.hpp"

#include "ir/error.hpp"
#include "ir/exporters/aiter_exporter.hpp"
#include "ir/exporters/aiter_format.hpp"
#include "ir/exporters/aiter_importer.hpp"
#include "ir/exporters/import_file.hpp"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

// In a namespace of its own: the test files are compiled several to a unit (unity build).
namespace aiter_exporter_test {

using namespace tv;

namespace {

Shape at(std::int64_t M, std::int64_t N = 4096, std::int64_t K = 4096) {
  return test::grid_shape(M, N, K);
}

AiterExportOptions options(std::int64_t N = 4096, std::int64_t K = 4096) {
  AiterExportOptions o;
  o.N = N;
  o.K = K;
  o.device = "gfx942";
  return o;
}

/// Every M of 1..20000 and some far above, for round trips.
std::vector<std::int64_t> round_trip_ms() {
  std::vector<std::int64_t> ms;
  for (std::int64_t m = 1; m <= 20000; ++m)
    ms.push_back(m);
  for (const std::int64_t m : {std::int64_t(1) << 20, std::int64_t(1) << 40, kDimMax})
    ms.push_back(m);
  return ms;
}

/// True when `m` lies in one of `r`.
bool in_ranges(const MRanges& r, std::int64_t m) {
  return std::any_of(r.begin(), r.end(),
                     [&](const auto& x) { return x.first <= m && m <= x.second; });
}

/// A file in aiter's public format, written here from its documented form: M_LEQ buckets, an
/// M_GEQ bucket, "any", and the fields aiter's getter hands to the kernel.
const char* kPublicFile = R"({
  "M_LEQ_16": {"BLOCK_SIZE_M": 16, "BLOCK_SIZE_N": 64, "BLOCK_SIZE_K": 256, "GROUP_SIZE_M": 1,
               "num_warps": 4, "num_stages": 2, "waves_per_eu": 2, "matrix_instr_nonkdim": 16,
               "cache_modifier": null, "NUM_KSPLIT": 1, "kpack": 1},
  "M_LEQ_256": {"BLOCK_SIZE_M": 64, "BLOCK_SIZE_N": 128, "BLOCK_SIZE_K": 128, "GROUP_SIZE_M": 4,
                "num_warps": 8, "num_stages": 2, "waves_per_eu": 1, "matrix_instr_nonkdim": 16,
                "cache_modifier": null, "NUM_KSPLIT": 1},
  "M_LEQ_2048": {"BLOCK_SIZE_M": 128, "BLOCK_SIZE_N": 128, "BLOCK_SIZE_K": 64, "GROUP_SIZE_M": 8,
                 "num_warps": 8, "num_stages": 2, "waves_per_eu": 2, "matrix_instr_nonkdim": 32},
  "M_GEQ_4096": {"BLOCK_SIZE_M": 256, "BLOCK_SIZE_N": 256, "BLOCK_SIZE_K": 64, "GROUP_SIZE_M": 4,
                 "num_warps": 8, "num_stages": 2, "waves_per_eu": 0, "matrix_instr_nonkdim": 16},
  "any": {"BLOCK_SIZE_M": 128, "BLOCK_SIZE_N": 256, "BLOCK_SIZE_K": 64, "GROUP_SIZE_M": 1,
          "num_warps": 8, "num_stages": 2}
})";

/// The message of the InputError `text` gets from the importer ("" when it imports).
std::string refusal(const std::string& text, bool drop = false) {
  AiterImportOptions o;
  o.drop_unknown_fields = drop;
  try {
    import_aiter_config(text, "cfg/gfx942-GEMM-A16W16-N=64-K=64.json", o);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

/// One bucket's config text with `extra` fields appended.
std::string bucket(const std::string& extra = "") {
  return R"({"BLOCK_SIZE_M": 64, "BLOCK_SIZE_N": 64, "BLOCK_SIZE_K": 64, "GROUP_SIZE_M": 1,
             "num_warps": 4, "num_stages": 2)" +
         extra + "}";
}

} // namespace

TEST_CASE("aiter format: keys, the getter's order, and its ranges agree with a direct "
          "transcription of its loops") {
  CHECK(parse_aiter_key("M_LEQ_64") == AiterKey{AiterKey::Kind::leq, 64});
  CHECK(parse_aiter_key("M_GEQ_1") == AiterKey{AiterKey::Kind::geq, 1});
  CHECK(parse_aiter_key("any") == AiterKey{});
  for (const char* bad : {"M_LEQ_24", "M_LEQ_064", "M_LEQ_+64", "M_LEQ_", "m_leq_64", "ANY",
                          "M_LEQ_16384", "N_LEQ_64", "M_LT_64", " any", "M_LEQ_64 "})
    CHECK_MESSAGE(!parse_aiter_key(bad), bad);
  CHECK(aiter_key_text({AiterKey::Kind::geq, 4096}) == "M_GEQ_4096");
  // Random sets of keys: the ranges are what the lookup does for every M, holes included.
  Rng rng(4);
  std::vector<AiterKey> all{AiterKey{}};
  for (const std::int64_t b : kAiterMBounds) {
    all.push_back({AiterKey::Kind::leq, b});
    all.push_back({AiterKey::Kind::geq, b});
  }
  for (int i = 0; i < 300; ++i) {
    std::vector<AiterKey> keys;
    for (const AiterKey& k : all)
      if (rng.chance(0.2)) keys.push_back(k);
    const std::vector<AiterRange> ranges = aiter_ranges(keys);
    std::size_t r = 0;
    for (std::int64_t m = 1; m <= 10000; ++m) {
      while (r < ranges.size() && ranges[r].hi < m)
        ++r;
      const bool covered = r < ranges.size() && ranges[r].lo <= m;
      const auto k = aiter_lookup(keys, m);
      REQUIRE(covered == bool(k));
      if (k) REQUIRE(*k == ranges[r].key);
    }
  }
}

TEST_CASE("aiter export: a program that follows the buckets round-trips exactly, with the knobs "
          "as aiter's files write them") {
  const Program p = parse_program_or_throw(
      "def choose(M, N, K):\n"
      "    if M <= 16:\n"
      "        return Config(BM=16, BN=64, BK=128, warps=4, stages=2, group=1)\n"
      "    if M <= 512 and N >= 1024:\n"
      "        return Config(BM=64, BN=128, BK=64, warps=4, stages=2, group=8, waves_per_eu=0, "
      "matrix_instr_nonkdim=32, kpack=2)\n"
      "    if M * N <= 33554432:\n" // M <= 8192 at N = 4096
      "        return Config(BM=128, BN=128, BK=64, warps=8, stages=2, group=8)\n"
      "    return Config(BM=256, BN=256, BK=64, warps=8, stages=2, group=4)\n",
      "aligned");
  const AiterExport e = export_aiter(p, options());
  CHECK(e.file_name == "gfx942-GEMM-A16W16-N=4096-K=4096.json");
  CHECK(e.differs.empty());
  CHECK(e.vendor.empty());
  CHECK(e.warnings.empty());
  CHECK(e.notes.front().find("returns the program's decision for every M >= 1") !=
        std::string::npos);
  const auto j = nlohmann::ordered_json::parse(e.json);
  std::vector<std::string> keys;
  for (auto it = j.begin(); it != j.end(); ++it)
    keys.push_back(it.key());
  CHECK(keys == std::vector<std::string>{"M_LEQ_4", "M_LEQ_8", "M_LEQ_16", "M_LEQ_32", "M_LEQ_64",
                                         "M_LEQ_128", "M_LEQ_256", "M_LEQ_512", "M_LEQ_1024",
                                         "M_LEQ_2048", "M_LEQ_4096", "M_LEQ_8192", "any"});
  // Fields in the order and with the defaults of aiter's gfx942 files; set knobs kept.
  const auto& small = j["M_LEQ_16"];
  std::vector<std::string> fields;
  for (auto it = small.begin(); it != small.end(); ++it)
    fields.push_back(it.key());
  CHECK(fields == std::vector<std::string>{"BLOCK_SIZE_M", "BLOCK_SIZE_N", "BLOCK_SIZE_K",
                                           "GROUP_SIZE_M", "num_warps", "num_stages",
                                           "waves_per_eu", "matrix_instr_nonkdim", "cache_modifier",
                                           "NUM_KSPLIT", "kpack"});
  CHECK(small["waves_per_eu"] == 2);
  CHECK(small["matrix_instr_nonkdim"] == 16);
  CHECK(small["kpack"] == 1);
  CHECK(small["cache_modifier"].is_null());
  CHECK(small["NUM_KSPLIT"] == 1);
  CHECK(j["M_LEQ_512"]["waves_per_eu"] == 0);
  CHECK(j["M_LEQ_512"]["matrix_instr_nonkdim"] == 32);
  CHECK(j["M_LEQ_512"]["kpack"] == 2);
  CHECK(j["any"]["BLOCK_SIZE_M"] == 256);
  // Imported back, it chooses as the program does (knobs as aiter launches them) on every M.
  const AiterImport imp = import_aiter_config(e.json, "cfg/" + e.file_name);
  for (const std::int64_t m : round_trip_ms())
    REQUIRE_MESSAGE(imp.program.choose(at(m)) == with_aiter_defaults(p.choose(at(m)), true),
                    "M=" << m);
  CHECK(imp.description.front().find("for N=4096, K=4096 on gfx942") != std::string::npos);
  // Without kpack (gfx950) the field is left out where the program leaves it unset.
  AiterExportOptions o = options();
  o.kpack = false;
  const auto j950 = nlohmann::json::parse(export_aiter(p, o).json);
  CHECK_FALSE(j950["M_LEQ_16"].contains("kpack"));
  CHECK(j950["M_LEQ_512"]["kpack"] == 2);
}

TEST_CASE("aiter export: where the program changes inside a bucket the export names exactly the "
          "M where aiter's lookup differs, and the import follows the file") {
  Rng rng(12);
  int inexact = 0;
  for (int i = 0; i < 60; ++i) {
    const Program p = test::random_export_program(rng, false);
    const std::int64_t n = rng.pick(std::vector<std::int64_t>{1024, 4096, 5120});
    const AiterExport e = export_aiter(p, options(n, 4096));
    inexact += !e.differs.empty();
    const AiterImport imp = import_aiter_config(e.json, "cfg/" + e.file_name);
    const auto j = nlohmann::json::parse(e.json);
    for (const std::int64_t m : round_trip_ms()) {
      const Config want = with_aiter_defaults(p.choose(at(m, n)), true);
      const Config got = imp.program.choose(at(m, n));
      // The import is the file: the bucket aiter picks for M.
      const std::string key =
          m <= 8192 ? "M_LEQ_" + std::to_string(*std::find_if(kAiterExportBounds.begin(),
                                                              kAiterExportBounds.end(),
                                                              [&](auto b) { return m <= b; }))
                    : "any";
      REQUIRE(j[key]["BLOCK_SIZE_M"] == got.BM);
      REQUIRE_MESSAGE((got == want) != in_ranges(e.differs, m), "M=" << m << " N=" << n);
    }
    if (!e.differs.empty() && e.differs.front().first <= 8192) CHECK(!e.warnings.empty());
  }
  CHECK(inexact > 10);
}

TEST_CASE("aiter export: the vendor library is refused with its M named, or written as the "
          "fallback and named") {
  const Program p = parse_program_or_throw("def choose(M, N, K):\n"
                                           "    if M >= 100 and M <= 300:\n"
                                           "        return \"vendor\"\n"
                                           "    return Config(BM=64, BN=64, BK=64, warps=4, "
                                           "stages=2, group=1)\n",
                                           "vendor");
  try {
    export_aiter(p, options());
    FAIL("exported");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()).find("at N=4096, K=4096 for M in 100..300;") != std::string::npos);
    CHECK(std::string(e.what()).find("--vendor-fallback") != std::string::npos);
  }
  AiterExportOptions o = options();
  o.vendor_fallback = parse_config("Config(BM=128, BN=128, BK=64, warps=8, stages=2, group=8)");
  const AiterExport e = export_aiter(p, o);
  CHECK(e.vendor == MRanges{{100, 300}});
  bool named = false;
  for (const auto& w : e.warnings)
    named = named || w.find("hipBLASLt) at N=4096, K=4096 for M in 100..300") != std::string::npos;
  CHECK(named);
  // Bad options.
  o = options();
  o.device = "";
  CHECK_THROWS_WITH_AS(export_aiter(p, o), doctest::Contains("give --device NAME"), InputError);
  o.device = "../gfx942";
  CHECK_THROWS_WITH_AS(export_aiter(p, o), doctest::Contains("--device '../gfx942'"), InputError);
  o = options(0, 64);
  CHECK_THROWS_AS(export_aiter(p, o), InputError);
  CHECK(aiter_device_name("mi300x") == "gfx942");
  CHECK(aiter_device_name("mi355x") == "gfx950");
  CHECK_FALSE(aiter_device_name("h100"));
}

TEST_CASE("aiter import: a file in aiter's public format, hand-written from its documented "
          "form, imports with aiter's bucket order") {
  const AiterImport a = import_aiter_config(kPublicFile, "gfx942-GEMM-A16W16-N=8192-K=1024.json");
  CHECK(a.keys.size() == 5);
  CHECK(a.dropped_fields.empty());
  const auto bm = [&](std::int64_t m) { return a.program.choose(at(m, 8192, 1024)).BM; };
  CHECK(bm(1) == 16);
  CHECK(bm(16) == 16);
  CHECK(bm(17) == 64);
  CHECK(bm(256) == 64);
  CHECK(bm(2048) == 128);
  CHECK(bm(2049) == 128); // "any": 128x256
  CHECK(a.program.choose(at(2049)).BN == 256);
  CHECK(a.program.choose(at(4095)).BN == 256);
  CHECK(bm(4096) == 256); // M_GEQ_4096
  CHECK(bm(1000000) == 256);
  const Config c = a.program.choose(at(100));
  CHECK(c.waves_per_eu == 1);
  CHECK(c.matrix_instr_nonkdim == 16);
  CHECK_FALSE(c.kpack);
  CHECK(a.program.choose(at(1)).kpack == 1);
  std::string text;
  for (const auto& l : a.description)
    text += l + "\n";
  CHECK(text.find("M_LEQ_256: M = 17..256: 64x128x128 w8 s2 g4") != std::string::npos);
  CHECK(text.find("any: M = 2049..4095:") != std::string::npos);
  CHECK(text.find("M_GEQ_4096: M >= 4096:") != std::string::npos);
  // Read through the file-type detection, as tilevolve import and export do.
  const ImportedProgram any = read_any_program_text(kPublicFile, "f.json");
  CHECK(any.kind == "aiter config");
  CHECK(any.program == a.program);
  // M_LEQ_1 (the newest releases), M_GEQ at the largest M_LEQ bound, an unreached "any".
  const AiterImport b = import_aiter_config(
      "{\"M_LEQ_1\": " + bucket() + ", \"M_LEQ_8192\": " + bucket(", \"waves_per_eu\": 1") +
          ", \"M_GEQ_8192\": " + bucket(", \"kpack\": 2") +
          ", \"any\": " + bucket(", \"kpack\": 1") + "}",
      "b.json");
  CHECK_FALSE(b.program.choose(at(1)).waves_per_eu);
  CHECK(b.program.choose(at(2)).waves_per_eu == 1);
  CHECK(b.program.choose(at(8192)).waves_per_eu == 1);
  CHECK(b.program.choose(at(8193)).kpack == 2);
  text.clear();
  for (const auto& l : b.description)
    text += l + "\n";
  CHECK(text.find("newest aiter releases only") != std::string::npos);
  CHECK(text.find("\"any\" is never reached") != std::string::npos);
}

TEST_CASE("aiter import: hostile files are refused with the file and the key named") {
  const std::string ok = bucket();
  struct Case {
    std::string text, part;
  };
  const std::vector<Case> cases{
      {"{\"M_LEQ_24\": " + ok + "}", "at /M_LEQ_24: not a key aiter's GEMM config lookup reads"},
      {"{\"M_LEQ_16384\": " + ok + "}", "at /M_LEQ_16384: not a key"},
      {"{\"M_LEQ_064\": " + ok + "}", "at /M_LEQ_064: not a key"},
      {"{\"any\": " + ok + ", \"N_LEQ_64\": " + ok + "}", "at /N_LEQ_64: not a key"},
      {"{\"M_LEQ_64\": " + ok + ", \"M_LEQ_16\": " + ok + ", \"any\": " + ok + "}",
       "at /M_LEQ_16: M_LEQ_16 comes after M_LEQ_64"},
      {"{\"M_GEQ_64\": " + ok + ", \"M_LEQ_16\": " + ok + ", \"any\": " + ok + "}",
       "at /M_LEQ_16: M_LEQ_16 comes after M_GEQ_64"},
      {"{\"any\": " + ok + ", \"M_LEQ_16\": " + ok + "}", "at /M_LEQ_16: M_LEQ_16 comes after any"},
      {"{\"M_LEQ_64\": " + ok + ", \"M_GEQ_32\": " + ok + "}",
       "at /M_GEQ_32: M_GEQ_32 overlaps M_LEQ_64"},
      {"{\"M_LEQ_2048\": " + ok + ", \"M_GEQ_4096\": " + ok + "}",
       "no key serves M = 2049..4095 (after M_LEQ_2048, before M_GEQ_4096): aiter's "
       "get_gemm_config raises KeyError"},
      {"{\"M_LEQ_64\": " + ok + "}", "no key serves M >= 65 (after M_LEQ_64)"},
      {"{\"M_GEQ_16\": " + ok + "}", "no key serves M <= 15 (before M_GEQ_16)"},
      {"{\"M_LEQ_64\": " + ok + ", \"M_LEQ_64\": " + ok + "}", "M_LEQ_64"},
      {"{}", "no M buckets"},
      {"{\"any\": 5}", "at /any: expected an object of Triton meta-parameters"},
      {"{\"any\": " + bucket(", \"kpack\": 1000000000") + "}",
       "at /any/kpack: kpack must be an integer from 0 to 65536"},
      {R"({"any": {"BLOCK_SIZE_M": 18446744073709551615, "BLOCK_SIZE_N": 64, "BLOCK_SIZE_K": 64,
          "GROUP_SIZE_M": 1, "num_warps": 4, "num_stages": 2}})",
       "at /any/BLOCK_SIZE_M: BLOCK_SIZE_M must be an integer from 1 to 65536"},
      {R"({"any": {"BLOCK_SIZE_M": 64.0, "BLOCK_SIZE_N": 64, "BLOCK_SIZE_K": 64,
          "GROUP_SIZE_M": 1, "num_warps": 4, "num_stages": 2}})",
       "at /any/BLOCK_SIZE_M: BLOCK_SIZE_M must be an integer"},
      {R"({"any": {"BLOCK_SIZE_M": "64", "BLOCK_SIZE_N": 64, "BLOCK_SIZE_K": 64,
          "GROUP_SIZE_M": 1, "num_warps": 4, "num_stages": 2}})",
       "at /any/BLOCK_SIZE_M: BLOCK_SIZE_M must be an integer"},
      {"{\"any\": " + bucket(", \"num_warps\": true") + "}", "num_warps"},
      {R"({"any": {"BLOCK_SIZE_M": 0, "BLOCK_SIZE_N": 64, "BLOCK_SIZE_K": 64,
          "GROUP_SIZE_M": 1, "num_warps": 4, "num_stages": 2}})",
       "at /any/BLOCK_SIZE_M: BLOCK_SIZE_M must be an integer from 1"},
      {R"({"any": {"BLOCK_SIZE_M": 64, "BLOCK_SIZE_K": 64, "GROUP_SIZE_M": 1, "num_warps": 4,
          "num_stages": 2}})",
       "at /any: missing BLOCK_SIZE_N"},
      {"{\"any\": " + bucket(", \"cache_modifier\": \".cg\"") + "}",
       "at /any/cache_modifier: cache_modifier \".cg\": tilevolve's config has no cache modifier"},
      {"{\"any\": " + bucket(", \"cache_modifier\": 3") + "}",
       "at /any/cache_modifier: cache_modifier must be null or a short string"},
      {"{\"any\": " + bucket(", \"NUM_KSPLIT\": 4") + "}",
       "at /any/NUM_KSPLIT: NUM_KSPLIT 4: split-K has no place"},
      {"{\"any\": " + bucket(", \"NUM_KSPLIT\": 0") + "}",
       "at /any/NUM_KSPLIT: NUM_KSPLIT must be an integer from 1"},
      {"{\"any\": " + bucket(", \"SPLITK_BLOCK_SIZE\": 512") + "}",
       "at /any/SPLITK_BLOCK_SIZE: a field tilevolve's config cannot hold"},
      {"[1, 2]", "expected a JSON object of M buckets"},
  };
  for (const Case& c : cases) {
    const std::string why = refusal(c.text);
    INFO(c.text);
    CHECK_MESSAGE(why.find(c.part) != std::string::npos, why);
    if (!why.empty()) CHECK(why.rfind("cfg/gfx942-GEMM-A16W16-N=64-K=64.json:", 0) == 0);
  }
  // --drop-unknown-fields drops what tilevolve's config cannot hold, and lists it.
  AiterImportOptions drop;
  drop.drop_unknown_fields = true;
  const AiterImport d = import_aiter_config(
      "{\"any\": " + bucket(", \"cache_modifier\": \".cg\", \"NUM_KSPLIT\": 4, \"EVEN_K\": 1") +
          "}",
      "d.json", drop);
  CHECK(d.dropped_fields ==
        std::vector<std::string>{"EVEN_K", "NUM_KSPLIT 4", "cache_modifier \".cg\""});
  CHECK(d.program.choose(at(1)).BM == 64);
  // Still refused with it: wrong types and huge values are not fields to drop.
  CHECK(refusal("{\"any\": " + bucket(", \"NUM_KSPLIT\": 1e9") + "}", true).find("NUM_KSPLIT") !=
        std::string::npos);
}

} // namespace aiter_exporter_test
