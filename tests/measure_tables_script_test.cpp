// scripts/measure-tables.sh, the GPU session's one command for the measured tables: with the
// fake worker it measures the three shape sets into one table, a deadline stops it with what
// it measured kept, the same command again measures only the rest, and bad options exit 2.
#include "eval/measurement_cache.hpp"

#include "support/shell.hpp"
#include "support/temp_dir.hpp"
#include "support/text_match.hpp"

#include <doctest/doctest.h>

#include <set>
#include <string>
#include <tuple>

// In a namespace of its own: the test files are compiled several to a unit (unity build).
namespace measure_tables_script_test {

using tv::test::contains;

namespace {

std::string script(const std::string& args) {
  return "TILEVOLVE=" TILEVOLVE_BINARY " bash " TILEVOLVE_SOURCE_DIR "/scripts/measure-tables.sh " +
         args + " 2>&1";
}

/// The distinct (M, N, K) of a table's records, and its number of records.
std::pair<std::size_t, std::size_t> sizes_and_records(const std::string& path) {
  const auto file = tv::load_measurement_file(path);
  std::set<std::tuple<std::int64_t, std::int64_t, std::int64_t>> sizes;
  for (const auto& r : file.records)
    sizes.insert({r.shape.M, r.shape.N, r.shape.K});
  return {sizes.size(), file.records.size()};
}

} // namespace

TEST_CASE("measure-tables script: three shape sets into one table, a deadline, and a rerun that "
          "measures nothing new") {
  tv::test::ScratchDir dir("tv_measure_tables");
  const std::string table = dir.at("h100_triton.csv");
  // A deadline too short to start: nothing measured, exit status 3.
  const auto none = tv::test::run_shell(script("--gpu h100 --fake --deadline 1 --out " + table));
  CHECK(none.status == 3);
  CHECK(contains(none.out, "lecture: not started (deadline)"));
  // In full: the lecture's 88 shapes, the six models' up to M = 2048 and the other models' up to
  // M = 1500 (602 distinct sizes), 48 configs and the vendor library on each.
  const auto full = tv::test::run_shell(script("--gpu h100 --fake --out " + table));
  INFO(full.out);
  REQUIRE(full.status == 0);
  const auto [sizes, records] = sizes_and_records(table);
  CHECK(sizes == 88 + 235 + 279);
  CHECK(records == sizes * 49);
  // Again: everything from the table.
  const auto again = tv::test::run_shell(script("--gpu h100 --fake --out " + table));
  REQUIRE(again.status == 0);
  CHECK(contains(again.out, "0 measured now (nothing new: cache hits only)"));
  CHECK(sizes_and_records(table).second == records);
  // Bad options.
  CHECK(tv::test::run_shell(script("--fake")).status == 2);
  CHECK(tv::test::run_shell(script("--gpu h100 --deadline soon")).status == 2);
  CHECK(tv::test::run_shell(script("--gpu h100 --bogus")).status == 2);
}

} // namespace measure_tables_script_test
