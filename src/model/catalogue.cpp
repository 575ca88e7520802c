// build_catalogue: every op of one decode, prefill or training step of a model, in execution order.
// Per-layer ops carry count = layers; embedding, final norm and lm_head count 1.
#include <algorithm>
#include <fmt/format.h>

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
  std::vector<op_desc> ops;
  std::vector<bool> per_layer;

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
    return gemm_op(name, s.tokens, out, in, b, bias);
  }
  op_desc ew(op_kind k, const char* name, std::int64_t cols) const {
    op_desc op = elementwise_op(k, name, s.tokens, cols, b);
    if (opt.one_pass_norms && (k == op_kind::rmsnorm || k == op_kind::layernorm)) {
      op.bytes_read -= double(s.tokens) * double(cols) * b;  // x read once: the row stays on chip
      op.note = "one-pass norm: x read once";
    }
    return op;
  }
  op_desc attention() const {
    op_desc a = attention_op(s.attention, opt.batch, cfg.heads, cfg.kv_heads, cfg.head_dim, s.q_len, s.kv_len, b, kvb,
                             opt.causal_halved);
    if (cfg.sliding_window > 0)
      a.note += opt.ph == phase::decode
                    ? fmt::format("; sliding window: the last {} cached tokens", cfg.sliding_window)
                    : fmt::format("; sliding window {} not applied to prefill/train (counted as full causal)", cfg.sliding_window);
    return a;
  }

  void llama() {
    const std::int64_t h = cfg.hidden, q = cfg.heads * cfg.head_dim, kv = cfg.kv_heads * cfg.head_dim,
                       f = cfg.intermediate;
    once(embedding_op("embed_tokens", s.tokens, h, b, cfg.vocab));
    layer(ew(op_kind::rmsnorm, "input_norm", h));
    layer(linear("q_proj", h, q, cfg.attention_bias));
    layer(linear("k_proj", h, kv, cfg.attention_bias));
    layer(linear("v_proj", h, kv, cfg.attention_bias));
    layer(rope_op(s.tokens, cfg.heads, cfg.kv_heads, cfg.head_dim, b));
    layer(attention());
    layer(linear("o_proj", q, h, cfg.o_proj_bias));
    layer(ew(op_kind::add, "attn_residual", h));
    layer(ew(op_kind::rmsnorm, "post_attention_norm", h));
    layer(linear("gate_proj", h, f, cfg.mlp_bias));
    layer(linear("up_proj", h, f, cfg.mlp_bias));
    if (opt.fused_silu_mul) {
      layer(ew(op_kind::silu_mul, "silu_mul", f));
    } else {
      layer(ew(op_kind::silu, "silu", f));
      layer(ew(op_kind::mul, "mul", f));
    }
    layer(linear("down_proj", f, h, cfg.mlp_bias));
    layer(ew(op_kind::add, "mlp_residual", h));
    once(ew(op_kind::rmsnorm, "final_norm", h));
    once(linear("lm_head", h, cfg.vocab, false));
  }

  void gpt2() {
    const std::int64_t h = cfg.hidden, q = cfg.heads * cfg.head_dim, f = cfg.intermediate;
    once(embedding_op("wte", s.tokens, h, b, cfg.vocab));
    once(embedding_op("wpe", s.tokens, h, b, cfg.max_positions));
    once(ew(op_kind::add, "embed_add", h));
    layer(ew(op_kind::layernorm, "ln_1", h));
    layer(linear("c_attn", h, 3 * q, true));
    layer(attention());
    layer(linear("attn_c_proj", q, h, true));
    layer(ew(op_kind::add, "attn_residual", h));
    layer(ew(op_kind::layernorm, "ln_2", h));
    layer(linear("c_fc", h, f, true));
    layer(ew(op_kind::gelu, "gelu", f));
    layer(linear("mlp_c_proj", f, h, true));
    layer(ew(op_kind::add, "mlp_residual", h));
    once(ew(op_kind::layernorm, "ln_f", h));
    once(linear("lm_head", h, cfg.vocab, false));
  }
};

}  // namespace

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
  // sliding-window attention (Mistral): a decode query reads only the last `window` cached tokens
  if (opt.ph == phase::decode && cfg.sliding_window > 0) shape.kv_len = std::min(shape.kv_len, cfg.sliding_window);
  builder bld{cfg, opt, shape, b, kvb, {}, {}};
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

}  // namespace roofline
