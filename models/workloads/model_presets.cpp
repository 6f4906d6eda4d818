#include "models/workloads/model_presets.hpp"

#include "ir/error.hpp"
#include "models/csv_fields.hpp"
#include "models/data_dir.hpp"
#include "models/json_text.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>
#include <fstream>
#include <set>
#include <sstream>

namespace tv {

namespace {

using nlohmann::json;

/// The config.json fields each architecture needs (all positive integers, except the
/// optional ones listed in kOptional).
const std::map<std::string, std::vector<std::string>, std::less<>> kRequired = {
    {"llama",
     {"hidden_size", "intermediate_size", "num_attention_heads", "num_key_value_heads",
      "num_hidden_layers"}},
    {"mixtral",
     {"hidden_size", "intermediate_size", "num_attention_heads", "num_key_value_heads",
      "num_hidden_layers", "num_local_experts", "num_experts_per_tok"}},
    {"deepseek_v3",
     {"hidden_size", "intermediate_size", "moe_intermediate_size", "num_attention_heads",
      "num_hidden_layers", "first_k_dense_replace", "n_routed_experts", "n_shared_experts",
      "num_experts_per_tok", "kv_lora_rank", "qk_nope_head_dim", "qk_rope_head_dim", "v_head_dim"}},
};
/// Fields that may be absent (head_dim: hidden/heads; q_lora_rank: 0 = a plain q_proj).
const std::set<std::string, std::less<>> kOptional = {"head_dim", "q_lora_rank"};
/// Fields that may be zero.
const std::set<std::string, std::less<>> kMayBeZero = {"first_k_dense_replace", "n_shared_experts",
                                                       "q_lora_rank"};

/// One GEMM of a layer: its name, N and K of one shard, and how many layers run it.
struct LayerGemm {
  std::string name;
  std::int64_t N, K, layers;
  bool expert = false; ///< routed expert: M and the weight follow the routing
};

std::int64_t preset_ceil_div(std::int64_t a, std::int64_t b) {
  return (a + b - 1) / b;
}

/// Checks the tensor-parallel split of one dimension.
std::int64_t split(std::int64_t value, int tp, const ModelPreset& m, std::string_view what) {
  if (value % tp != 0)
    throw InputError(
        fmt::format("--tp {}: {} {} of {} is not divisible by {}", tp, what, value, m.name, tp));
  return value / tp;
}

/// KV heads per shard: split when tp divides them, one replicated head per shard when tp is a
/// multiple of them (as vLLM does), an error otherwise.
std::int64_t kv_heads_per_shard(std::int64_t kv, int tp, const ModelPreset& m) {
  if (kv % tp == 0) return kv / tp;
  if (tp % kv == 0) return 1;
  throw InputError(fmt::format("--tp {}: the {} KV heads of {} can be neither split nor "
                               "replicated {} ways",
                               tp, kv, m.name, tp));
}

std::vector<LayerGemm> attention_gqa(const ModelPreset& m, int tp) {
  const auto& c = m.config;
  const std::int64_t H = c.at("hidden_size"), heads = c.at("num_attention_heads");
  const std::int64_t hd = c.count("head_dim") ? c.at("head_dim") : H / heads;
  if (!c.count("head_dim") && H % heads != 0)
    throw InputError(fmt::format("{}: hidden_size {} is not a multiple of num_attention_heads "
                                 "{} (give head_dim)",
                                 m.name, H, heads));
  const std::int64_t q = split(heads, tp, m, "num_attention_heads");
  const std::int64_t kv = kv_heads_per_shard(c.at("num_key_value_heads"), tp, m);
  const std::int64_t L = c.at("num_hidden_layers");
  return {{"qkv", (q + 2 * kv) * hd, H, L}, {"o", H, q * hd, L}};
}

std::vector<LayerGemm> mlp(std::string_view prefix, std::int64_t H, std::int64_t inter,
                           std::int64_t layers, int tp, const ModelPreset& m, bool expert,
                           std::string_view what) {
  const std::int64_t i = split(inter, tp, m, what);
  return {{fmt::format("{}gate_up", prefix), 2 * i, H, layers, expert},
          {fmt::format("{}down", prefix), H, i, layers, expert}};
}

std::vector<LayerGemm> layer_gemms(const ModelPreset& m, int tp) {
  const auto& c = m.config;
  const std::int64_t H = c.at("hidden_size"), L = c.at("num_hidden_layers");
  std::vector<LayerGemm> out;
  auto append = [&](std::vector<LayerGemm> g) { out.insert(out.end(), g.begin(), g.end()); };
  if (m.architecture == "llama") {
    append(attention_gqa(m, tp));
    append(mlp("", H, c.at("intermediate_size"), L, tp, m, false, "intermediate_size"));
  } else if (m.architecture == "mixtral") {
    append(attention_gqa(m, tp));
    append(mlp("expert_", H, c.at("intermediate_size"), L, tp, m, true, "intermediate_size"));
  } else { // deepseek_v3
    const std::int64_t heads = split(c.at("num_attention_heads"), tp, m, "num_attention_heads");
    const std::int64_t nope = c.at("qk_nope_head_dim"), rope = c.at("qk_rope_head_dim");
    const std::int64_t v = c.at("v_head_dim"), kv_rank = c.at("kv_lora_rank");
    const std::int64_t q_rank = c.count("q_lora_rank") ? c.at("q_lora_rank") : 0;
    if (q_rank > 0) {
      out.push_back({"q_a_proj", q_rank, H, L});
      out.push_back({"q_b_proj", heads * (nope + rope), q_rank, L});
    } else {
      out.push_back({"q_proj", heads * (nope + rope), H, L});
    }
    out.push_back({"kv_a_proj", kv_rank + rope, H, L});
    out.push_back({"kv_b_proj", heads * (nope + v), kv_rank, L});
    out.push_back({"o", H, heads * v, L});
    const std::int64_t dense = c.at("first_k_dense_replace");
    if (dense > L)
      throw InputError(fmt::format("{}: first_k_dense_replace {} exceeds num_hidden_layers {}",
                                   m.name, dense, L));
    if (dense > 0)
      append(mlp("dense_", H, c.at("intermediate_size"), dense, tp, m, false, "intermediate_size"));
    const std::int64_t moe_inter = c.at("moe_intermediate_size");
    if (const std::int64_t shared = c.at("n_shared_experts"); shared > 0 && L > dense)
      append(mlp("shared_", H, shared * moe_inter, L - dense, tp, m, false,
                 "n_shared_experts x moe_intermediate_size"));
    if (L > dense)
      append(mlp("expert_", H, moe_inter, L - dense, tp, m, true, "moe_intermediate_size"));
  }
  return out;
}

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(fmt::format("cannot read the model table '{}'", path));
  std::ostringstream buf;
  buf << in.rdbuf();
  return buf.str();
}

} // namespace

