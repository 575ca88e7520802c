// build_catalogue: every op of one decode, prefill or training step of a model, in execution order.
// Per-layer ops carry count = layers; embedding, final norm and lm_head count 1.
#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "model/mla.hpp"
#include "model/training.hpp"
#include "roofline/error.hpp"
#include "roofline/model.hpp"

namespace roofline {

namespace {

struct step_shape {
  std::int64_t tokens;  ///< rows of every activation: batch (decode) or batch·seq
  std::int64_t q_len, kv_len;
  op_kind attention;
};

step_shape shape_of(const catalogue_options& opt) {
  if (opt.batch <= 0) throw input_error("", "--batch", fmt::format("must be positive, got {}", opt.batch));
  if (opt.ph == phase::decode) {
    if (opt.context <= 0) throw input_error("", "--context", fmt::format("must be positive, got {}", opt.context));
    return {opt.batch, 1, opt.context, op_kind::attention_decode};  // window applied by the builder
  }
  if (opt.seq <= 0) throw input_error("", "--seq", fmt::format("must be positive, got {}", opt.seq));
  return {opt.batch * opt.seq, opt.seq, opt.seq, opt.fused_attention ? op_kind::attention_fused : op_kind::attention_naive};
}

struct builder {
  const model_config& cfg;
  const catalogue_options& opt;
  step_shape s;
  int b, kvb;
  std::int64_t vocab_shard;  ///< lm_head columns on this GPU: ceil(vocab / tp)
  const model_config& full;  ///< the unsharded model: module names, unconverted-module lists
  weight_scheme weights;     ///< the linears' format (docs/formulas-model.md §2.1)
  std::vector<op_desc> ops;
  std::vector<bool> per_layer;

  /// The format `name`'s weights are read in, and the words that say why when it is not the scheme's.
  weight_quant format_of(const std::string& name, std::string& why) const {
    return linear_format(full, weights, opt.dtype, name, &why);
  }
  op_desc with_note(op_desc op, const std::string& why) const {
    if (!why.empty()) op.note += (op.note.empty() ? "" : "; ") + why;
    else if (weights.quantized) op.note += (op.note.empty() ? "" : "; ") + ("weights " + op.weights);
    return op;
  }

  void push(op_desc op, std::int64_t count, bool in_layer) {
    per_layer.push_back(in_layer);
    op.ph = opt.ph;
    op.batch = opt.batch;
    op.seq = opt.ph == phase::decode ? 1 : opt.seq;
    op.context = opt.ph == phase::decode ? opt.context : 0;
    op.dtype = opt.dtype;
    if (op.kind != op_kind::attention_decode && op.kind != op_kind::attention_naive &&
        op.kind != op_kind::attention_fused)
      op.kv_dtype_bytes = kvb;
    op.count = count;
    ops.push_back(std::move(op));
  }
  void layer(op_desc op) { push(std::move(op), cfg.layers, true); }
  void once(op_desc op) { push(std::move(op), 1, false); }

  op_desc linear(const char* name, std::int64_t in, std::int64_t out, bool bias) const {
    return linear_rows(name, name, s.tokens, in, out, bias);
  }
  /// The one weight-format path of every linear: op `name` of m rows reading module `module`'s
  /// weights in their format (linear_format), the note saying which when it is not the scheme's.
  op_desc linear_rows(const std::string& name, const std::string& module, std::int64_t m, std::int64_t in,
                      std::int64_t out, bool bias = false) const {
    std::string why;
    const weight_quant q = format_of(module, why);
    return with_note(gemm_op(name, m, out, in, b, q, bias), why);
  }
  /// lm_head's rows: every position, or each sequence's last one (prefill with last_logits).
  std::int64_t logit_rows() const { return opt.ph == phase::prefill && opt.last_logits ? opt.batch : s.tokens; }
  op_desc lm_head() const {
    op_desc op = linear_rows("lm_head", "lm_head", logit_rows(), cfg.hidden, vocab_shard);
    if (logit_rows() != s.tokens)
      op.note += (op.note.empty() ? "" : "; ") +
                 fmt::format("logits of each sequence's last position only ({} rows, not {}): a server's prefill", logit_rows(), s.tokens);
    return op;
  }
  op_desc ew(op_kind k, const char* name, std::int64_t cols) const {
    op_desc op = elementwise_op(k, name, s.tokens, cols, b);
    if (opt.one_pass_norms && (k == op_kind::rmsnorm || k == op_kind::layernorm)) {
      op.bytes_read -= double(s.tokens) * double(cols) * b;  // x read once: the row stays on chip
      op.note = "one-pass norm: x read once";
    }
    return op;
  }
  /// One attention op per kind of layer: full-context layers, and sliding-window layers.
  /// gemma2: c·tanh(s/c) on every score (divide, tanh, multiply: 3 FLOPs per score).
  op_desc softcapped(op_desc a) const {
    if (cfg.attn_softcap <= 0) return a;
    const double per_score = 4.0 * double(a.head_dim) + softmax_flops_per_element;
    a.flops *= (per_score + 3) / per_score;
    a.note += fmt::format("; scores soft-capped at {:g} (3 FLOPs per score)", cfg.attn_softcap);
    return a;
  }

