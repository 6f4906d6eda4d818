// Mistyped words on the command line: the nearest valid subcommand or option is named, and
// shape sources given the wrong way point to the right option.
#include "ir/nearest_word.hpp"
#include "models/data_dir.hpp"
#include "support/shell.hpp"

#include <doctest/doctest.h>
#include <string>

// In a namespace of its own: the test files are compiled several to a unit (unity build).
namespace typo_hint_test {

namespace {

tv::test::ShellResult tilevolve(const std::string& args) {
  return tv::test::run_shell(std::string(TILEVOLVE_BINARY) + " " + args + " 2>&1");
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

} // namespace

TEST_CASE("typo_hint: edit distance counts a swap of neighbours as one edit") {
  CHECK(tv::edit_distance("budget", "budget") == 0);
  CHECK(tv::edit_distance("budegt", "budget") == 1); // swap
  CHECK(tv::edit_distance("evolv", "evolve") == 1);  // insert
  CHECK(tv::edit_distance("scroe", "score") == 1);
  CHECK(tv::edit_distance("abc", "") == 3);
  CHECK(tv::edit_distance("kitten", "sitting") == 3);
}

TEST_CASE("typo_hint: the nearest word is named only when it is near and unambiguous") {
  const std::vector<std::string> subs = {"evolve", "baselines", "score", "lecture", "export"};
  CHECK(tv::nearest_word("evolv", subs) == "evolve");
  CHECK(tv::nearest_word("baseline", subs) == "baselines");
  CHECK(tv::nearest_word("lectrue", subs) == "lecture");
  CHECK(tv::nearest_word("xyzzy", subs).empty());
  CHECK(tv::nearest_word("--budegt", {"--budget", "--batch", "--seed"}) == "--budget");
  CHECK(tv::nearest_word("bu", {"budget", "batch"}).empty());               // too short to guess
  CHECK(tv::nearest_word("--budg", {"--budget", "--batch"}) == "--budget"); // a prefix
  CHECK(tv::nearest_word("ab", {"ac", "ad"}).empty()); // two equally near: no guess
}

TEST_CASE("typo_hint: every equally near word, for a message that names them all") {
  const std::vector<std::string> gpus = {"a100", "h100", "h200", "mi300x", "mi325x", "mi355x"};
  CHECK(tv::nearest_words("h300", gpus) == std::vector<std::string>{"h100", "h200"});
  CHECK(tv::nearest_words("mi300", gpus) == std::vector<std::string>{"mi300x"});
  CHECK(tv::nearest_words("b9000", gpus).empty());
  CHECK(tv::did_you_mean({"h100", "h200"}) == " (did you mean h100 or h200?)");
  CHECK(tv::did_you_mean({"a", "b", "c"}) == " (did you mean a, b or c?)");
  CHECK(tv::did_you_mean({"mi300x"}) == " (did you mean mi300x?)");
  CHECK(tv::did_you_mean({}).empty());
}

TEST_CASE("typo_hint: a mistyped --gpu names the profiles it is near") {
  const auto r = tilevolve("evolve --gpu h300 --budget 3");
  CHECK(r.status == 2);
  CHECK(contains(r.out, "tilevolve: error: unknown GPU 'h300' (did you mean h100 or h200?); "
                        "known: a100, h100, h200"));
  const auto far = tilevolve("baselines --gpu tpu-v5");
  CHECK(far.status == 2);
  CHECK(contains(far.out, "unknown GPU 'tpu-v5'; known: "));
  CHECK_FALSE(contains(far.out, "did you mean"));
}

TEST_CASE("typo_hint: the binary names an unknown subcommand and the nearest one") {
  const auto r = tilevolve("evolv");
  CHECK(r.status == 2);
  CHECK(contains(r.out, "unknown subcommand 'evolv'; did you mean 'evolve'?"));
  CHECK(contains(r.out, "evolve, baselines, score"));
  const auto far = tilevolve("frobnicate --budget 3");
  CHECK(far.status == 2);
  CHECK(contains(far.out, "unknown subcommand 'frobnicate' (the subcommands: evolve"));
  CHECK_FALSE(contains(far.out, "did you mean"));
}

TEST_CASE("typo_hint: the binary names an unknown option and the nearest one of its subcommand") {
  const auto r = tilevolve("evolve --budegt 100");
  CHECK(r.status == 2);
  CHECK(contains(r.out, "unknown option '--budegt'; did you mean --budget?"));
  CHECK(contains(r.out, "run tilevolve evolve --help for its options"));
  const auto b = tilevolve("baselines --tre-leaves 4");
  CHECK(b.status == 2);
  CHECK(contains(b.out, "unknown option '--tre-leaves'; did you mean --tree-leaves?"));
  const auto none = tilevolve("evolve --no-such-flag");
  CHECK(none.status == 2);
  CHECK(contains(none.out, "unknown option '--no-such-flag'"));
  CHECK_FALSE(contains(none.out, "did you mean"));
}

TEST_CASE("typo_hint: a hipBLASLt log given as --shapes points to --workload-log") {
  const auto r =
      tilevolve("baselines --shapes " + tv::data_path("workloads/llama3_8b_vllm_mi300x.yaml"));
  CHECK(r.status == 2);
  CHECK(contains(r.out, "llama3_8b_vllm_mi300x.yaml:1: unknown column '- {function: matmul'"));
  CHECK(contains(r.out, "this looks like a hipBLASLt log: read it with --workload-log"));
}

TEST_CASE("typo_hint: two shape sources are named by the options given") {
  const auto r = tilevolve("baselines --shapes x.csv --preset llama3-8b");
  CHECK(r.status == 2);
  CHECK(contains(r.out, "give one shape source, not --shapes and --preset (choose one of "
                        "--shapes, --workload-log, --preset, --inline)"));
  const auto tp = tilevolve("baselines --tp 2");
  CHECK(tp.status == 2);
  CHECK(contains(tp.out, "--tp only applies to --preset"));
}

} // namespace typo_hint_test