std::vector<ModelPreset> parse_model_table(std::string_view text, std::string_view source) {
  // Strict: malformed JSON and repeated keys are reported with their line and column.
  const json j = parse_json_text(text, source);
  if (!j.is_object()) throw InputError(fmt::format("{}: not a JSON object", source));
  if (!j.contains("format") || j["format"] != "tilevolve-models" || !j.contains("version") ||
      j["version"] != 1)
    throw InputError(
        fmt::format("{}: expected \"format\": \"tilevolve-models\" and \"version\": 1", source));
  if (!j.contains("models") || !j["models"].is_object() || j["models"].empty())
    throw InputError(fmt::format("{}: expected a non-empty \"models\" object", source));
  std::vector<ModelPreset> out;
  for (const auto& item : j["models"].items()) {
    // Plain variables, not structured bindings: a lambda may capture them (clang 14).
    const std::string name = item.key();
    const json& e = item.value();
    const auto fail = [&](const std::string& what) {
      throw InputError(fmt::format("{}: model '{}': {}", source, name, what));
    };
    if (!e.is_object()) fail("expected an object");
    ModelPreset m;
    m.name = name;
    for (const char* key : {"architecture", "hf_repo", "source"}) {
      if (!e.contains(key) || !e[key].is_string() || e[key].get<std::string>().empty())
        fail(fmt::format("'{}' must be a non-empty string", key));
    }
    m.architecture = e["architecture"];
    m.hf_repo = e["hf_repo"];
    m.source = e["source"];
    const auto req = kRequired.find(m.architecture);
    if (req == kRequired.end())
      fail(fmt::format("unknown architecture '{}' (expected llama, mixtral or deepseek_v3)",
                       m.architecture));
    if (!e.contains("config") || !e["config"].is_object()) fail("'config' must be an object");
    for (const auto& [key, v] : e["config"].items()) {
      const bool zero_ok = kMayBeZero.count(key) > 0;
      if (!v.is_number_integer() || v.get<std::int64_t>() < (zero_ok ? 0 : 1) ||
          v.get<std::int64_t>() > kMaxShapeDim)
        fail(fmt::format("config.{} must be an integer in [{}, 2^31]", key, zero_ok ? 0 : 1));
      m.config[key] = v.get<std::int64_t>();
    }
    for (const std::string& key : req->second)
      if (!m.config.count(key)) fail(fmt::format("config.{} is missing", key));
    for (const auto& [key, v] : m.config)
      if (std::find(req->second.begin(), req->second.end(), key) == req->second.end() &&
          !kOptional.count(key))
        fail(fmt::format("config.{} is not used by architecture {}", key, m.architecture));
    out.push_back(std::move(m));
  }
  return out;
}