  /// gpt_oss attention sinks (transformers GptOssAttention): a learned logit per head joins each row's
  /// softmax and is dropped after it: 5 more softmax FLOPs per (query, head) row, H weights read.
  op_desc with_sinks(op_desc a) const {
    if (!cfg.attention_sinks) return a;
    a.flops += double(a.batch) * double(a.heads) * double(a.q_len) * softmax_flops_per_element;
    a.bytes_read += double(a.heads) * b;
    a.note += "; attention sinks: one learned logit per head in each softmax row (5 FLOPs per row, H weights read)";
    return a;
  }

  /// One attention op per kind of layer (attention_layer_groups): each reads its own keys in every
  /// phase. Decode: a global layer reads the whole cache, a sliding layer its last `window` tokens, a
  /// chunked layer the earlier tokens of its chunk (decode_keys); prefill/train: a sliding layer
  /// scores at most `window` keys per query, a chunked layer only its own chunk.
  void attention() {
    const bool decode = opt.ph == phase::decode;
    for (const attention_layer_group& g : attention_layer_groups(cfg)) {
      const std::int64_t kv = decode ? decode_keys(s.kv_len, g.window, g.chunk) : s.kv_len;
      op_desc a = attention_op(s.attention, opt.batch, cfg.heads, cfg.kv_heads, cfg.head_dim, s.q_len, kv, b, kvb,
                               opt.causal_halved, decode ? 0 : g.window, decode ? 0 : g.chunk);
      if (decode && g.window > 0) a.note += fmt::format("; sliding window: the last {} cached tokens", g.window);
      if (decode && g.chunk > 0)
        a.note += fmt::format("; chunked attention: the {} earlier tokens of this {}-token chunk (context mod chunk)", kv, g.chunk);
      a.name = g.name;
      push(with_sinks(softcapped(std::move(a))), g.layers, true);
    }
  }

