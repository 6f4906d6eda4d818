#include "ir/error.hpp"
#include "models/workloads/model_presets.hpp"

#include "support/fixtures.hpp"

#include <doctest/doctest.h>

#include <map>
#include <string>

// In a namespace of its own: the test files are compiled several to a unit (unity build).
namespace model_presets_test {

using namespace tv;

namespace {

std::string error_of(const std::string& text) {
  try {
    parse_model_table(text, "m.json");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

/// Sum over the shapes at token count `t` (or, for experts, the GEMMs of all active experts)
/// of weight x N x K: the weights of the linear layers one forward pass touches.
double linear_parameters(const std::vector<Shape>& shapes, const std::string& suffix) {
  double sum = 0;
  for (const Shape& s : shapes)
    if (s.name.size() >= suffix.size() &&
        s.name.compare(s.name.size() - suffix.size(), suffix.size(), suffix) == 0)
      sum += s.weight * double(s.N) * double(s.K);
  return sum;
}

} // namespace

TEST_CASE("model_presets: llama3-8b and llama3-70b at tp 8 are the lecture's shapes") {
  // The lecture set was written by hand from the same config.json values (see
  // data/shapes/lecture.csv): the presets must give the same names, sizes and order.
  const auto& lecture = test::lecture_shapes();
  std::vector<Shape> presets = preset_shapes(find_model("llama3-8b"), 1, default_token_counts());
  const auto b70 = preset_shapes(find_model("llama3-70b"), 8, default_token_counts());
  presets.insert(presets.end(), b70.begin(), b70.end());
  REQUIRE(presets.size() == lecture.size());
  for (std::size_t i = 0; i < presets.size(); ++i) {
    INFO(lecture[i].name);
    CHECK(presets[i].name == lecture[i].name);
    CHECK(presets[i].M == lecture[i].M);
    CHECK(presets[i].N == lecture[i].N);
    CHECK(presets[i].K == lecture[i].K);
    CHECK(presets[i].dtype == DType::bf16);
    CHECK(presets[i].weight == (i < 44 ? 32 : 80)); // once per layer
  }
}

TEST_CASE("model_presets: the GEMM weights add up to the published parameter counts") {
  // Llama-3 8B has 8,030,261,248 parameters: 2 x 128256 x 4096 embedding and lm_head,
  // 65 x 4096 norm weights, and the rest in the layers' projections.
  const auto l8 = preset_shapes(find_model("llama3-8b"), 1, {16});
  CHECK(linear_parameters(l8, ":M16") == 8030261248.0 - 2 * 128256.0 * 4096 - 65 * 4096.0);
  // Mixtral-8x7B has 46,702,792,704 parameters; without embeddings (2 x 32000 x 4096), norms
  // (65 x 4096) and routers (32 layers x 8 x 4096) the rest are attention and experts. With
  // 4096 tokens every expert is active (4096 x 2 assignments over 8 experts: 1024 rows each).
  const auto mx = preset_shapes(find_model("mixtral-8x7b"), 1, {4096});
  for (const Shape& s : mx)
    if (s.name.find(":expert_") != std::string::npos) {
      CHECK(s.M == 1024);
      CHECK(s.weight == 8 * 32);
    }
  CHECK(linear_parameters(mx, "") ==
        46702792704.0 - 2 * 32000.0 * 4096 - 65 * 4096.0 - 32 * 8 * 4096.0);
}

TEST_CASE("model_presets: experts follow the routing and tensor parallelism shards N or K") {
  // Mixtral, one token: 2 assignments, 2 active experts with one row each, in each of 32
  // layers; 16 tokens: 32 assignments over all 8 experts, 4 rows each.
  const auto mx = preset_shapes(find_model("mixtral-8x7b"), 2, {1, 16});
  std::map<std::string, Shape> by;
  for (const Shape& s : mx)
    by[s.name] = s;
  REQUIRE(by.count("mixtral-8x7b-tp2:expert_gate_up:M1"));
  CHECK(by["mixtral-8x7b-tp2:expert_gate_up:M1"].weight == 2 * 32);
  CHECK(by["mixtral-8x7b-tp2:expert_gate_up:M4"].weight == 8 * 32);
  CHECK(by["mixtral-8x7b-tp2:expert_gate_up:M4"].N == 14336); // 2 x 14336 / 2
  CHECK(by["mixtral-8x7b-tp2:expert_down:M4"].K == 7168);
  CHECK(by["mixtral-8x7b-tp2:qkv:M16"].N == (16 + 2 * 4) * 128);
  CHECK(by["mixtral-8x7b-tp2:o:M16"].K == 16 * 128);

  // DeepSeek-V3 at tp 8: 1, 16 and 32 tokens all give experts one row (8, 128 and 256 active
  // experts): one shape whose weight adds the three, in each of the 58 MoE layers.
  const auto ds = preset_shapes(find_model("deepseek-v3"), 8, {1, 16, 32});
  by.clear();
  for (const Shape& s : ds)
    by[s.name] = s;
  REQUIRE(by.count("deepseek-v3-tp8:expert_gate_up:M1"));
  CHECK(by["deepseek-v3-tp8:expert_gate_up:M1"].weight == (8 + 128 + 256) * 58);
  CHECK(by["deepseek-v3-tp8:expert_gate_up:M1"].N == 2 * 2048 / 8);
  CHECK(by["deepseek-v3-tp8:expert_down:M1"].K == 2048 / 8);
  CHECK(by["deepseek-v3-tp8:q_a_proj:M16"].N == 1536); // replicated
  CHECK(by["deepseek-v3-tp8:q_b_proj:M16"].N == 16 * (128 + 64));
  CHECK(by["deepseek-v3-tp8:kv_a_proj:M16"].N == 512 + 64);
  CHECK(by["deepseek-v3-tp8:kv_b_proj:M16"].N == 16 * (128 + 128));
  CHECK(by["deepseek-v3-tp8:o:M16"].K == 16 * 128);
  CHECK(by["deepseek-v3-tp8:dense_gate_up:M16"].weight == 3);
  CHECK(by["deepseek-v3-tp8:dense_down:M16"].K == 18432 / 8);
  CHECK(by["deepseek-v3-tp8:shared_gate_up:M16"].N == 2 * 2048 / 8);
  CHECK(by["deepseek-v3-tp8:shared_gate_up:M16"].weight == 58);

  // Gemma 2's head_dim is given (32 x 128 = 4096, not the hidden size 4608); KV heads are
  // replicated when tp exceeds them (Qwen2.5-7B has 4).
  const auto g = preset_shapes(find_model("gemma2-27b"), 1, {8});
  CHECK(g[0].name == "gemma2-27b:qkv:M8");
  CHECK(g[0].N == (32 + 2 * 16) * 128);
  CHECK(g[1].N == 4608);
  CHECK(g[1].K == 4096);
  const auto q = preset_shapes(find_model("qwen2.5-72b"), 16, {8});
  CHECK(q[0].N == (4 + 2 * 1) * 128);
  for (const char* m : {"llama3-405b", "qwen2.5-7b"})
    CHECK(!preset_shapes(find_model(m), 1, {1}).empty());
}

TEST_CASE("model_presets: bad tp, token lists, names and tables are errors") {
  CHECK_THROWS_WITH_AS(preset_shapes(find_model("qwen2.5-7b"), 8, {1}),
                       "--tp 8: num_attention_heads 28 of qwen2.5-7b is not divisible by 8",
                       InputError);
  CHECK_THROWS_WITH_AS(preset_shapes(find_model("llama3-8b"), 3, {1}),
                       "--tp 3: num_attention_heads 32 of llama3-8b is not divisible by 3",
                       InputError);
  CHECK_THROWS_AS(preset_shapes(find_model("llama3-8b"), 0, {1}), InputError);
  CHECK_THROWS_WITH_AS(find_model("llama4"), doctest::Contains("unknown model 'llama4' (known: "),
                       InputError);
  CHECK(parse_token_counts("1, 16,128") == std::vector<std::int64_t>{1, 16, 128});
  CHECK_THROWS_WITH_AS(parse_token_counts("1,x"),
                       "--tokens '1,x': 'x' is not an integer in [1, 2^31] (expected a list "
                       "such as 1,16,128,4096)",
                       InputError);
  CHECK_THROWS_AS(parse_token_counts("0"), InputError);
  CHECK_THROWS_WITH_AS(parse_token_counts("4,4"), "--tokens '4,4': 4 is given twice", InputError);

  const std::string head = R"({"format": "tilevolve-models", "version": 1, "models": )";
  CHECK(error_of("[]") == "m.json: not a JSON object");
  CHECK(error_of(R"({"format": "x"})") ==
        "m.json: expected \"format\": \"tilevolve-models\" and \"version\": 1");
  // A format of another type is refused the same way (value() would throw a JSON exception).
  CHECK(error_of(R"({"format": 7, "version": 1})") ==
        "m.json: expected \"format\": \"tilevolve-models\" and \"version\": 1");
  CHECK(error_of(head + R"({"a": {"architecture": "rwkv", "hf_repo": "r", "source": "s",
        "config": {}}}})") ==
        "m.json: model 'a': unknown architecture 'rwkv' (expected llama, mixtral or deepseek_v3)");
  CHECK(error_of(head + R"({"a": {"architecture": "llama", "hf_repo": "r", "source": "s",
        "config": {"hidden_size": 64}}}})") ==
        "m.json: model 'a': config.intermediate_size is missing");
  CHECK(error_of(head + R"({"a": {"architecture": "llama", "hf_repo": "r", "source": "s",
        "config": {"hidden_size": -64}}}})") ==
        "m.json: model 'a': config.hidden_size must be an integer in [1, 2^31]");
  CHECK(error_of(head + R"({"a": {"architecture": "llama", "hf_repo": "", "source": "s"}}})") ==
        "m.json: model 'a': 'hf_repo' must be a non-empty string");
  // The shipped table names a source for every model.
  for (const ModelPreset& m : load_model_table()) {
    CHECK(!m.source.empty());
    CHECK(!m.hf_repo.empty());
  }
}

} // namespace model_presets_test
