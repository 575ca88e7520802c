// model_config: reading a HuggingFace config.json and counting its parameters exactly.
// Field names follow transformers' LlamaConfig / MistralConfig / Qwen2Config / Gemma3TextConfig /
// Llama4TextConfig / GptOssConfig / GPT2Config; defaults are those classes' defaults where a key is
// optional there too (docs/formulas-model.md §1).
#include <algorithm>
#include <cmath>
#include <vector>
#include <filesystem>
#include <fmt/format.h>
#include <optional>

#include "roofline/error.hpp"
#include "roofline/io.hpp"
#include "model/mla.hpp"
#include "roofline/json.hpp"
#include "roofline/model.hpp"

namespace roofline {

namespace {

struct reader {
  const json& j;
  const std::string& file;
  std::string prefix;  ///< "text_config." inside a multimodal wrapper: errors name the key as written

  bool has(const char* key) const { return j.contains(key) && !j.at(key).is_null(); }
  input_error error(const std::string& key, const std::string& problem) const { return input_error(file, prefix + key, problem); }

  std::int64_t positive_int(const char* key) const {
    if (!has(key)) throw error(key, "missing (a positive integer is required)");
    return checked_int(key);
  }
  std::int64_t positive_int(const char* key, std::int64_t fallback) const {
    return has(key) ? checked_int(key) : fallback;
  }
  /// A non-negative integer (0 allowed: first_k_dense_replace, n_shared_experts, num_nextn_predict_layers).
  std::int64_t checked_int_or_zero(const char* key) const {
    const json& v = j.at(key);
    if (!v.is_number_integer() || v.get<std::int64_t>() < 0)
      throw input_error(file, key, "must be a non-negative integer, got " + v.dump());
    return v.get<std::int64_t>();
  }
  std::int64_t checked_int(const char* key) const {
    const json& v = j.at(key);
    if (!v.is_number_integer())
      throw error(key, "must be an integer, got " + v.dump());
    const std::int64_t x = v.get<std::int64_t>();
    if (x <= 0) throw error(key, "must be positive, got " + std::to_string(x));
    return x;
  }
  bool boolean(const char* key, bool fallback) const {
    if (!has(key)) return fallback;
    const json& v = j.at(key);
    if (!v.is_boolean()) throw error(key, "must be true or false, got " + v.dump());
    return v.get<bool>();
  }
  double positive_number(const char* key, double fallback) const {
    if (!has(key)) return fallback;
    const json& v = j.at(key);
    if (!v.is_number() || !(v.get<double>() > 0) || !std::isfinite(v.get<double>()))
      throw error(key, "must be a positive number, got " + v.dump());
    return v.get<double>();
  }
  std::string string(const char* key) const {
    if (!has(key)) throw error(key, "missing");
    const json& v = j.at(key);
    if (!v.is_string()) throw error(key, "must be a string, got " + v.dump());
    return v.get<std::string>();
  }
};

std::string stem_of(const std::string& file) {
  const std::string s = std::filesystem::path(file).stem().string();
  return s.empty() ? file : s;
}

/// A config key that changes FLOPs or bytes, and what it means.
struct arithmetic_key {
  const char* key;
  const char* meaning;
};
constexpr arithmetic_key arithmetic_keys[] = {
    {"num_local_experts", "mixture of experts"},
    {"num_experts", "mixture of experts"},
    {"num_experts_per_tok", "mixture of experts (experts per token)"},
    {"n_routed_experts", "mixture of experts"},
    {"n_shared_experts", "shared experts"},
    {"moe_intermediate_size", "mixture of experts (expert width)"},
    {"shared_expert_intermediate_size", "a shared expert"},
    {"sliding_window", "sliding-window attention"},
    {"use_sliding_window", "sliding-window attention"},
    {"sliding_window_pattern", "sliding-window attention on a layer pattern"},
    {"layer_types", "per-layer attention types (sliding / chunked / full)"},
    {"attention_chunk_size", "chunked attention"},
    {"no_rope_layers", "layers without rotary embedding (NoPE)"},
    {"no_rope_layer_interval", "layers without rotary embedding (NoPE)"},
    {"use_qk_norm", "query/key normalization"},
    {"attn_temperature_tuning", "attention temperature tuning"},
    {"interleave_moe_layer_step", "mixture of experts on every n-th layer"},
    {"moe_layers", "mixture of experts on listed layers"},
    {"intermediate_size_mlp", "a dense MLP width beside the experts"},
    {"experts_per_token", "mixture of experts (experts per token)"},
    {"swiglu_limit", "clamped SwiGLU"},
    {"attn_logit_softcapping", "attention logit soft-capping"},
    {"final_logit_softcapping", "final logit soft-capping"},
    {"q_lora_rank", "low-rank query projection (MLA)"},
    {"kv_lora_rank", "low-rank key/value projection (MLA)"},
    {"partial_rotary_factor", "partial rotary embedding"},
    {"qk_rope_head_dim", "decoupled RoPE key width (MLA)"},
    {"qk_nope_head_dim", "query/key width without RoPE (MLA)"},
    {"v_head_dim", "a value head width other than head_dim"},
    {"first_k_dense_replace", "dense layers before the MoE layers"},
    {"moe_layer_freq", "MoE on every n-th layer"},
    {"num_nextn_predict_layers", "multi-token-prediction layers"},
};

/// False for a value that leaves the arithmetic as the family counts it (null, false, 0, {}, [],
/// partial_rotary_factor 1).
bool changes_arithmetic(const char* key, const json& v) {
  if (v.is_null()) return false;
  if (v.is_boolean()) return v.get<bool>();
  if (v.is_number()) return std::string(key) == "partial_rotary_factor" ? v.get<double>() != 1.0 : v.get<double>() != 0.0;
  if (v.is_object() || v.is_array()) return !v.empty();
  return true;
}

/// Refuses, by name, the first arithmetic key present in the config that `honoured` does not list.
void refuse_unmodelled(const reader& r, const std::string& model_type, const std::vector<const char*>& honoured) {
  for (const auto& k : arithmetic_keys) {
    if (!r.j.contains(k.key) || !changes_arithmetic(k.key, r.j.at(k.key))) continue;
    if (std::any_of(honoured.begin(), honoured.end(), [&](const char* h) { return std::string(h) == k.key; })) continue;
    throw r.error(k.key, std::string(k.meaning) + " is not modelled for model_type '" + model_type +
                             "': counting this config as the dense family would be wrong (" + r.j.at(k.key).dump() + ")");
  }
}

/// Layers of kind `local` ("sliding_attention", or llama4's "chunked_attention") in `layer_types`,
/// whose other entries must be "full_attention".
std::int64_t local_layers_from_types(const reader& r, std::int64_t layers, const std::string& local = "sliding_attention") {
  const json& t = r.j.at("layer_types");
  if (!t.is_array() || static_cast<std::int64_t>(t.size()) != layers)
    throw r.error("layer_types", "must list one attention type per layer (" + std::to_string(layers) + ")");
  std::int64_t n = 0;
  for (const auto& e : t) {
    if (!e.is_string() || (e != local && e != "full_attention"))
      throw r.error("layer_types", "entries must be \"" + local + "\" or \"full_attention\", got " + e.dump());
    n += e == local;
  }
  return n;
}

/// A list of layer indices (mlp_only_layers, moe_layers), each in [0, layers).
std::vector<std::int64_t> layer_list(const reader& r, const char* key, std::int64_t layers) {
  std::vector<std::int64_t> out;
  const json& v = r.j.at(key);
  if (!v.is_array()) throw r.error(key, "must be a list of layer indices");
  for (const auto& e : v) {
    if (!e.is_number_integer() || e.get<std::int64_t>() < 0 || e.get<std::int64_t>() >= layers)
      throw r.error(key, "must be a list of layer indices in [0, " + std::to_string(layers) + "), got " + e.dump());
    if (std::find(out.begin(), out.end(), e.get<std::int64_t>()) == out.end()) out.push_back(e.get<std::int64_t>());
  }
  return out;
}

/// Defaults of each family's transformers config class for the keys a config.json may leave out
/// (Gemma3TextConfig: google/gemma-3-27b-it's text_config names no vocab_size; MistralConfig:
/// num_key_value_heads 8, so a Mistral config without the key is GQA, not MHA). 0 = the key is
/// required (shape keys), or for kv_heads: absent → num_attention_heads (LlamaConfig, Phi3Config).
struct shape_defaults {
  std::int64_t hidden = 0, intermediate = 0, layers = 0, heads = 0, kv_heads = 0, vocab = 0, positions = 2048, head_dim = 0;
  bool tied = false;
  std::int64_t sliding_window = 0;  ///< MistralConfig: 4096 when the key is absent (null: none)
  const char* config_class = "LlamaConfig";
};

/// How a family places sliding-window attention (transformers' *Attention and *DecoderLayer classes;
/// a `layer_types` list, where given, says per layer).
enum class window_rule {
  none,         ///< llama; llama4 attends in chunks instead (read_llama4)
  every_layer,  ///< mistral, mixtral, phi3: sliding_window on every layer; an explicit null is no window
  qwen,         ///< the qwen families: only with use_sliding_window, on layers >= max_window_layers (Qwen2Attention)
  alternate,    ///< gemma2 (Gemma2DecoderLayer: layer_idx % 2 == 0), gpt_oss (GptOssConfig: even layers): (L + 1) / 2
  pattern,      ///< gemma3_text: unless (layer_idx + 1) is a multiple of sliding_window_pattern (Gemma3TextConfig: 6)
};
/// Where a family's experts come from (read_moe).
enum class moe_rule { none, mixtral, qwen, llama4, gpt_oss };
/// Which bias keys a family reads: none (Mistral, Mixtral, Phi-3 have no bias), Qwen2's fixed q/k/v
/// bias (Qwen2Attention: q/k/v_proj bias=True, o_proj bias=False), or `attention_bias` for q/k/v/o.
enum class bias_rule { none, qwen2, attention_bias };

/// One model_type of the Llama-like family: what parse_llama_family reads differently for it.
struct family_traits {
  const char* model_type;
  shape_defaults defaults;
  /// The arithmetic keys (arithmetic_keys) this type models; any other one present is refused.
  std::vector<const char*> honoured;
  window_rule window = window_rule::none;
  std::int64_t window_default = 0;  ///< sliding_window when the key is absent (alternate, pattern)
  moe_rule moe = moe_rule::none;
  bias_rule bias = bias_rule::attention_bias;
  bool attention_bias_default = false;  ///< GptOssConfig: True
  bool mlp_bias_key = false;            ///< LlamaConfig.mlp_bias
  bool gemma = false;  ///< GeGLU (gelu_pytorch_tanh), sandwich norms, √h-scaled embedding, logit softcaps
  bool qk_norm = false;            ///< q_norm, k_norm over head_dim (Qwen3Attention, Gemma3Attention)
  bool fused_projections = false;  ///< Phi3Attention.qkv_proj, Phi3MLP.gate_up_proj
};

/// The Llama-like model_types, with transformers' __init__ defaults per config class
/// (num_key_value_heads, max_position_embeddings, ...).
const std::vector<family_traits>& llama_family() {
  using w = window_rule;
  using m = moe_rule;
  using b = bias_rule;
  static const std::vector<family_traits> table = {
      {"llama", {}, {}, w::none, 0, m::none, b::attention_bias, false, true},
      {"mistral", {0, 0, 0, 0, 8, 0, 4096 * 32, 0, false, 4096, "MistralConfig"}, {"sliding_window", "layer_types"},
       w::every_layer, 0, m::none, b::none},
      {"mixtral", {0, 0, 0, 0, 8, 0, 4096 * 32, 0, false, 0, "MixtralConfig"},
       {"sliding_window", "layer_types", "num_local_experts", "num_experts_per_tok"}, w::every_layer, 0, m::mixtral, b::none},
      {"qwen2", {0, 0, 0, 0, 32, 0, 32768, 0, false, 0, "Qwen2Config"}, {"sliding_window", "use_sliding_window", "layer_types"},
       w::qwen, 0, m::none, b::qwen2},
      {"qwen2_moe", {0, 0, 0, 0, 16, 0, 32768, 0, false, 0, "Qwen2MoeConfig"},
       {"sliding_window", "use_sliding_window", "layer_types", "num_experts", "num_experts_per_tok", "moe_intermediate_size",
        "shared_expert_intermediate_size"},
       w::qwen, 0, m::qwen, b::qwen2},
      {"qwen3", {0, 0, 0, 0, 32, 0, 32768, 128, false, 0, "Qwen3Config"}, {"sliding_window", "use_sliding_window", "layer_types"},
       w::qwen, 0, m::none, b::attention_bias, false, false, false, true},
      {"qwen3_moe", {0, 0, 0, 0, 4, 0, 32768, 0, false, 0, "Qwen3MoeConfig"},
       {"sliding_window", "use_sliding_window", "layer_types", "num_experts", "num_experts_per_tok", "moe_intermediate_size"},
       w::qwen, 0, m::qwen, b::attention_bias, false, false, false, true},
      {"gemma2", {0, 0, 0, 0, 4, 0, 8192, 256, true, 0, "Gemma2Config"},
       {"sliding_window", "layer_types", "attn_logit_softcapping", "final_logit_softcapping"}, w::alternate, 4096, m::none,
       b::attention_bias, false, false, true},
      {"gemma3_text", {2304, 9216, 26, 8, 4, 262208, 131072, 256, true, 0, "Gemma3TextConfig"},
       {"sliding_window", "sliding_window_pattern", "layer_types", "attn_logit_softcapping", "final_logit_softcapping"},
       w::pattern, 4096, m::none, b::attention_bias, false, false, true, true},
      {"phi3", {0, 0, 0, 0, 0, 0, 4096, 0, false, 0, "Phi3Config"}, {"sliding_window", "layer_types"}, w::every_layer, 0,
       m::none, b::none, false, false, false, false, true},
      {"llama4_text", {5120, 8192, 48, 40, 8, 202048, 131072, 128, false, 0, "Llama4TextConfig"},
       {"num_local_experts", "num_experts_per_tok", "interleave_moe_layer_step", "moe_layers", "intermediate_size_mlp",
        "attention_chunk_size", "no_rope_layers", "no_rope_layer_interval", "use_qk_norm", "attn_temperature_tuning",
        "layer_types"},
       w::none, 0, m::llama4},
      {"gpt_oss", {0, 0, 0, 0, 8, 0, 131072, 64, false, 0, "GptOssConfig"},
       {"num_local_experts", "num_experts_per_tok", "experts_per_token", "sliding_window", "layer_types", "swiglu_limit"},
       w::alternate, 128, m::gpt_oss, b::attention_bias, true},
  };
  return table;
}

/// The traits of `model_type`; nullptr when it is not of the Llama-like family.
const family_traits* llama_traits(const std::string& model_type) {
  for (const auto& t : llama_family())
    if (model_type == t.model_type) return &t;
  return nullptr;
}

/// The context a config is built for: max_position_embeddings, extended by its rope_scaling
/// (transformers modeling_rope_utils: linear, dynamic, yarn, llama3, longrope). Sets
/// c.context_limit and its source; refuses an unknown rope type by name.
void read_context_limit(const reader& r, model_config& c) {
  c.context_limit = c.max_positions;
  c.context_limit_source = fmt::format("max_position_embeddings {}", c.max_positions);
  if (!r.has("rope_scaling")) return;
  const json& rs = r.j.at("rope_scaling");
  if (!rs.is_object()) throw r.error("rope_scaling", "must be an object or null, got " + rs.dump());
  if (rs.empty()) return;
  const char* type_key = rs.contains("rope_type") ? "rope_type" : "type";
  if (!rs.contains(type_key) || !rs.at(type_key).is_string())
    throw r.error("rope_scaling", "names no rope_type (linear, dynamic, yarn, llama3, longrope)");
  std::string type = rs.at(type_key).get<std::string>();
  if (type == "su") type = "longrope";  // Phi-3's first name for it
  if (type == "default") return;
  const std::string field = std::string("rope_scaling.") + type_key;
  if (type != "linear" && type != "dynamic" && type != "yarn" && type != "llama3" && type != "longrope")
    throw r.error(field, "'" + type + "' is not modelled (linear, dynamic, yarn, llama3, longrope): the context it allows is unknown");
  auto number = [&](const char* key) -> std::optional<double> {
    if (!rs.contains(key) || rs.at(key).is_null()) return std::nullopt;
    if (!rs.at(key).is_number() || !(rs.at(key).get<double>() > 0))
      throw r.error(std::string("rope_scaling.") + key, "must be a positive number, got " + rs.at(key).dump());
    return rs.at(key).get<double>();
  };
  const std::optional<double> factor = number("factor");
  std::optional<double> original = number("original_max_position_embeddings");
  if (!original && r.has("original_max_position_embeddings"))  // Phi-3 keeps it beside rope_scaling
    original = double(r.positive_int("original_max_position_embeddings"));
  if (!factor && type != "longrope") throw r.error("rope_scaling.factor", "missing (" + type + " scaling needs a factor)");
  const double f = factor.value_or(1);
  const double P = double(c.max_positions);
  double limit = P;
  std::string how;
  if (type == "longrope" || (type == "linear" && c.model_type == "gemma3_text")) {
    // longrope (Phi-3): max_position_embeddings is the extended context already; Gemma 3 rescales RoPE
    // by 8 on its global layers to reach the 131072 of its config (Gemma 3 Technical Report §2.1).
    limit = original && factor ? std::max(P, *original * f) : P;
    how = fmt::format("rope_scaling {}{}: max_position_embeddings {} is the extended context", type,
                      factor ? fmt::format(" × {:g}", f) : "", c.max_positions);
  } else if (type == "yarn" || type == "llama3") {
    const double orig = original.value_or(P);
    limit = std::max(P, orig * f);
    how = fmt::format("rope_scaling {} × {:g} of original {:g}{}", type, f, orig,
                      orig * f > P ? fmt::format(" (max_position_embeddings {})", c.max_positions)
                                   : fmt::format(", within max_position_embeddings {}", c.max_positions));
  } else {  // linear, dynamic: positions (or the NTK base) scaled by the factor from the trained length
    const double orig = original.value_or(P);
    limit = std::max(P, orig * f);
    how = fmt::format("rope_scaling {} × {:g} of {} {:g}{}", type, f,
                      original ? "original_max_position_embeddings" : "max_position_embeddings", orig,
                      type == "dynamic" ? " (dynamic NTK sets no hard limit: counted to the scaled length)" : "");
  }
  c.context_limit = std::int64_t(limit);
  c.context_limit_source = how;
}

/// Sliding-window attention by the family's rule (family_traits::window), then `layer_types`.
void read_window(const reader& r, const family_traits& t, model_config& c) {
  const shape_defaults& d = t.defaults;
  switch (t.window) {
    case window_rule::none: break;
    case window_rule::every_layer:
      if (d.sliding_window > 0 && !r.j.contains("sliding_window"))
        c.defaults_used.push_back(fmt::format("sliding_window = {} ({}'s default; the key is absent)", d.sliding_window, d.config_class));
      c.sliding_window = r.j.contains("sliding_window") ? r.positive_int("sliding_window", 0) : d.sliding_window;
      c.sliding_layers = c.sliding_window > 0 ? c.layers : 0;
      break;
    case window_rule::qwen:
      if (!r.boolean("use_sliding_window", false)) break;
      c.sliding_window = r.positive_int("sliding_window");
      c.sliding_layers = std::max<std::int64_t>(0, c.layers - r.positive_int("max_window_layers", c.layers));
      break;
    case window_rule::alternate:
      c.sliding_window = r.positive_int("sliding_window", t.window_default);
      c.sliding_layers = (c.layers + 1) / 2;
      break;
    case window_rule::pattern:
      c.sliding_window = r.positive_int("sliding_window", t.window_default);
      c.sliding_layers = c.layers - c.layers / r.positive_int("sliding_window_pattern", 6);  // all but (i + 1) % pattern == 0
      break;
  }
  if (c.sliding_window > 0 && r.has("layer_types")) c.sliding_layers = local_layers_from_types(r, c.layers);
  if (c.sliding_layers == 0) c.sliding_window = 0;
}

/// Llama4TextMoe: num_local_experts experts of width intermediate_size, top-k routed, plus one
/// ungated shared expert of the same width; the other layers are a dense Llama4TextMLP of
/// intermediate_size_mlp. MoE layers: moe_layers, else range(step − 1, L, step) (Llama4TextConfig).
/// RoPE layers attend in chunks of attention_chunk_size; the NoPE layers (no_rope_layers[i] = 0, else
/// every no_rope_layer_interval-th layer) attend globally.
void read_llama4(const reader& r, model_config& c) {
  c.experts = r.positive_int("num_local_experts", 16);
  c.experts_per_token = r.positive_int("num_experts_per_tok", 1);
  c.expert_intermediate = c.intermediate;
  c.shared_expert_intermediate = c.intermediate;
  c.intermediate = r.positive_int("intermediate_size_mlp", 16384);
  if (r.has("moe_layers")) {
    c.moe_layers = static_cast<std::int64_t>(layer_list(r, "moe_layers", c.layers).size());
  } else {
    c.moe_layers = c.layers / r.positive_int("interleave_moe_layer_step", 1);  // |range(step − 1, L, step)|
  }
  const json* nr = r.has("no_rope_layers") ? &r.j.at("no_rope_layers") : nullptr;
  if (nr && (!nr->is_array() || (!nr->empty() && static_cast<std::int64_t>(nr->size()) < c.layers)))
    throw r.error("no_rope_layers", "must list 1 (RoPE) or 0 (NoPE) for each of the " + std::to_string(c.layers) + " layers");
  if (nr && !nr->empty()) {
    for (std::int64_t i = 0; i < c.layers; ++i) {
      const json& e = nr->at(static_cast<std::size_t>(i));
      if (!e.is_number_integer() || (e != 0 && e != 1)) throw r.error("no_rope_layers", "entries must be 0 or 1, got " + e.dump());
      c.nope_layers += e == 0;
    }
  } else {
    c.nope_layers = c.layers / r.positive_int("no_rope_layer_interval", 4);  // layers with (i + 1) % interval == 0
  }
  c.attention_chunk = r.positive_int("attention_chunk_size", 8192);  // Llama4TextConfig default; null: no chunking
  if (r.j.contains("attention_chunk_size") && r.j.at("attention_chunk_size").is_null()) c.attention_chunk = 0;
  if (c.attention_chunk > 0)
    c.chunked_layers = r.has("layer_types") ? local_layers_from_types(r, c.layers, "chunked_attention") : c.layers - c.nope_layers;
  if (c.chunked_layers == 0) c.attention_chunk = 0;
  c.qk_l2_norm = r.boolean("use_qk_norm", true);
  // attn_temperature_tuning: a bool in Llama4TextConfig, published as 4 in Scout's config (truthy)
  if (r.has("attn_temperature_tuning")) {
    const json& v = r.j.at("attn_temperature_tuning");
    if (!v.is_boolean() && !v.is_number()) throw r.error("attn_temperature_tuning", "must be true, false or a number, got " + v.dump());
    c.attn_temperature = v.is_boolean() ? v.get<bool>() : v.get<double>() != 0;
  } else {
    c.attn_temperature = true;
  }
}

/// The experts by the family's rule (family_traits::moe).
void read_moe(const reader& r, const family_traits& t, model_config& c) {
  switch (t.moe) {
    case moe_rule::none: break;
    case moe_rule::mixtral:
      c.experts = r.positive_int("num_local_experts");
      c.experts_per_token = r.positive_int("num_experts_per_tok");
      c.expert_intermediate = c.intermediate;
      c.moe_layers = c.layers;
      break;
    case moe_rule::qwen: {
      c.experts = r.positive_int("num_experts");
      c.experts_per_token = r.positive_int("num_experts_per_tok");
      c.expert_intermediate = r.positive_int("moe_intermediate_size");
      if (c.model_type == "qwen2_moe") {
        c.shared_expert_intermediate = r.positive_int("shared_expert_intermediate_size", 0);
        c.shared_expert_gate = c.shared_expert_intermediate > 0;  // Qwen2MoeSparseMoeBlock.shared_expert_gate [h × 1]
      }
      // Qwen2MoeDecoderLayer: MoE where layer_idx is not in mlp_only_layers and (layer_idx + 1) % step == 0
      const std::int64_t step = r.positive_int("decoder_sparse_step", 1);
      const std::vector<std::int64_t> dense_only = r.has("mlp_only_layers") ? layer_list(r, "mlp_only_layers", c.layers)
                                                                            : std::vector<std::int64_t>{};
      for (std::int64_t i = 0; i < c.layers; ++i)
        if (std::find(dense_only.begin(), dense_only.end(), i) == dense_only.end() && (i + 1) % step == 0) ++c.moe_layers;
      break;
    }
    case moe_rule::llama4: read_llama4(r, c); break;
    case moe_rule::gpt_oss:
      // GptOssMLP: a router [h × E] + bias, num_local_experts experts of width intermediate_size with
      // biases (gate_up [h × 2f] + [2f], down [f × h] + [h]), experts_per_token of them per token.
      c.experts = r.positive_int("num_local_experts");
      c.experts_per_token = r.positive_int("num_experts_per_tok", r.positive_int("experts_per_token", 4));
      if (r.has("experts_per_token") && r.positive_int("experts_per_token") != c.experts_per_token)
        throw r.error("experts_per_token", "disagrees with num_experts_per_tok (" + std::to_string(c.experts_per_token) + ")");
      c.expert_intermediate = c.intermediate;
      c.moe_layers = c.layers;
      c.expert_bias = true;
      c.swiglu_limit = r.positive_number("swiglu_limit", 7.0);  // GptOssConfig default
      c.attention_sinks = true;                                  // GptOssAttention.sinks [num_attention_heads]
      break;
  }
  if (c.experts > 0 && c.experts_per_token > c.experts)
    throw r.error("num_experts_per_tok", std::to_string(c.experts_per_token) + " exceeds the " + std::to_string(c.experts) + " experts");
}

/// The decoders of the Llama-like family (llama_family(): one row per model_type).
void parse_llama_family(const reader& r, model_config& c) {
  const std::string& mt = c.model_type;
  const family_traits* tp = llama_traits(mt);
  if (!tp) throw r.error("model_type", "'" + mt + "' is not of the Llama-like family");
  const family_traits& t = *tp;
  for (const char* key : {"hidden_act", "hidden_activation"}) {
    if (!r.has(key)) continue;
    const std::string act = r.string(key);
    const bool ok = t.gemma ? (act == "gelu_pytorch_tanh" || act == "gelu_tanh") : (act == "silu" || act == "swish");
    if (!ok)
      throw r.error(key, "'" + act + "' is not modelled (" + (t.gemma ? mt + " counts GeGLU, gelu_pytorch_tanh" : std::string("SwiGLU models use silu")) + ")");
  }
  const shape_defaults& d = t.defaults;
  auto named_default = [&](const char* key, const std::string& value) {
    c.defaults_used.push_back(fmt::format("{} = {} ({}'s default; the key is absent)", key, value, d.config_class));
  };
  auto num = [&](const char* key, std::int64_t dflt) {
    if (dflt > 0 && !r.has(key)) named_default(key, std::to_string(dflt));
    return dflt > 0 ? r.positive_int(key, dflt) : r.positive_int(key);
  };
  c.family = "llama";
  c.hidden = num("hidden_size", d.hidden);
  c.intermediate = num("intermediate_size", d.intermediate);
  c.layers = num("num_hidden_layers", d.layers);
  c.heads = num("num_attention_heads", d.heads);
  c.kv_heads = r.positive_int("num_key_value_heads", d.kv_heads > 0 ? d.kv_heads : c.heads);  // Llama/Phi3: None -> num_attention_heads
  if (!r.has("num_key_value_heads"))
    named_default("num_key_value_heads", d.kv_heads > 0 ? std::to_string(d.kv_heads)
                                                         : fmt::format("num_attention_heads = {}, multi-head", c.heads));
  c.vocab = num("vocab_size", d.vocab);
  c.max_positions = num("max_position_embeddings", d.positions);
  c.tied_embeddings = r.boolean("tie_word_embeddings", d.tied);
  c.rms_norm_eps = r.positive_number("rms_norm_eps", 1e-6);
  refuse_unmodelled(r, mt, t.honoured);
  read_window(r, t, c);
  read_moe(r, t, c);
  c.qk_norm = t.qk_norm;
  c.fused_projections = t.fused_projections;
  if (t.gemma) {
    c.gelu_mlp = c.sandwich_norms = c.scaled_embedding = true;
    c.attn_softcap = r.positive_number("attn_logit_softcapping", 0);
    c.final_softcap = r.positive_number("final_logit_softcapping", 0);
  }
  if (t.bias == bias_rule::qwen2) {
    c.attention_bias = true;
    c.o_proj_bias = false;
  } else if (t.bias == bias_rule::attention_bias) {
    c.attention_bias = r.boolean("attention_bias", t.attention_bias_default);
    c.o_proj_bias = c.attention_bias;
    if (t.mlp_bias_key) c.mlp_bias = r.boolean("mlp_bias", false);
  }
  if (r.has("head_dim") || d.head_dim > 0) {
    c.head_dim = num("head_dim", d.head_dim);
  } else {
    if (c.hidden % c.heads != 0)
      throw r.error("num_attention_heads", std::to_string(c.heads) + " does not divide hidden_size " + std::to_string(c.hidden));
    c.head_dim = c.hidden / c.heads;
  }
  if (c.heads % c.kv_heads != 0)
    throw r.error("num_key_value_heads", (r.has("num_key_value_heads") ? "" : std::string("absent, so ") + d.config_class +
                                                                              "'s default ") +
                                             std::to_string(c.kv_heads) + " does not divide num_attention_heads " +
                                             std::to_string(c.heads));
  read_context_limit(r, c);
}

/// DeepSeek-V2 / V3 (transformers DeepseekV3Config, deepseek-ai/DeepSeek-V3 modeling_deepseek.py):
/// MLA attention and DeepSeekMoE (routed experts + always-on shared experts, no gate on them).
void parse_deepseek(const reader& r, model_config& c) {
  const std::string& mt = c.model_type;
  const bool v3 = mt == "deepseek_v3";
  // Every arithmetic key of these configs is modelled below (quantization_config: parse_model_config).
  refuse_unmodelled(r, mt, {"n_routed_experts", "n_shared_experts", "num_experts_per_tok", "moe_intermediate_size",
                            "q_lora_rank", "kv_lora_rank", "qk_rope_head_dim", "qk_nope_head_dim", "v_head_dim",
                            "first_k_dense_replace", "moe_layer_freq", "num_nextn_predict_layers"});
  if (r.has("hidden_act") && r.string("hidden_act") != "silu")
    throw input_error(r.file, "hidden_act", "'" + r.string("hidden_act") + "' is not modelled (DeepSeek MLPs use silu)");
  c.family = "llama";  // RMSNorm, SwiGLU, RoPE; attention and MoE below
  c.hidden = r.positive_int("hidden_size");
  c.intermediate = r.positive_int("intermediate_size");
  c.layers = r.positive_int("num_hidden_layers");
  c.heads = r.positive_int("num_attention_heads");
  c.kv_heads = c.heads;  // MLA: every head has its own k and v (up-projected from one latent)
  c.vocab = r.positive_int("vocab_size");
  c.max_positions = r.positive_int("max_position_embeddings", v3 ? 4096 : 2048);  // DeepseekV3Config / DeepseekV2Config
  if (!r.has("max_position_embeddings"))
    c.defaults_used.push_back(fmt::format("max_position_embeddings = {} ({}'s default; the key is absent)", c.max_positions,
                                          v3 ? "DeepseekV3Config" : "DeepseekV2Config"));
  read_context_limit(r, c);
  c.tied_embeddings = r.boolean("tie_word_embeddings", false);
  c.rms_norm_eps = r.positive_number("rms_norm_eps", 1e-6);
  c.attention_bias = c.o_proj_bias = r.boolean("attention_bias", false);
  if (c.attention_bias)
    throw input_error(r.file, "attention_bias", "true is not modelled for MLA (which projections carry a bias is not counted)");
  c.q_lora_rank = r.positive_int("q_lora_rank", 0);  // null: q_proj h → heads·head_dim (DeepSeek-V2-Lite)
  c.kv_lora_rank = r.positive_int("kv_lora_rank");
  c.qk_rope_head_dim = r.positive_int("qk_rope_head_dim");
  c.head_dim = r.positive_int("qk_nope_head_dim") + c.qk_rope_head_dim;
  c.v_head_dim = r.positive_int("v_head_dim");
  c.nextn_layers = r.has("num_nextn_predict_layers") ? r.checked_int_or_zero("num_nextn_predict_layers") : 0;
  // DeepSeekMoE: MoE on layer i when n_routed_experts is set, i >= first_k_dense_replace and
  // i % moe_layer_freq == 0 (DeepseekV3DecoderLayer); the rest use the dense intermediate_size MLP.
  if (r.has("n_routed_experts")) {
    c.experts = r.positive_int("n_routed_experts");
    c.experts_per_token = r.positive_int("num_experts_per_tok");
    c.expert_intermediate = r.positive_int("moe_intermediate_size");
    c.shared_expert_intermediate = c.expert_intermediate * (r.has("n_shared_experts") ? r.checked_int_or_zero("n_shared_experts") : 0);
    const std::int64_t first = r.has("first_k_dense_replace") ? r.checked_int_or_zero("first_k_dense_replace") : 0;
    const std::int64_t freq = r.positive_int("moe_layer_freq", 1);
    for (std::int64_t i = first; i < c.layers; ++i) c.moe_layers += i % freq == 0;
    if (c.experts_per_token > c.experts)
      throw input_error(r.file, "num_experts_per_tok",
                        std::to_string(c.experts_per_token) + " exceeds the " + std::to_string(c.experts) + " experts");
    // Routing only (which experts, never how many): topk_method, n_group, topk_group, scoring_func,
    // norm_topk_prob, routed_scaling_factor. Read and checked; they change no FLOP or byte count
    // beyond the router's scoring pass and noaux_tc's bias vector.
    const std::string method = r.has("topk_method") ? r.string("topk_method") : (v3 ? "noaux_tc" : "greedy");
    if (method != "noaux_tc" && method != "greedy" && method != "group_limited_greedy")
      throw input_error(r.file, "topk_method", "'" + method + "' is not modelled (noaux_tc, greedy, group_limited_greedy)");
    c.router_bias = method == "noaux_tc";  // MoEGate.e_score_correction_bias [n_routed_experts]
    const std::string scoring = r.has("scoring_func") ? r.string("scoring_func") : (v3 ? "sigmoid" : "softmax");
    if (scoring != "sigmoid" && scoring != "softmax")
      throw input_error(r.file, "scoring_func", "'" + scoring + "' is not modelled (sigmoid, softmax)");
    c.router_sigmoid = scoring == "sigmoid";
    const std::int64_t groups = r.positive_int("n_group", 1), topk_groups = r.positive_int("topk_group", 1);
    if (c.experts % groups != 0)
      throw input_error(r.file, "n_group", std::to_string(groups) + " does not divide the " + std::to_string(c.experts) + " experts");
    if (topk_groups > groups)
      throw input_error(r.file, "topk_group", std::to_string(topk_groups) + " exceeds n_group " + std::to_string(groups));
  }
}

void parse_gpt2(const reader& r, model_config& c) {
  c.family = "gpt2";
  refuse_unmodelled(r, "gpt2", {});
  // GPT2MLP applies ACT2FN[activation_function]; the catalogue counts the tanh GELU ("gelu_new").
  if (r.has("activation_function")) {
    const std::string act = r.string("activation_function");
    if (act != "gelu_new" && act != "gelu_pytorch_tanh")
      throw r.error("activation_function",
                        "'" + act + "' is not modelled: the gpt2 family counts the tanh GELU (gelu_new, gelu_pytorch_tanh)");
  }
  c.hidden = r.positive_int("n_embd");
  c.layers = r.positive_int("n_layer");
  c.heads = r.positive_int("n_head");
  c.kv_heads = c.heads;
  c.vocab = r.positive_int("vocab_size");
  c.max_positions = r.positive_int("n_positions");
  c.context_limit = c.max_positions;
  c.context_limit_source = fmt::format("n_positions {} (a learned position table)", c.max_positions);
  c.intermediate = r.positive_int("n_inner", 4 * c.hidden);  // GPT2MLP: n_inner None -> 4·n_embd
  c.tied_embeddings = r.boolean("tie_word_embeddings", true);  // GPT2LMHeadModel ties lm_head to wte
  c.attention_bias = c.o_proj_bias = c.mlp_bias = true;       // Conv1D layers all carry a bias
  c.rms_norm_eps = r.positive_number("layer_norm_epsilon", 1e-5);
  if (c.hidden % c.heads != 0)
    throw r.error("n_head", std::to_string(c.heads) + " does not divide n_embd " + std::to_string(c.hidden));
  c.head_dim = c.hidden / c.heads;
}

}  // namespace

namespace {

/// A parameter count from its terms, summed in long double (exact to 2^64 on x86-64): a config whose
/// sizes give more parameters than an int64 holds is refused, not wrapped (the config fuzzer's
/// vocab_size 3,200,044,444,444,444 × hidden 4,096).
std::int64_t checked_count(long double n) {
  if (!(n >= 0) || n > 4.0e18L)
    throw input_error("", "config", "its sizes give " + std::to_string(double(n)) + " parameters: not a model this tool can count");
  return static_cast<std::int64_t>(n);
}

}  // namespace

std::int64_t model_config::parameters() const {
  using W = long double;
  const W h = W(hidden), q = W(heads) * W(head_dim), kv = W(kv_heads) * W(head_dim), f = W(intermediate);
  const W table = W(vocab) * h;
  if (family == "gpt2") {
    const W per_layer = 2 * h                 // ln_1 weight + bias
                                   + h * 3 * q + 3 * q   // c_attn
                                   + q * h + h           // attn.c_proj
                                   + 2 * h               // ln_2
                                   + h * f + f           // mlp.c_fc
                                   + f * h + h;          // mlp.c_proj
    return checked_count(table + W(max_positions) * h + W(layers) * per_layer + 2 * h + (tied_embeddings ? 0 : table));
  }
  W attn = h * q + 2 * h * kv + q * h;
  if (attention_bias) attn += q + 2 * kv;
  if (o_proj_bias) attn += h;
  if (qk_norm) attn += 2 * W(head_dim);
  if (mla()) attn = W(detail::mla_matmul_parameters(*this)) + W(q_lora_rank > 0 ? q_lora_rank : 0) + W(kv_lora_rank);  // + the 2 latent RMSNorms
  if (attention_sinks) attn += W(heads);  // gpt_oss: one learned logit per head
  W mlp = 3 * h * f;
  if (mlp_bias) mlp += 2 * f + h;
  W moe = 0;
  if (experts > 0) {  // every expert + the router [h × E] (+ bias) (+ a shared expert and its gate [h × 1])
    const W e = W(experts);
    moe = e * W(expert_parameters()) + h * e + (expert_bias ? e : 0);
    if (shared_expert_intermediate > 0) moe += 3 * h * W(shared_expert_intermediate) + (shared_expert_gate ? h : 0);
    if (router_bias) moe += e;  // e_score_correction_bias
  }
  const W norms = (sandwich_norms ? 4 : 2) * h;  // RMSNorm weights per layer
  return checked_count(table + W(layers) * (attn + norms) + W(layers - moe_layers) * mlp + W(moe_layers) * moe + h +
                       (tied_embeddings ? 0 : table));
}

std::int64_t model_config::expert_parameters() const {
  using W = long double;
  return checked_count(3 * W(hidden) * W(expert_intermediate) + (expert_bias ? 2 * W(expert_intermediate) + W(hidden) : 0));
}

std::int64_t model_config::active_parameters() const {
  if (experts <= 0) return parameters();
  return parameters() - moe_layers * (experts - experts_per_token) * expert_parameters();
}

namespace {

/// gemma3 (Gemma3ForConditionalGeneration) and llama4 (Llama4ForConditionalGeneration): the text
/// decoder in `text_config` is counted; the vision tower and the projector are not.
void parse_multimodal(const reader& outer, model_config& c) {
  const std::string wrapper = c.model_type, text_type = wrapper == "gemma3" ? "gemma3_text" : "llama4_text";
  refuse_unmodelled(outer, wrapper, {});  // an arithmetic key beside text_config, not inside it
  if (!outer.has("text_config") || !outer.j.at("text_config").is_object())
    throw outer.error("text_config", "missing (model_type '" + wrapper + "' keeps its text decoder there)");
  const reader text{outer.j.at("text_config"), outer.file, "text_config."};
  if (text.has("model_type") && text.string("model_type") != text_type && text.string("model_type") != wrapper)
    throw text.error("model_type", "'" + text.string("model_type") + "' inside a '" + wrapper + "' config: expected '" + text_type + "'");
  c.model_type = text_type;
  parse_llama_family(text, c);
  // Llama4Config.tie_word_embeddings (False) and the wrapper's own key, when given, rule the lm_head.
  if (outer.has("tie_word_embeddings")) c.tied_embeddings = outer.boolean("tie_word_embeddings", c.tied_embeddings);
  c.note = "text decoder of model_type '" + wrapper + "' (text_config); the vision tower" +
           (outer.has("vision_config") ? " (vision_config)" : "") + " and the multimodal projector are not counted";
}

}  // namespace

model_config parse_model_config(const std::string& text, const std::string& file) {
  json j;
  try {
    j = json::parse(text);
  } catch (const json::exception& e) {  // parse_error, or out_of_range for a number that overflows a double
    throw input_error(file, "", std::string("not valid JSON: ") + e.what());
  }
  if (!j.is_object()) throw input_error(file, "", "a config.json must be a JSON object");
  const reader r{j, file, ""};
  model_config c;
  c.source = file;
  c.model_type = r.string("model_type");
  c.name = stem_of(file);  // "tinyllama-1.1b"; a file named config.json takes its _name_or_path
  if (c.name == "config" && r.has("_name_or_path") && j.at("_name_or_path").is_string())
    c.name = j.at("_name_or_path").get<std::string>();
  if (llama_traits(c.model_type))
    parse_llama_family(r, c);
  else if (c.model_type == "deepseek_v3" || c.model_type == "deepseek_v2")
    parse_deepseek(r, c);
  else if (c.model_type == "gemma3" || c.model_type == "llama4")
    parse_multimodal(r, c);
  else if (c.model_type == "gpt2")
    parse_gpt2(r, c);
  else
    throw input_error(file, "model_type",
                      "'" + c.model_type + "' is not supported (llama, mistral, mixtral, qwen2, qwen2_moe, qwen3, qwen3_moe, "
                      "gemma2, gemma3, gemma3_text, phi3, llama4, llama4_text, gpt_oss, deepseek_v2, deepseek_v3, gpt2)");
  // Quantized weights: honoured for every family, or refused naming the method (weight_format.hpp)
  if (r.has("quantization_config") && !j.at("quantization_config").empty()) c.weights = parse_quantization_config(j.at("quantization_config"), file);
  // sizes whose products no count can hold are refused here, naming the file
  try {
    (void)c.parameters();
  } catch (const input_error&) {
    throw input_error(file, "config", "its sizes give more parameters than this tool can count (vocab_size, hidden_size, "
                                      "intermediate_size, layers, experts)");
  }
  return c;
}

model_config load_model_config(const std::string& path) { return parse_model_config(read_file(path), path); }

}  // namespace roofline
