// End-to-end tests of the workload sources: the real tilevolve binary on a hipBLASLt log, a
// model preset, inline shapes and a replay file given alone.
#include "support/shell.hpp"
#include "support/temp_dir.hpp"

#include "models/data_dir.hpp"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>
#include <string>

// In a namespace of its own: the test files are compiled several to a unit (unity build).
namespace workloads_cli_test {

namespace {

using Run = tv::test::ShellResult;

Run run(const std::string& args, bool merge_stderr = false) {
  return tv::test::run_shell(std::string(TILEVOLVE_BINARY) + " " + args +
                             (merge_stderr ? " 2>&1" : " 2>/dev/null"));
}

bool contains(const std::string& text, const std::string& what) {
  return text.find(what) != std::string::npos;
}

} // namespace

TEST_CASE("workloads_cli: evolve --workload-log reports weighted, plain and uplift figures") {
  const std::string log = tv::data_path("workloads/llama3_8b_vllm_mi300x.yaml");
  const Run r = run("evolve --workload-log " + log + " --gpu mi300x --budget 300 --json");
  REQUIRE(r.status == 0);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j["problem"]["shapes_file"] == log);
  CHECK(j["problem"]["train_shapes"].get<int>() + j["problem"]["test_shapes"].get<int>() == 25);
  CHECK(j["problem"]["weighted"] == true);
  CHECK(j["problem"]["notes"][0].get<std::string>().rfind("hipBLASLt log: 25 entries", 0) == 0);
  for (const char* half : {"train", "test"}) {
    INFO(half);
    CHECK(j[half]["weighted"] == true);
    CHECK(j[half]["uplift"].get<double>() > 1.0);
    CHECK(j[half]["plain_speedup_vs_expert"].get<double>() > 0);
    CHECK(j["baselines"]["expert"][half]["uplift"].get<double>() == doctest::Approx(1.0));
    // Nothing beats the per-shape oracle end to end.
    CHECK(j[half]["uplift"].get<double>() <=
          j["baselines"]["oracle"][half]["uplift"].get<double>() + 1e-12);
  }
  // The brief report shows the weighted fractions with the uplift; --explain the whole table.
  const Run brief = run("evolve --workload-log " + log + " --gpu mi300x --budget 100");
  REQUIRE(brief.status == 0);
  CHECK(contains(brief.out, "train uplift"));
  const Run text = run("evolve --workload-log " + log + " --gpu mi300x --budget 100 --explain");
  REQUIRE(text.status == 0);
  CHECK(contains(text.out, "25 shapes from " + log));
  CHECK(contains(text.out, "train uplift"));
  CHECK(contains(text.out, "Plain (every shape counted once):"));
}

TEST_CASE("workloads_cli: a log's merged, transposed, batched and skipped entries reach the "
          "report, a malformed line stops it") {
  const std::string entry = "- {function: matmul, M: 6144, N: 128, K: 4096, transA: T, "
                            "transB: N, batch_count: 1, a_type: bf16_r, b_type: bf16_r, "
                            "call_count: 10}\n";
  const tv::test::ScratchDir scratch("tilevolve_workloads_cli_test");
  const std::string log = scratch.write(
      "acceptance.yaml",
      entry + entry +
          "- {function: matmul, M: 6144, N: 128, K: 4096, transA: N, transB: T, "
          "a_type: bf16_r, b_type: bf16_r, call_count: 2}\n"
          "- {function: matmul, M: 64, N: 64, K: 128, transA: N, transB: N, batch_count: 32, "
          "a_type: f16_r, b_type: f16_r, call_count: 3}\n"
          "- {function: matmul, M: 6144, N: 128, K: 4096, transA: T, transB: N, "
          "a_type: f8_fnuz_r, b_type: f8_fnuz_r, call_count: 5}\n"
          "- {function: matmul, M: 6144, N: 128, K: 4096, transA: T, transB: N, "
          "a_type: i8_r, b_type: i8_r, call_count: 4}\n");
  const Run b = run("baselines --workload-log " + log + " --gpu mi300x --split none --json");
  REQUIRE(b.status == 0);
  const auto j = nlohmann::json::parse(b.out);
  REQUIRE(j["per_shape"].size() == 4);
  CHECK(j["per_shape"][0]["shape"] == "acceptance:bf16:NT:M128:N6144:K4096");
  CHECK(j["per_shape"][1]["shape"] == "acceptance:bf16:TN:M128:N6144:K4096");
  CHECK(j["per_shape"][2]["shape"] == "acceptance:f16:NN:M64:N64:K128");
  CHECK(j["per_shape"][3]["shape"] == "acceptance:fp8:NT:M128:N6144:K4096"); // as --inline's
  CHECK(j["problem"]["notes"][0] ==
        "hipBLASLt log: 6 entries, 5 kept -> 4 GEMMs after merging identical ones (weight = "
        "call_count x batch_count); skipped 1 entry: 1 with a_type i8_r (4 calls)");
  CHECK(j["per_shape"][0]["weight"] == 20); // 2 lines x 10 calls
  CHECK(j["per_shape"][1]["weight"] == 2);
  CHECK(j["per_shape"][2]["weight"] == 96); // 3 calls x batch 32
  CHECK(j["problem"]["weighted"] == true);

  const std::string bad = scratch.write("malformed.yaml", entry + entry +
                                                              "- {function: matmul, M: "
                                                              "6144, N: 128\n");
  const Run e = run("evolve --workload-log " + bad + " --budget 10", true);
  CHECK(e.status == 2);
  CHECK(contains(e.out, "tilevolve: error: " + bad + ":3: unbalanced braces or brackets"));
}

