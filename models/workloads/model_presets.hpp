#pragma once
/// Model presets: the GEMMs one forward pass of a served model runs, from a table of model
/// dimensions (data/models/models.json: each model's published config.json values and where
/// they come from; see data/models/README.md).
///
/// Shapes are row-major C[M,N] = A[M,K] * W[K,N] with M the tokens of the batch (the layer's
/// input rows), N the output features of one tensor-parallel shard and K its input features,
/// bf16, named "<model>[-tp<N>]:<gemm>:M<m>" (e.g. "llama3-70b-tp8:qkv:M128"), weight = how
/// many times the GEMM runs in one forward pass (layers x, for experts, active experts).
/// With tensor parallelism tp, column-parallel GEMMs split N and row-parallel ones split K by
/// tp (as vLLM and Megatron shard them); KV heads are replicated when tp exceeds their number.
///
/// Architectures:
/// - llama (Llama 3, Qwen 2.5, Gemma 2): per layer qkv (N = (heads/tp + 2*kv_heads/tp) *
///   head_dim, K = hidden), o (N = hidden, K = heads/tp * head_dim), gate_up (N =
///   2*intermediate/tp, K = hidden), down (N = hidden, K = intermediate/tp); head_dim is the
///   config's or hidden/heads.
/// - mixtral: llama attention, and each layer's experts: expert_gate_up and expert_down (the
///   same dims with the intermediate size, split by tp).
/// - deepseek_v3 (multi-head latent attention, no weight absorption): q_a_proj (N = q_lora_rank,
///   K = hidden, replicated), q_b_proj (N = heads/tp * (qk_nope + qk_rope head dims), K =
///   q_lora_rank), kv_a_proj (N = kv_lora_rank + qk_rope_head_dim, K = hidden, replicated),
///   kv_b_proj (N = heads/tp * (qk_nope_head_dim + v_head_dim), K = kv_lora_rank), o (N =
///   hidden, K = heads/tp * v_head_dim); the first_k_dense_replace dense layers' dense_gate_up
///   and dense_down; the other layers' shared_gate_up / shared_down (n_shared_experts x the
///   expert intermediate size, every token) and expert_gate_up / expert_down.
/// Routed experts: T tokens make T x experts_per_tok token-expert assignments, spread evenly
/// over min(experts, T x experts_per_tok) active experts; each active expert runs its own GEMM
/// with M = ceil(assignments / active) rows, so the GEMM's weight is active x MoE layers. Token
/// counts that give the same expert M merge into one shape (weights added).
#include "ir/shape.hpp"

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace tv {

/// One row of the model table.
struct ModelPreset {
  std::string name;                           ///< e.g. "llama3-70b"
  std::string architecture;                   ///< "llama", "mixtral" or "deepseek_v3"
  std::string hf_repo;                        ///< where the config.json is published
  std::string source;                         ///< how the values were read
  std::map<std::string, std::int64_t> config; ///< config.json values (field names kept)
};

/// Parses the model table; throws InputError naming `source`, the model and the field for a
/// bad format, an unknown architecture, or a missing or non-positive dimension.
std::vector<ModelPreset> parse_model_table(std::string_view text, std::string_view source);
/// Reads data/models/models.json (see data_dir.hpp).
std::vector<ModelPreset> load_model_table();
/// The model called `name` in the table; throws InputError listing the known names.
ModelPreset find_model(const std::string& name);

/// The token counts a preset uses by default: 1, 16, 32, ..., 8192 (decode to prefill).
const std::vector<std::int64_t>& default_token_counts();
/// Parses a `--tokens` list "1,16,128" (distinct integers in [1, 2^31]); InputError otherwise.
std::vector<std::int64_t> parse_token_counts(std::string_view list);

/// The GEMMs of `m` sharded `tp` ways for each token count (see above), in order of GEMM then
/// token count. Throws InputError when tp < 1 or does not divide the heads, the KV heads (or
/// is a multiple of them), or the intermediate sizes.
std::vector<Shape> preset_shapes(const ModelPreset& m, int tp,
                                 const std::vector<std::int64_t>& tokens);

} // namespace tv