  /// Mixture-of-experts MLP (mixtral): router, then grouped expert GEMMs over the T·k routed rows.
  /// gpt_oss: router and expert biases, the clamped SwiGLU. A shared expert (qwen2_moe, llama4) runs
  /// on every token beside them.
  void moe_mlp(std::int64_t h, std::int64_t f) {
    // Expert parallel (opt.ep = tp > 1): this GPU holds E/ep experts whole and runs the routed rows
    // that land on them, T·k/ep expected under uniform routing; else every expert's 1/tp slice.
    const std::int64_t E = cfg.experts, k = cfg.experts_per_token, n = cfg.moe_layers, ep = opt.ep;
    const double routed = double(s.tokens) * double(k) / double(ep);  // expected rows on this GPU
    const std::int64_t rows = std::max<std::int64_t>(1, std::int64_t(std::ceil(routed)));
    const double scale = routed / double(rows);  // FLOPs and activation bytes of the expected rows
    auto layer = [&](op_desc op) { push(std::move(op), n, true); };
    auto expected = [&](op_desc op) {
      if (scale != 1) op.flops *= scale, op.bytes_read *= scale, op.bytes_written *= scale;
      return op;
    };
    layer(linear("router", h, E, cfg.expert_bias));
    if (cfg.router_sigmoid) {  // deepseek_v3 scoring_func sigmoid: 1/(1 + e^(−x)) per score
      op_desc sig = ew(op_kind::silu, "router_sigmoid", E);
      sig.flops = 3.0 * double(s.tokens) * double(E);
      sig.note = std::string("sigmoid scores: exp, add, divide = 3 FLOPs per score (a silu-shaped pass: 1 read, 1 write)") +
                 (cfg.router_bias ? "; + e_score_correction_bias for the top-k choice only (noaux_tc)" : "");
      layer(std::move(sig));
    } else {
      layer(ew(op_kind::softmax, "router_softmax", E));
    }
    const double used = expected_distinct_experts(E, k, s.tokens) / double(ep);  // of this GPU's E/ep
    auto expert = [&](const char* name, std::int64_t in, std::int64_t out) {
      std::string why;
      const weight_quant q = format_of(name, why);
      op_desc g = gemm_op(name, rows, out, in, b, q, cfg.expert_bias);
      g.flops *= scale;
      g.bytes_written *= scale;
      g.weight_bytes *= used;  // the expected experts' weights
      g.bytes_read = routed * double(in) * b + g.weight_bytes;
      if (cfg.expert_bias) g.bytes_read += used * double(out) * b;  // and their biases
      g.shape = fmt::format("[{}×{}]·{:.3g}×[{}×{}]", ep == 1 ? std::to_string(rows) : fmt::format("{:.4g}", routed), in,
                            used, in, out);
      g.note = ep == 1 ? fmt::format("grouped GEMM over {} routed rows (T·k, k = {}); reads the weights of E·(1−(1−k/E)^T) = "
                                     "{:.3g} of {} experts (expected under uniform routing)", rows, k, used, E)
                       : fmt::format("expert parallel over {} GPUs: {} whole experts here; grouped GEMM over the {:.4g} "
                                     "routed rows expected here (T·k/ep, k = {}); reads (E/ep)·(1−(1−k/E)^T) = {:.3g} of "
                                     "them (uniform routing)", ep, E / ep, routed, k, used);
      return with_note(std::move(g), why);
    };
    layer(expert("expert_gate_proj", h, f));
    layer(expert("expert_up_proj", h, f));
    if (cfg.swiglu_limit > 0) {  // gpt_oss: (clamp(up) + 1) · min(gate, L)·σ(1.702·min(gate, L))
      op_desc act = elementwise_op(op_kind::silu_mul, "clamped_swiglu", rows, f, b);
      act.flops = clamped_swiglu_flops_per_element * double(rows) * double(f);
      act.note = fmt::format("gpt-oss SwiGLU clamped at {:g}, (up + 1)·gate·σ(1.702·gate): {:g} FLOPs per element",
                             cfg.swiglu_limit, clamped_swiglu_flops_per_element);
      layer(expected(std::move(act)));
    } else if (opt.fused_silu_mul) {
      layer(expected(elementwise_op(op_kind::silu_mul, "silu_mul", rows, f, b)));
    } else {
      layer(expected(elementwise_op(op_kind::silu, "silu", rows, f, b)));
      layer(expected(elementwise_op(op_kind::mul, "mul", rows, f, b)));
    }
    layer(expert("expert_down_proj", f, h));
    op_desc combine = expected(elementwise_op(op_kind::mul, "moe_combine", rows, h, b));
    combine.note = ep == 1 ? "weights each routed expert's output and sums the k per token"
                           : "weights each local expert's output; the MLP all-reduce sums the GPUs' partial outputs";
    layer(std::move(combine));
    if (cfg.shared_expert_intermediate > 0) {  // qwen2_moe: gated by sigmoid(x·w); llama4: ungated
      const std::int64_t fs = cfg.shared_expert_intermediate;
      layer(linear("shared_expert_gate_proj", h, fs, false));
      layer(linear("shared_expert_up_proj", h, fs, false));
      layer(ew(op_kind::silu, "shared_expert_silu", fs));
      layer(ew(op_kind::mul, "shared_expert_mul", fs));
      layer(linear("shared_expert_down_proj", fs, h, false));
      if (cfg.shared_expert_gate) layer(linear("shared_expert_gate", h, 1, false));
      layer(ew(op_kind::add, "shared_expert_add", h));
    }
  }

  /// Training loss: log-softmax over the vocabulary and cross-entropy (PyTorch F.cross_entropy).
  void loss() {
    op_desc l = elementwise_op(op_kind::softmax, "loss", s.tokens, vocab_shard, b);
    l.note = "log-softmax + cross-entropy over T × vocab; its backward writes the logits' gradient";
    once(std::move(l));
  }