TEST_CASE("workloads_cli: evolve --preset llama3-70b --tp 8, with --keep and --tokens") {
  const Run r = run("evolve --preset llama3-70b --tp 8 --gpu h100 --budget 300 --json");
  REQUIRE(r.status == 0);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j["problem"]["shapes_file"] == "model llama3-70b (tp 8)");
  CHECK(j["problem"]["train_shapes"] == 22);
  CHECK(j["problem"]["test_shapes"] == 22);
  CHECK(j["problem"]["weighted"] == false); // every projection runs once per layer
  CHECK(j["train"]["speedup_vs_expert"].get<double>() > 1.0);

  const Run k = run("baselines --preset llama3-70b --tp 8 --keep 0.99 --gpu h100");
  REQUIRE(k.status == 0);
  CHECK(contains(k.out, "--keep 0.99: kept "));
  CHECK(contains(k.out, " of 44 shapes, "));
  const Run t = run("baselines --preset mixtral-8x7b --tokens 1,4096 --split none --json");
  REQUIRE(t.status == 0);
  const auto tj = nlohmann::json::parse(t.out);
  CHECK(tj["per_shape"].size() == 8); // qkv, o, expert_gate_up, expert_down x 2 token counts
  CHECK(tj["problem"]["weighted"] == true);

  const Run two = run("evolve --preset llama3-8b --shapes x.csv", true);
  CHECK(two.status == 2);
  CHECK(contains(two.out, "give one shape source, not --shapes and --preset"));
  const Run tp = run("evolve --tp 8", true);
  CHECK(tp.status == 2);
  CHECK(contains(tp.out, "--tp only applies to --preset"));
  const Run div = run("evolve --preset qwen2.5-7b --tp 8", true);
  CHECK(div.status == 2);
  CHECK(contains(div.out, "num_attention_heads 28 of qwen2.5-7b is not divisible by 8"));
}

TEST_CASE("workloads_cli: evolve --inline and a resumed run keep the shape source") {
  const Run r = run("evolve --inline 128,4096,4096 --inline 1,4096,4096,f16 --inline "
                    "8192,28672,4096 --split none --gpu h100 --budget 200 --json");
  REQUIRE(r.status == 0);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j["problem"]["shapes_file"] == "--inline");
  CHECK(j["problem"]["train_shapes"] == 3);
  const Run bad = run("evolve --inline 128,4096", true);
  CHECK(bad.status == 2);
  CHECK(contains(bad.out, "--inline '128,4096': 2 fields"));

  const tv::test::ScratchDir scratch("tilevolve_workloads_cli_test");
  const std::string dir = scratch.at("resume_model");
  const Run first = run("evolve --preset llama3-8b --tokens 1,128,4096 --gpu h100 --budget 150 "
                        "--quiet --json --out " +
                        dir);
  REQUIRE(first.status == 0);
  const auto cfg = nlohmann::json::parse(tv::test::read_text(dir + "/config.json"));
  CHECK(cfg["problem"]["model"] == "llama3-8b");
  CHECK(cfg["problem"]["tokens"] == "1,128,4096");
  const Run again = run("evolve --resume " + dir + " --json");
  REQUIRE(again.status == 0);
  const auto a = nlohmann::json::parse(again.out);
  CHECK(a["best"] == nlohmann::json::parse(first.out)["best"]);
  CHECK(a["problem"]["shapes_file"] == "model llama3-8b");
}

TEST_CASE("workloads_cli: --backend replay:FILE alone runs the README's replay problem") {
  const std::string file = tv::data_path("replay/h100_mm.txt");
  const Run alone = run("evolve --backend replay:" + file + " --budget 300 --seed 2 --json");
  REQUIRE(alone.status == 0);
  const auto a = nlohmann::json::parse(alone.out);
  CHECK(a["problem"]["gpu"] == "h100");
  CHECK(a["problem"]["train_shapes"] == 106);
  CHECK(a["problem"]["test_shapes"] == 106);
  CHECK(a["problem"]["expert_file"] == tv::data_path("experts/h100_inductor.py"));
  const Run spelled =
      run("evolve --backend replay:" + file + " --gpu h100 --shapes " +
          tv::data_path("replay/h100_shapes.csv") + " --expert " +
          tv::data_path("experts/h100_inductor.py") + " --budget 300 --seed 2 --json");
  REQUIRE(spelled.status == 0);
  const auto s = nlohmann::json::parse(spelled.out);
  CHECK(a["best"]["program"] == s["best"]["program"]);
  CHECK(a["train"] == s["train"]);
  CHECK(a["test"] == s["test"]);
  CHECK(a["baselines"] == s["baselines"]);

  const Run wrong = run("evolve --backend replay:" + file + " --gpu mi300x", true);
  CHECK(wrong.status == 2);
  CHECK(contains(wrong.out, "measured on a device with 232448 bytes of shared memory per block"));
}

} // namespace workloads_cli_test