std::vector<ModelPreset> load_model_table() {
  const std::string path = data_path("models/models.json");
  return parse_model_table(read_text(path), path);
}

ModelPreset find_model(const std::string& name) {
  std::vector<std::string> names;
  for (ModelPreset& m : load_model_table()) {
    if (m.name == name) return m;
    names.push_back(m.name);
  }
  throw InputError(fmt::format("unknown model '{}' (known: {})", name, fmt::join(names, ", ")));
}

const std::vector<std::int64_t>& default_token_counts() {
  static const std::vector<std::int64_t> t = {1, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192};
  return t;
}

std::vector<std::int64_t> parse_token_counts(std::string_view list) {
  std::vector<std::int64_t> out;
  std::set<std::int64_t> seen;
  for (std::string_view f : split_csv_fields(list)) {
    std::int64_t v = 0;
    const auto [ptr, ec] = std::from_chars(f.data(), f.data() + f.size(), v);
    if (f.empty() || ec != std::errc() || ptr != f.data() + f.size() || v < 1 || v > kMaxShapeDim)
      throw InputError(fmt::format("--tokens '{}': '{}' is not an integer in [1, 2^31] "
                                   "(expected a list such as 1,16,128,4096)",
                                   list, f));
    if (!seen.insert(v).second)
      throw InputError(fmt::format("--tokens '{}': {} is given twice", list, v));
    out.push_back(v);
  }
  return out;
}

std::vector<Shape> preset_shapes(const ModelPreset& m, int tp,
                                 const std::vector<std::int64_t>& tokens) {
  if (tp < 1) throw InputError(fmt::format("--tp must be at least 1, got {}", tp));
  if (tokens.empty()) throw InputError("a model preset needs at least one token count");
  const std::string model = tp > 1 ? fmt::format("{}-tp{}", m.name, tp) : m.name;
  const auto& c = m.config;
  const std::int64_t experts = m.architecture == "mixtral"       ? c.at("num_local_experts")
                               : m.architecture == "deepseek_v3" ? c.at("n_routed_experts")
                                                                 : 0;
  const std::int64_t top_k = experts ? c.at("num_experts_per_tok") : 0;
  if (experts && top_k > experts)
    throw InputError(
        fmt::format("{}: num_experts_per_tok {} exceeds the {} experts", m.name, top_k, experts));
  std::vector<Shape> out;
  std::map<std::string, std::size_t> index; // name -> position (expert GEMMs may coincide)
  for (const LayerGemm& g : layer_gemms(m, tp))
    for (std::int64_t t : tokens) {
      Shape s;
      s.N = g.N;
      s.K = g.K;
      s.M = t;
      s.weight = double(g.layers);
      if (g.expert) {
        const std::int64_t assignments = t * top_k;
        const std::int64_t active = std::min(experts, assignments);
        s.M = preset_ceil_div(assignments, active);
        s.weight = double(active) * double(g.layers);
      }
      s.name = fmt::format("{}:{}:M{}", model, g.name, s.M);
      auto [it, fresh] = index.emplace(s.name, out.size());
      if (fresh)
        out.push_back(std::move(s));
      else
        out[it->second].weight += s.weight;
    }
  return out;
}

} // namespace tv