  /// The embedding table is gathered in the activation dtype: no method here quantizes it (an
  /// nn.Embedding is not a Linear), and the note says so when the linears are quantized.
  op_desc table(const char* name, std::int64_t rows_of_table, std::int64_t h) const {
    op_desc e = embedding_op(name, s.tokens, h, b, rows_of_table);
    if (weights.quantized) e.note = fmt::format("table in {}: embeddings are not quantized", opt.dtype);
    return e;
  }

  void llama() {
    const std::int64_t h = cfg.hidden, q = cfg.heads * cfg.head_dim, kv = cfg.kv_heads * cfg.head_dim,
                       f = cfg.intermediate;
    once(table("embed_tokens", cfg.vocab, h));
    if (cfg.scaled_embedding) {  // transformers Gemma2Model, Gemma3TextScaledWordEmbedding: × sqrt(hidden_size)
      op_desc scale = ew(op_kind::mul, "embed_scale", h);
      scale.bytes_read = double(s.tokens) * double(h) * b;  // one tensor times a constant, not two tensors
      scale.note = "× sqrt(hidden_size) on the gathered embeddings (Gemma's normalizer): 1 FLOP, 1 read, 1 write per element";
      once(std::move(scale));
    }
    layer(ew(op_kind::rmsnorm, "input_norm", h));
    if (cfg.mla()) {  // deepseek: q_a/q_b, kv_a/kv_b, MLA attention, o_proj
      const detail::mla_linear lin = [this](const std::string& name, const std::string& module, std::int64_t m,
                                            std::int64_t in, std::int64_t out) { return linear_rows(name, module, m, in, out); };
      for (op_desc op : detail::mla_attention_ops(cfg, resolve_mla_form(opt.mla, opt.ph), s.attention, opt.batch, s.q_len,
                                                  s.kv_len, b, kvb, opt.causal_halved, lin))
        layer(std::move(op));
    } else if (cfg.fused_projections) {  // phi3: one [h × (H + 2G)·d] projection
      layer(linear("qkv_proj", h, q + 2 * kv, cfg.attention_bias));
    } else {
      layer(linear("q_proj", h, q, cfg.attention_bias));
      layer(linear("k_proj", h, kv, cfg.attention_bias));
      layer(linear("v_proj", h, kv, cfg.attention_bias));
    }
    if (cfg.qk_norm && !cfg.mla()) {  // qwen3, gemma3: RMSNorm over each head's head_dim, on q and on k
      layer(elementwise_op(op_kind::rmsnorm, "q_norm", s.tokens * cfg.heads, cfg.head_dim, b));
      layer(elementwise_op(op_kind::rmsnorm, "k_norm", s.tokens * cfg.kv_heads, cfg.head_dim, b));
    }
    if (!cfg.mla()) {
      const std::int64_t rope_layers = cfg.layers - cfg.nope_layers;  // llama4: the NoPE layers skip RoPE
      if (rope_layers > 0) push(rope_op(s.tokens, cfg.heads, cfg.kv_heads, cfg.head_dim, b), rope_layers, true);
      if (cfg.qk_l2_norm && rope_layers > 0) {  // llama4 Llama4TextL2Norm on the RoPE layers: x / sqrt(mean(x²) + ε), no weight
        for (const auto& [name, heads] : {std::pair{"q_l2_norm", cfg.heads}, std::pair{"k_l2_norm", cfg.kv_heads}}) {
          op_desc l2 = elementwise_op(op_kind::rmsnorm, name, s.tokens * heads, cfg.head_dim, b);
          l2.bytes_read -= double(cfg.head_dim) * b;  // no weight row
          l2.flops = (rmsnorm_flops_per_element - 1) * double(l2.rows) * double(l2.cols);  // no multiply by w
          l2.note = "L2 norm over head_dim without a weight: 3 FLOPs per element";
          push(std::move(l2), rope_layers, true);
        }
      }
      if (cfg.attn_temperature && cfg.nope_layers > 0) {  // llama4: q × (1 + attn_scale·log1p(floor((pos+1)/floor_scale)))
        op_desc t = ew(op_kind::mul, "attn_temperature_scale", q);
        t.bytes_read = double(s.tokens) * (double(q) + 1) * b;  // q and one scale per token
        t.note = "attention temperature tuning on the NoPE layers: q times a per-position scale (1 FLOP per element)";
        push(std::move(t), cfg.nope_layers, true);
      }
      attention();
      layer(linear("o_proj", q, h, cfg.o_proj_bias));
    }
    if (cfg.sandwich_norms) {  // gemma2: norm the attention output, add, norm again before the MLP
      layer(ew(op_kind::rmsnorm, "post_attention_norm", h));
      layer(ew(op_kind::add, "attn_residual", h));
      layer(ew(op_kind::rmsnorm, "pre_feedforward_norm", h));
    } else {
      layer(ew(op_kind::add, "attn_residual", h));
      layer(ew(op_kind::rmsnorm, "post_attention_norm", h));
    }
    if (cfg.experts > 0) moe_mlp(h, cfg.expert_intermediate);
    if (cfg.layers > cfg.moe_layers) dense_mlp(h, f, cfg.layers - cfg.moe_layers);
    if (cfg.sandwich_norms) layer(ew(op_kind::rmsnorm, "post_feedforward_norm", h));
    layer(ew(op_kind::add, "mlp_residual", h));
    once(ew(op_kind::rmsnorm, "final_norm", h));
    once(lm_head());
    if (cfg.final_softcap > 0) {  // gemma2: c·tanh(logits/c): 1 read, 1 write, 3 FLOPs per logit
      op_desc cap = elementwise_op(op_kind::silu, "logit_softcap", logit_rows(), vocab_shard, b);
      cap.flops = 3.0 * double(logit_rows()) * double(vocab_shard);
      cap.note = fmt::format("c·tanh(x/c), c = {:g}: counted as 3 FLOPs per logit (a silu-shaped pass: 1 read, 1 write)",
                             cfg.final_softcap);
      once(std::move(cap));
    }
    if (opt.ph == phase::train) loss();
  }

