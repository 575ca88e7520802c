// Per-token FLOPs (the one model of `ops` and `mfu`) and KV-cache bytes of a model
// (docs/formulas-model.md §5).
#include <algorithm>
#include <cmath>
#include <fmt/format.h>

#include "model/mla.hpp"
#include "roofline/error.hpp"
#include "roofline/json.hpp"
#include "roofline/model.hpp"

namespace roofline {

std::int64_t matmul_parameters(const model_config& c) {
  const std::int64_t h = c.hidden, q = c.heads * c.head_dim, kv = c.kv_heads * c.head_dim, f = c.intermediate;
  if (c.family == "gpt2") return c.layers * (h * 3 * q + q * h + 2 * h * f) + c.vocab * h;  // c_attn, c_proj, c_fc, c_proj
  std::int64_t moe = 0;  // the routed experts, the router, and a shared expert with its gate
  if (c.experts > 0) {
    moe = c.experts_per_token * 3 * h * c.expert_intermediate + h * c.experts;
    if (c.shared_expert_intermediate > 0) moe += 3 * h * c.shared_expert_intermediate + (c.shared_expert_gate ? h : 0);
  }
  const std::int64_t attn = c.mla() ? detail::mla_matmul_parameters(c) : h * q + 2 * h * kv + q * h;
  return c.layers * attn + (c.layers - c.moe_layers) * 3 * h * f + c.moe_layers * moe +
         c.vocab * h;  // lm_head multiplies even when tied to the embedding
}

double attended_keys_per_query(std::int64_t t, std::int64_t window, bool causal_halved, std::int64_t chunk) {
  const double T = double(t);
  if (chunk > 0) {  // n whole chunks of C and a last one of r; a query sees only its own chunk
    const double C = double(chunk), n = double(t / chunk), r = double(t % chunk);
    return causal_halved ? (n * C * (C + 1) / 2 + r * (r + 1) / 2) / T : (n * C * C + r * r) / T;
  }
  if (window <= 0 || window >= t) return causal_halved ? (T + 1) / 2 : T;
  const double W = double(window);
  if (!causal_halved) return W;
  return (W * (W + 1) / 2 + (T - W) * W) / T;  // Σ_i min(i, W) ÷ T
}

std::vector<attention_layer_group> attention_layer_groups(const model_config& c) {
  std::vector<attention_layer_group> g;
  const std::int64_t sliding = c.sliding_window > 0 ? c.sliding_layers : 0;
  const std::int64_t chunked = c.attention_chunk > 0 ? c.chunked_layers : 0, full = c.layers - sliding - chunked;
  const bool alone = full == 0 && (sliding == 0 || chunked == 0);  // one kind of layer: plain "attention"
  if (full > 0) g.push_back({"attention", 0, full, 0});
  if (sliding > 0) g.push_back({alone ? "attention" : "attention_sliding", c.sliding_window, sliding, 0});
  if (chunked > 0) g.push_back({alone ? "attention" : "attention_chunked", 0, chunked, c.attention_chunk});
  return g;
}

std::int64_t decode_keys(std::int64_t context, std::int64_t window, std::int64_t chunk) {
  if (chunk > 0) return context % chunk;  // the earlier tokens of the query's own chunk
  return window > 0 ? std::min(context, window) : context;
}

double attention_flops_per_token(const model_config& c, phase ph, std::int64_t t, bool causal_halved,
                                 catalogue_options::mla_form mla) {
  if (t <= 0) throw input_error("", ph == phase::decode ? "--context" : "--seq", "must be positive");
  const double hq = double(c.heads) * double(c.head_dim);
  const bool halved = ph != phase::decode && causal_halved;
  double keys = 0;  // Σ over layers of the keys one query attends to
  for (const attention_layer_group& g : attention_layer_groups(c)) {
    double per_query = 0;
    if (ph == phase::decode) per_query = double(decode_keys(t, g.window, g.chunk));  // one query, no mask
    else if (g.chunk > 0 && g.chunk < t) per_query = attended_keys_per_query(t, 0, halved, g.chunk);
    else if (g.chunk > 0 || g.window <= 0 || g.window >= t) per_query = halved ? double(t) / 2 : double(t);
    else per_query = attended_keys_per_query(t, g.window, halved);
    keys += double(g.layers) * per_query;
  }
  // MLA has no sliding window: every layer attends to the same keys, with the form's widths.
  const double fwd = c.mla() ? double(c.layers) * detail::mla_attention_flops_per_layer(c, ph, keys / double(c.layers), mla)
                             : 4 * hq * keys;
  return ph == phase::train ? 3 * fwd : fwd;
}

token_flops model_flops_per_token(const model_config& c, phase ph, std::int64_t t, flops_convention conv) {
  check_positions(c, ph, t);
  const bool matmul = conv.n == flops_convention::params::matmul, train = ph == phase::train;
  const bool halved = conv.causal_halved && ph != phase::decode;
  const double n_matmul = double(matmul_parameters(c));
  token_flops f;
  f.convention = conv, f.ph = ph, f.tokens = t;
  f.n = matmul ? n_matmul : double(c.active_parameters());
  f.weights = (train ? 6 : 2) * f.n;
  const bool last = conv.last_logits && ph == phase::prefill;
  const double logits = double(c.vocab) * double(c.hidden);  // lm_head's weights: 2·V·h FLOPs per position
  if (last) f.weights -= 2 * logits * (1 - 1 / double(t));  // one position's logits per sequence of T
  f.attention = attention_flops_per_token(c, ph, t, conv.causal_halved, conv.mla);
  f.total = f.weights + f.attention;
  if (train) f.recompute = 2 * (n_matmul - logits) + f.attention / 3;
  if (train) f.recompute_selective = f.attention / 3;  // the forward attention, run again (Megatron selective)
  const char* var = ph == phase::decode ? "C" : "T";
  f.formula = fmt::format("{}N{} + {}·L·H·Q·{}", train ? 6 : 2, last ? " − 2·V·h·(1 − 1/T)" : "",
                          (train ? 3 : 1) * (halved ? 2 : 4), var);
  if (c.sliding_window > 0)
    f.formula += fmt::format(", {} capped at the {}-token window on {} of {} layers", var, c.sliding_window, c.sliding_layers, c.layers);
  if (c.mla()) {
    const bool absorbed = resolve_mla_form(conv.mla, ph) == catalogue_options::mla_form::absorbed;
    f.formula = fmt::format("{}N{} + {}·L·H·(d_qk + d_v)·{}{}", train ? 6 : 2, last ? " − 2·V·h·(1 − 1/T)" : "",
                            (train ? 3 : 1) * (halved ? 1 : 2), var,
                            absorbed || ph != phase::decode ? "" : " + 2·L·(C − 1)·r_kv·H·(d_nope + d_v)");
    f.formula += fmt::format(" (MLA {}: d_qk = {}, d_v = {})", absorbed ? "absorbed" : "naive",
                             absorbed ? c.kv_lora_rank + c.qk_rope_head_dim : c.head_dim,
                             absorbed ? c.kv_lora_rank : c.v_head_dim);
  }
  if (c.attention_chunk > 0)
    f.formula += fmt::format(", {} within the {}-token chunk on {} of {} layers", var, c.attention_chunk, c.chunked_layers, c.layers);
  f.description = fmt::format(
      "N = {} {}; attention {}; L·H·Q = {}·{}·{}, {} = {}", std::int64_t(f.n),
      matmul ? "matmul weights (lm_head in, embedding gather out; PaLM app. B, Megatron-LM)" : "parameters a token uses (embedding table in)",
      ph == phase::decode ? "over the whole KV cache, no mask" : halved ? "causal-halved, T/2 keys per query (Kaplan et al. 2020 §2.1)"
                                                                       : "full, T keys per query (PaLM app. B)",
      c.layers, c.heads, c.head_dim, var, t);
  if (last) f.description += "; logits of each sequence's last position only (a server's prefill: 2·V·h once per sequence)";
  else if (ph == phase::prefill) f.description += "; logits of every position (as training computes them)";
  return f;
}

double recompute_flops_per_token(const model_config& c, const token_flops& f, const std::string& policy) {
  if (policy.empty() || policy == "none") return 0;
  if (f.ph != phase::train) throw input_error("", "--recompute", "recomputation applies to training only");
  if (policy == "full") return f.recompute;
  if (policy == "selective") return f.recompute_selective;
  if (policy.rfind("selective-layer", 0) == 0) {
    std::int64_t every = 2;  // torchtitan ActivationCheckpoint.selective_ac_option default "2"
    const std::string rest = policy.substr(15);
    if (!rest.empty()) {
      if (rest[0] != ':' || rest.size() < 2 || rest.find_first_not_of("0123456789", 1) != std::string::npos ||
          (every = std::stoll(rest.substr(1))) < 1)
        throw input_error("", "--recompute", "'" + policy + "': give selective-layer or selective-layer:N (N ≥ 1)");
    }
    return f.recompute * double(c.layers / every) / double(c.layers);
  }
  if (policy == "selective-op") {
    if (c.experts > 0 || c.mla())
      throw input_error("", "--recompute", fmt::format("selective-op: torchtitan's per-op policy on {} ({}) is not modelled",
                                                       c.name, c.mla() ? "MLA" : "mixture of experts"));
    const double h = double(c.hidden), q = double(c.heads) * double(c.head_dim), kv = double(c.kv_heads) * double(c.head_dim),
                 ff = double(c.intermediate);
    // every second aten.mm of a layer, in execution order (torchtitan _custom_policy: mm_count % 2 == 0)
    double per_layer = 0;
    if (c.family == "gpt2") per_layer = q * h + ff * h;                  // c_attn, [attn c_proj], c_fc, [mlp c_proj]
    else if (c.fused_projections) per_layer = q * h + ff * h;            // qkv_proj, [o_proj], gate_up_proj, [down_proj]
    else per_layer = h * kv + q * h + h * ff;                            // q, [k], v, [o], gate, [up], down
    return 2 * per_layer * double(c.layers);
  }
  throw input_error("", "--recompute",
                    "'" + policy + "' is not a recompute policy (none, full, selective, selective-layer[:N], selective-op)");
}

void to_json(json& j, const token_flops& f) {
  j = {{"flops", f.total}, {"formula", f.formula}, {"description", f.description}, {"tokens", f.tokens},
       {"n", f.n}, {"n_convention", f.convention.n == flops_convention::params::matmul ? "matmul" : "all"},
       {"attention_convention", f.ph == phase::decode ? "decode" : f.convention.causal_halved ? "causal_halved" : "full"},
       {"weights_flops", f.weights}, {"attention_flops", f.attention}, {"recompute_flops", f.recompute},
       {"recompute_selective_flops", f.recompute_selective},
       {"logits", f.ph == phase::decode  ? "the new token's"
                  : f.ph == phase::train ? "every position"
                  : f.convention.last_logits ? "last position"
                                             : "every position"}};
}

namespace {
/// MLA caches one latent row (kv_lora_rank) and one RoPE key (qk_rope_head_dim) per token and layer.
double mla_cache_row(const model_config& c) { return double(c.kv_lora_rank + c.qk_rope_head_dim); }
}  // namespace

double kv_cache_bytes_per_token(const model_config& c, int kv_dtype_bytes) {
  if (c.mla()) return double(c.layers) * mla_cache_row(c) * kv_dtype_bytes;
  return 2.0 * double(c.layers) * double(c.kv_heads) * double(c.head_dim) * kv_dtype_bytes;
}

double kv_cache_bytes(const model_config& c, int kv_dtype_bytes, std::int64_t context) {
  const double per_layer_token =
      c.mla() ? mla_cache_row(c) * kv_dtype_bytes : 2.0 * double(c.kv_heads) * double(c.head_dim) * kv_dtype_bytes;
  double tokens = 0;  // Σ over layers of the tokens each keeps
  for (const attention_layer_group& g : attention_layer_groups(c)) tokens += double(g.layers) * double(decode_keys(context, g.window, g.chunk));
  return per_layer_token * tokens;
}

double expected_distinct_experts(std::int64_t experts, std::int64_t per_token, std::int64_t tokens) {
  if (experts <= 0) return 0;
  const double E = double(experts), k = double(per_token);
  return E * (1 - std::pow(1 - k / E, double(tokens)));
}

}  // namespace roofline
