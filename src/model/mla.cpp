// Multi-head latent attention (DeepSeek-V2, arXiv:2405.04434 §2.1; DeepSeek-V3, arXiv:2412.19437
// §2.1): projections, the absorbed and naive attention kernels, and their FLOPs per token.
// Shapes follow deepseek-ai/DeepSeek-V3 inference/model.py (class MLA, attn_impl "naive" | "absorb").
#include "model/mla.hpp"

#include <fmt/format.h>

#include "roofline/error.hpp"

namespace roofline::detail {

namespace {

/// Widths of one form: q·k per head, v per head.
struct widths {
  double qk, v;
};
widths form_widths(const model_config& c, bool absorbed) {
  const double nope = double(c.head_dim - c.qk_rope_head_dim);
  if (absorbed) return {double(c.kv_lora_rank + c.qk_rope_head_dim), double(c.kv_lora_rank)};
  return {nope + double(c.qk_rope_head_dim), double(c.v_head_dim)};
}

}  // namespace

std::int64_t mla_matmul_parameters(const model_config& c) {
  const std::int64_t h = c.hidden, H = c.heads, nope = c.head_dim - c.qk_rope_head_dim;
  const std::int64_t q = c.q_lora_rank > 0 ? h * c.q_lora_rank + c.q_lora_rank * H * c.head_dim : h * H * c.head_dim;
  return q + h * (c.kv_lora_rank + c.qk_rope_head_dim) + c.kv_lora_rank * H * (nope + c.v_head_dim) +
         H * c.v_head_dim * h;
}

op_desc mla_attention_op(const model_config& c, op_kind kind, bool absorbed, std::int64_t batch, std::int64_t q_len,
                         std::int64_t kv_len, int b, int kvb, bool causal_halved) {
  // attention_op gives the pair count, the naive score traffic and the checks; the widths and the
  // K/V traffic are MLA's own.
  const widths w = form_widths(c, absorbed);
  const std::int64_t kv_heads = absorbed ? 1 : c.heads;
  op_desc op = attention_op(kind, batch, c.heads, kv_heads, std::int64_t(w.qk), q_len, kv_len, b, kvb, causal_halved);
  const double B = double(batch), H = double(c.heads), Q = double(q_len), K = double(kv_len);
  const double latent = double(c.kv_lora_rank + c.qk_rope_head_dim);
  const bool triangle = causal_halved && q_len == kv_len && q_len > 1;
  const double pairs = triangle ? Q * (Q + 1) / 2 : Q * K;
  op.v_head_dim = std::int64_t(w.v);
  op.flops = B * H * pairs * (2 * w.qk + 2 * w.v + softmax_flops_per_element);
  const double q_bytes = B * Q * H * w.qk * b, out_bytes = B * Q * H * w.v * b;
  const double nope = double(c.head_dim - c.qk_rope_head_dim);
  const double kv_bytes = absorbed ? B * K * latent * kvb  // the latent is the key and (its first kv_lora) the value
                                   : B * K * (H * (nope + double(c.v_head_dim)) * b + double(c.qk_rope_head_dim) * kvb);
  const double scores = kind == op_kind::attention_naive ? B * H * Q * K * b : 0;
  op.bytes_read = q_bytes + kv_bytes + 4 * scores;
  op.bytes_written = out_bytes + 2 * scores;
  const std::string form = absorbed ? "absorbed MLA: MQA over the latent, one shared key/value row"
                                    : "naive MLA: per-head keys and values up-projected by kv_b_proj";
  if (kind == op_kind::attention_decode) {
    op.bytes_written += B * Q * latent * kvb;  // the new token's latent and RoPE key appended to the cache
    op.note = fmt::format("{}; q·k width {}, v width {}; reads the cache once", form, w.qk, w.v);
    op.shape = fmt::format("{}×[{}q×{}kv heads×{}/{}]·cache[{}]", batch, c.heads, kv_heads, w.qk, w.v, kv_len);
  } else {
    op.note =
        fmt::format("{}; q·k width {}, v width {}; {}{}", form, w.qk, w.v,
                    kind == op_kind::attention_fused ? "fused: q, k, v, out only; "
                                                     : "naive: n×n scores written, softmax 3 reads + 1 write, P read; ",
                    triangle ? "causal: halved FLOPs" : "causal mask not exploited: full FLOPs");
    op.shape = fmt::format("{}×[{}q×{}kv heads×{}/{}]·[{}×{}]", batch, c.heads, kv_heads, w.qk, w.v, q_len, kv_len);
  }
  return op;
}

std::vector<op_desc> mla_attention_ops(const model_config& c, catalogue_options::mla_form form, op_kind kind,
                                       std::int64_t batch, std::int64_t q_len, std::int64_t kv_len, int b, int kvb,
                                       bool causal_halved, const mla_linear& linear) {
  const bool absorbed = form == catalogue_options::mla_form::absorbed, decode = kind == op_kind::attention_decode;
  const std::int64_t T = batch * q_len, h = c.hidden, H = c.heads, r = c.qk_rope_head_dim, nope = c.head_dim - r,
                     L = c.kv_lora_rank, v = c.v_head_dim;
  std::vector<op_desc> ops;
  auto rows_op = [&](op_desc op, const std::string& note) {
    op.note = op.note.empty() ? note : note + "; " + op.note;
    ops.push_back(std::move(op));
  };
  /// H independent GEMMs of one weight group each (a per-head einsum): FLOPs, bytes and weights × H.
  auto per_head = [&](op_desc g) {
    g.groups = H;
    g.flops *= double(H), g.bytes_read *= double(H), g.bytes_written *= double(H), g.weight_bytes *= double(H);
    return g;
  };
  if (c.q_lora_rank > 0) {
    ops.push_back(linear("q_a_proj", "q_a_proj", T, h, c.q_lora_rank));
    ops.push_back(elementwise_op(op_kind::rmsnorm, "q_a_layernorm", T, c.q_lora_rank, b));
    ops.push_back(linear("q_b_proj", "q_b_proj", T, c.q_lora_rank, H * c.head_dim));
  } else {
    ops.push_back(linear("q_proj", "q_proj", T, h, H * c.head_dim));
  }
  ops.push_back(linear("kv_a_proj_with_mqa", "kv_a_proj_with_mqa", T, h, L + r));
  ops.push_back(elementwise_op(op_kind::rmsnorm, "kv_a_layernorm", T, L, b));
  op_desc rope = rope_op(T, H, 1, r, b);
  rope.note = "decoupled RoPE: the H query RoPE parts and the one shared RoPE key";
  ops.push_back(std::move(rope));
  if (absorbed) {  // q_nope · W_UK per head: [T × qk_nope] · [qk_nope × kv_lora], H weight groups
    op_desc qa = per_head(linear("q_absorb", "kv_b_proj", T, nope, L));
    qa.shape = fmt::format("{}×[{}×{}]·[{}×{}]", H, T, nope, nope, L);
    rows_op(std::move(qa), "absorbed MLA: W_UK (kv_b_proj's key rows) folded into the query, one GEMM per head");
  } else if (decode) {  // kv_b_proj on every cached latent, every step
    op_desc up = linear("kv_b_proj", "kv_b_proj", batch * kv_len, L, H * (nope + v));
    rows_op(std::move(up), fmt::format("naive MLA decode: kv_b_proj up-projects all {} cached latents each step "
                                       "(FLOPs grow with the context)",
                                       kv_len));
  } else {
    ops.push_back(linear("kv_b_proj", "kv_b_proj", T, L, H * (nope + v)));
  }
  op_desc a = mla_attention_op(c, kind, absorbed, batch, q_len, kv_len, b, kvb, causal_halved);
  a.name = "attention";
  ops.push_back(std::move(a));
  if (absorbed) {  // o_latent · W_UV per head: [T × kv_lora] · [kv_lora × v], H weight groups
    op_desc oa = per_head(linear("v_absorb", "kv_b_proj", T, L, v));
    oa.shape = fmt::format("{}×[{}×{}]·[{}×{}]", H, T, L, L, v);
    rows_op(std::move(oa),
            "absorbed MLA: W_UV (kv_b_proj's value rows) applied to the latent output, one GEMM per head");
  }
  ops.push_back(linear("o_proj", "o_proj", T, H * v, h));
  const std::string chosen = fmt::format("MLA form: {}", absorbed ? "absorbed" : "naive");
  for (auto& op : ops) op.note = op.note.empty() ? chosen : chosen + "; " + op.note;
  return ops;
}

double mla_attention_flops_per_layer(const model_config& c, phase ph, double keys, catalogue_options::mla_form form) {
  const bool absorbed = resolve_mla_form(form, ph) == catalogue_options::mla_form::absorbed;
  const widths w = form_widths(c, absorbed);
  double f = 2 * double(c.heads) * keys * (w.qk + w.v);
  if (!absorbed && ph == phase::decode) {
    const double nope = double(c.head_dim - c.qk_rope_head_dim);
    f += 2 * (keys - 1) * double(c.kv_lora_rank) * double(c.heads) * (nope + double(c.v_head_dim));
  }
  return f;
}

}  // namespace roofline::detail

namespace roofline {

std::string to_string(catalogue_options::mla_form f) {
  switch (f) {
    case catalogue_options::mla_form::absorbed:
      return "absorbed";
    case catalogue_options::mla_form::naive:
      return "naive";
    default:
      return "automatic";
  }
}

catalogue_options::mla_form resolve_mla_form(catalogue_options::mla_form f, phase ph) {
  if (f != catalogue_options::mla_form::automatic) return f;
  return ph == phase::decode ? catalogue_options::mla_form::absorbed : catalogue_options::mla_form::naive;
}

}  // namespace roofline
