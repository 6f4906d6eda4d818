// Numeric flags (cli/number_checks.hpp): issue 13 found `--seed -1` wrapping to 2^64-1,
// `--budget 99999999999999999999` saturating, and NaN accepted for --target, --max-seconds and
// --probe-margin. Every one is refused with the flag, what was expected, and exit status 2.
#include "support/shell.hpp"
#include "support/temp_dir.hpp"

#include <doctest/doctest.h>
#include <string>

// In a namespace of its own: the test files are compiled several to a unit (unity build).
namespace number_checks_test {

namespace {

tv::test::ShellResult tilevolve(const std::string& args) {
  return tv::test::run_shell(std::string(TILEVOLVE_BINARY) + " " + args + " 2>&1");
}

void refused(const std::string& args, const std::string& message) {
  const auto r = tilevolve(args);
  INFO(args, "\n", r.out);
  CHECK(r.status == 2);
  CHECK(r.out.find("tilevolve: error: " + message) != std::string::npos);
}

} // namespace

TEST_CASE("number_checks: integers that would wrap, saturate or read as octal are refused") {
  refused("evolve --seed -1", "--seed: expected an integer from 0 to 2^64-1, got '-1'");
  refused("evolve --seed 18446744073709551616",
          "--seed: expected an integer from 0 to 2^64-1, got '18446744073709551616'");
  refused("evolve --budget 99999999999999999999",
          "--budget: expected an integer from 0 to 1000000000000, got '99999999999999999999'");
  refused("evolve --budget -5", "--budget: expected an integer from 0 to 1000000000000, got '-5'");
  refused("evolve --budget 010",
          "--budget: expected an integer from 0 to 1000000000000, got '010' (no leading zeros)");
  refused("evolve --budget 0x10", "--budget: expected an integer");
  refused("evolve --budget ' 5'", "--budget: expected an integer");
  refused("evolve --budget 1e3", "--budget: expected an integer");
  refused("evolve --islands 0", "--islands: expected an integer from 1 to 1024, got '0'");
  refused("evolve --batch 2147483648", "--batch: expected an integer from 1 to 1048576");
  refused("evolve --checkpoint-every -1", "--checkpoint-every: expected an integer from 0");
  refused("evolve --checkpoint-seconds -1", "--checkpoint-seconds: expected a number from 0");
  refused("evolve --probes 0", "--probes: expected an integer from 1");
  refused("baselines --split-seed -1", "--split-seed: expected an integer from 0 to 2^64-1");
  refused("baselines --preset llama3-8b --tp 0", "--tp: expected an integer from 1 to 65536");
  refused("lecture --seeds 100000", "--seeds: expected an integer from 1 to 10000");
  refused("splits --splits 0", "--splits: expected an integer from 1 to 100000");
  refused("ablate cascade --budget -1", "--budget: expected an integer from 0");
  refused("lecture --threads -2", "--threads: expected an integer from 0 to 4096");
  // A flag CLI11 itself rejects (no value) gets the same form and status.
  refused("evolve --budget", "--budget");
  refused("evolve --no-such-flag", "unknown option '--no-such-flag' (run tilevolve evolve --help");
}

TEST_CASE("number_checks: NaN, infinities and out-of-range reals are refused") {
  for (const char* flag : {"--target", "--max-seconds", "--probe-margin"})
    for (const char* bad : {"nan", "NaN", "inf", "-inf", "1e999", "0x1p3", "-0.5"}) {
      const std::string args = std::string("evolve ") + flag + " " + bad;
      refused(args, std::string(flag) + ": expected a number from 0 to ");
    }
  refused("evolve --probe-margin 1.5", "--probe-margin: expected a number from 0 to 1, got '1.5'");
  refused("baselines --keep nan", "--keep: expected a number from 0 to 1, got 'nan'");
  refused("baselines --keep 2", "--keep: expected a number from 0 to 1, got '2'");
}

TEST_CASE("number_checks: good values still work and --help states the ranges") {
  const tv::test::ScratchDir scratch("tilevolve_number_checks");
  const std::string dir = scratch.at("run"); // not made yet: the binary makes it
  const auto ok = tilevolve("evolve --gpu h100 --budget 16 --seed 18446744073709551615 "
                            "--target 0 --max-seconds 30 --probe-margin 0.5 --quiet --json --out " +
                            dir);
  CHECK(ok.status == 0);
  CHECK(tv::test::read_text(dir + "/config.json").find("\"seed\": 18446744073709551615") !=
        std::string::npos);
  // --help-all states the ranges; --help, brief, names the types alone.
  const auto help = tilevolve("evolve --help-all");
  CHECK(help.status == 0);
  CHECK(help.out.find("--seed UINT:from 0 to 2^64-1") != std::string::npos);
  CHECK(help.out.find("--probe-margin FLOAT:from 0 to 1") != std::string::npos);
  const auto brief = tilevolve("evolve --help");
  CHECK(brief.status == 0);
  CHECK(brief.out.find("--seed UINT=0") != std::string::npos);
  CHECK(brief.out.find("--probe-margin") == std::string::npos); // an advanced option
}

} // namespace number_checks_test