  void dense_mlp(std::int64_t h, std::int64_t f, std::int64_t n) {
    auto layer = [&](op_desc op) { push(std::move(op), n, true); };
    if (cfg.fused_projections) {  // phi3: one [h × 2f] projection, split into gate and up
      layer(linear("gate_up_proj", h, 2 * f, cfg.mlp_bias));
    } else {
      layer(linear("gate_proj", h, f, cfg.mlp_bias));
      layer(linear("up_proj", h, f, cfg.mlp_bias));
    }
    if (cfg.gelu_mlp) {  // GeGLU: gelu_tanh(gate) · up
      layer(ew(op_kind::gelu, "gelu", f));
      layer(ew(op_kind::mul, "mul", f));
    } else if (opt.fused_silu_mul) {
      layer(ew(op_kind::silu_mul, "silu_mul", f));
    } else {
      layer(ew(op_kind::silu, "silu", f));
      layer(ew(op_kind::mul, "mul", f));
    }
    layer(linear("down_proj", f, h, cfg.mlp_bias));
  }

  void gpt2() {
    const std::int64_t h = cfg.hidden, q = cfg.heads * cfg.head_dim, f = cfg.intermediate;
    once(table("wte", cfg.vocab, h));
    once(table("wpe", cfg.max_positions, h));
    once(ew(op_kind::add, "embed_add", h));
    layer(ew(op_kind::layernorm, "ln_1", h));
    layer(linear("c_attn", h, 3 * q, true));
    attention();
    layer(linear("attn_c_proj", q, h, true));
    layer(ew(op_kind::add, "attn_residual", h));
    layer(ew(op_kind::layernorm, "ln_2", h));
    layer(linear("c_fc", h, f, true));
    layer(ew(op_kind::gelu, "gelu", f));
    layer(linear("mlp_c_proj", f, h, true));
    layer(ew(op_kind::add, "mlp_residual", h));
    once(ew(op_kind::layernorm, "ln_f", h));
    once(lm_head());
    if (opt.ph == phase::train) loss();
  }
};

/// K/V heads on one GPU: split when tp divides them, else one replicated per GPU (vLLM). The one rule
/// of the KV share (MLA's latent has no heads: kv_cache_bytes ignores them and keeps it whole).
std::int64_t kv_heads_per_gpu(const model_config& cfg, int tp) { return cfg.kv_heads % tp == 0 ? cfg.kv_heads / tp : 1; }

}  // namespace

model_config tp_shard(const model_config& cfg, int tp, int ep) {
  if (tp < 1) throw input_error("", "--tp", fmt::format("must be >= 1, got {}", tp));
  if (ep < 1) throw input_error("", "--ep", fmt::format("must be >= 1, got {}", ep));
  if (ep > 1 && cfg.experts <= 0) throw input_error("", "--ep", fmt::format("{} is dense: expert parallelism needs a mixture of experts", cfg.name));
  if (ep > 1 && ep != tp)
    throw input_error("", "--ep",
                      fmt::format("{} with {} GPUs: expert parallelism is modelled over the same GPUs as the tensor-parallel "
                                  "attention (ep = tp = the GPUs); data-parallel attention with all-to-all dispatch is not",
                                  ep, tp));
  if (ep > 1 && cfg.experts % ep != 0)
    throw input_error("", "--ep", fmt::format("{} does not divide the {} routed experts of {}", ep, cfg.experts, cfg.name));
  if (tp == 1) return cfg;
  auto need = [&](bool ok, const std::string& what) {
    if (!ok) throw input_error("", "--tp", fmt::format("{} does not divide {} of {}", tp, what, cfg.name));
  };
  need(cfg.heads % tp == 0, fmt::format("the {} attention heads", cfg.heads));
  need(cfg.kv_heads % tp == 0 || tp % cfg.kv_heads == 0,
       fmt::format("the {} KV heads (nor do they divide it, to be replicated)", cfg.kv_heads));
  need(cfg.intermediate % tp == 0, fmt::format("the intermediate size {}", cfg.intermediate));
  if (ep == 1) need(cfg.expert_intermediate % tp == 0, fmt::format("the expert width {}", cfg.expert_intermediate));
  need(cfg.shared_expert_intermediate % tp == 0, fmt::format("the shared expert width {}", cfg.shared_expert_intermediate));
  model_config s = cfg;
  s.heads = cfg.heads / tp;
  s.kv_heads = kv_heads_per_gpu(cfg, tp);
  s.intermediate = cfg.intermediate / tp;
  s.expert_intermediate = ep > 1 ? cfg.expert_intermediate : cfg.expert_intermediate / tp;
  s.shared_expert_intermediate = cfg.shared_expert_intermediate / tp;
  return s;
}

double kv_cache_bytes_per_gpu(const model_config& cfg, int kv_dtype_bytes, std::int64_t context, int tp) {
  if (tp < 1) throw input_error("", "--tp", fmt::format("must be >= 1, got {}", tp));
  if (cfg.kv_heads % tp != 0 && tp % cfg.kv_heads != 0)
    throw input_error("", "--tp", fmt::format("{} does not divide the {} KV heads of {} (nor do they divide it, to be replicated)",
                                              tp, cfg.kv_heads, cfg.name));
  model_config s = cfg;  // the attention's share only: the MLP's split does not change the cache
  s.kv_heads = kv_heads_per_gpu(cfg, tp);
  return kv_cache_bytes(s, kv_dtype_bytes, context);
}

/// A sequence longer than the model's position table (learned: gpt2 n_positions) or the context it is
/// built for (RoPE: max_position_embeddings, extended by rope_scaling: model_config::context_limit)
/// is not a configuration the model runs.
void check_positions(const model_config& cfg, phase ph, std::int64_t t) {
  const bool decode = ph == phase::decode;
  const std::int64_t limit = cfg.context_limit > 0 ? cfg.context_limit : cfg.max_positions;
  if (limit <= 0 || t <= limit) return;
  const std::string source = cfg.context_limit_source.empty()
                                 ? fmt::format("{} = {}", cfg.family == "gpt2" ? "n_positions" : "max_position_embeddings", limit)
                                 : cfg.context_limit_source;
  throw input_error("", decode ? "--context" : "--seq",
                    fmt::format("{} tokens exceed {}'s {} ({}){}", t, cfg.name, limit, source,
                                cfg.family == "gpt2" ? ": a learned position table has no row for them"
                                                     : ": the model was not built for a longer context"));
}

std::vector<op_desc> build_catalogue(const model_config& cfg, const catalogue_options& opt) {
  if (cfg.layers <= 0 || cfg.hidden <= 0 || cfg.heads <= 0 || cfg.kv_heads <= 0 || cfg.head_dim <= 0)
    throw input_error(cfg.source, "", "model config is not loaded (non-positive sizes)");
  const int b = dtype_bytes(opt.dtype);
  int kvb = b;
  if (!opt.kv_dtype.empty()) {
    try {
      kvb = dtype_bytes(opt.kv_dtype);
    } catch (const input_error&) {
      throw input_error("", "--kv-dtype", "'" + opt.kv_dtype + "' is not a dtype (fp32, fp16, bf16, fp8, int8)");
    }
  }
  step_shape shape = shape_of(opt);
  check_positions(cfg, opt.ph, opt.ph == phase::decode ? opt.context : opt.seq);
  if (cfg.mla() && opt.ph == phase::train)
    throw input_error("", "--phase", fmt::format("train is not modelled for {} (MLA): its attention backward with q·k width {} and "
                                                 "v width {} is not counted", cfg.name, cfg.head_dim, cfg.v_head_dim));
  const model_config shard = tp_shard(cfg, opt.tp, opt.ep);
  if (opt.last_logits && opt.ph == phase::train)
    throw input_error("", "--logits", "last: training computes the logits (and the loss) of every position");
  const weight_scheme weights = step_weights(cfg, opt);
  if (opt.ph == phase::train && weights.quantized)
    throw input_error(opt.weights.empty() ? cfg.source : "", opt.weights.empty() ? "quantization_config" : "--weights",
                      fmt::format("training with {} weights is not modelled (the catalogue trains in --dtype {}): give "
                                  "--weights {} to count the model's shapes in {}",
                                  weights.linear.label(), opt.dtype, opt.dtype, opt.dtype));
  builder bld{shard, opt, shape, b, kvb, (cfg.vocab + opt.tp - 1) / opt.tp, cfg, weights, {}, {}};
  if (cfg.family == "gpt2")
    bld.gpt2();
  else
    bld.llama();
  if (opt.ph != phase::train) return bld.ops;

  std::vector<op_desc> all = bld.ops;
  if (opt.recompute)
    for (std::size_t i = 0; i < bld.ops.size(); ++i)
      if (bld.per_layer[i]) {
        op_desc op = bld.ops[i];
        op.name += ".recompute";
        op.recompute = true;
        op.note = "activation recompute: the layer's forward runs again in the backward pass";
        all.push_back(std::move(op));
      }
  for (op_desc op : detail::backward_ops(bld.ops)) all.push_back(std::move(op));
  return all;
}

std::vector<op_desc> decode_probe_ops(const model_config& cfg, catalogue_options base, const std::vector<std::int64_t>& rows) {
  struct shape {
    op_kind kind;
    std::int64_t a, b, c, d;  // gemm: n, k; attention: heads, kv_heads, head_dim, kv_len
    std::vector<std::string> names;
    std::vector<op_desc> ops;
  };
  std::vector<shape> shapes;
  base.ph = phase::decode;
  for (const std::int64_t m : rows) {
    base.batch = m;
    for (const op_desc& op : build_catalogue(cfg, base)) {
      const bool gemm = op.kind == op_kind::gemm && op.groups == 1 && op.m == m && op.dtype_bytes > 0 &&
                        op.weight_bytes == double(op.n) * double(op.k) * op.dtype_bytes;
      const bool attn = op.kind == op_kind::attention_decode && op.batch == m;
      if (!gemm && !attn) continue;
      const shape key = gemm ? shape{op.kind, op.n, op.k, 0, 0, {}, {}}
                             : shape{op.kind, op.heads, op.kv_heads, op.head_dim, op.kv_len, {}, {}};
      auto it = std::find_if(shapes.begin(), shapes.end(), [&](const shape& s) {
        return s.kind == key.kind && s.a == key.a && s.b == key.b && s.c == key.c && s.d == key.d;
      });
      if (it == shapes.end()) it = shapes.insert(shapes.end(), key);
      if (std::find(it->names.begin(), it->names.end(), op.name) == it->names.end()) it->names.push_back(op.name);
      if (std::none_of(it->ops.begin(), it->ops.end(), [&](const op_desc& o) { return o.batch == m; })) {
        op_desc g = op;
        g.batch = m;
        it->ops.push_back(std::move(g));
      }
    }
  }
  std::stable_partition(shapes.begin(), shapes.end(), [](const shape& s) { return s.kind == op_kind::gemm; });
  std::vector<op_desc> out;
  for (shape& s : shapes)
    for (op_desc& op : s.ops) {
      op.name = fmt::format("{}", fmt::join(s.names, ", "));
      out.push_back(std::move(op));
    }
  return out;
}

}  // namespace roofline
