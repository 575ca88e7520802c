// Fused alternatives to op sequences of a catalogue, with the bytes each saves
// (docs/formulas-model.md §6). Fusion changes bytes, never FLOPs.
#include <fmt/format.h>

#include "roofline/model.hpp"

namespace roofline {

namespace {

const op_desc* find(const std::vector<op_desc>& ops, const std::string& name) {
  for (const auto& op : ops)
    if (op.name == name && !op.backward && !op.recompute) return &op;
  return nullptr;
}

const op_desc* find_kind(const std::vector<op_desc>& ops, op_kind k) {
  for (const auto& op : ops)
    if (op.kind == k && !op.backward && !op.recompute) return &op;
  return nullptr;
}

/// A norm that reads x once (the row stays in registers / shared memory): x, w read; y written.
double one_pass_norm_bytes(const op_desc& n) {
  const double e = double(n.rows) * double(n.cols), row = double(n.cols) * n.dtype_bytes;
  const double params = n.kind == op_kind::layernorm ? 2 * row : row;
  return 2 * e * n.dtype_bytes + params;
}

/// residual add fused into the next norm: reads x and the residual (+ w [, b]), writes the sum (the
/// next residual) and the normalised output.
double add_norm_bytes(const op_desc& n) { return one_pass_norm_bytes(n) + 2.0 * double(n.rows) * double(n.cols) * n.dtype_bytes; }

}  // namespace

std::vector<fusion_saving> fusion_savings(const std::vector<op_desc>& ops) {
  std::vector<fusion_saving> out;
  const op_desc* silu = find_kind(ops, op_kind::silu);
  const op_desc* mul = find_kind(ops, op_kind::mul);
  if (silu && mul) {
    const op_desc fused = elementwise_op(op_kind::silu_mul, "silu_mul", silu->rows, silu->cols, silu->dtype_bytes);
    out.push_back({"silu_mul", "SiLU then mul as one kernel: g, u read, h written (5 tensors → 3); s = silu(g) never leaves registers",
                   "silu + mul", silu->count, silu->bytes() + mul->bytes(), fused.bytes(), {*silu, *mul}, {fused}});
  }
  for (const auto& op : ops) {
    if (op.backward || op.recompute || (op.kind != op_kind::rmsnorm && op.kind != op_kind::layernorm)) continue;
    op_desc one = op;
    one.bytes_read = one_pass_norm_bytes(op) - op.bytes_written;
    out.push_back({op.kind == op_kind::rmsnorm ? "rmsnorm_one_pass" : "layernorm_one_pass",
                   "one-pass norm (row kept on chip) instead of two passes over x: 3 tensors → 2", op.name, op.count,
                   op.bytes(), one_pass_norm_bytes(op), {op}, {one}});
  }
  const op_desc* gate = find(ops, "gate_proj");
  if (gate && silu)
    out.push_back({"silu_in_gate_epilogue", "SiLU applied in the gate GEMM's epilogue: the separate SiLU pass disappears",
                   "gate_proj + silu", gate->count, gate->bytes() + silu->bytes(), gate->bytes(), {*gate, *silu}, {*gate}});
  const op_desc* fc = find(ops, "c_fc");
  const op_desc* gelu = find_kind(ops, op_kind::gelu);
  if (fc && gelu)
    out.push_back({"gelu_in_fc_epilogue", "GELU applied in the c_fc GEMM's epilogue: the separate GELU pass disappears",
                   "c_fc + gelu", fc->count, fc->bytes() + gelu->bytes(), fc->bytes(), {*fc, *gelu}, {*fc}});
  const bool llama = find(ops, "post_attention_norm") != nullptr;
  const char* pairs[2][2] = {{"attn_residual", llama ? "post_attention_norm" : "ln_2"},
                             {"mlp_residual", llama ? "input_norm" : "ln_1"}};
  for (const auto& p : pairs) {
    const op_desc* add = find(ops, p[0]);
    const op_desc* norm = find(ops, p[1]);
    if (!add || !norm) continue;
    op_desc fused = *norm;
    fused.name = fmt::format("{}+{}", p[0], p[1]);
    fused.flops += add->flops;
    fused.bytes_written = 2 * norm->bytes_written;  // x + r and norm(x + r)
    fused.bytes_read = add_norm_bytes(*norm) - fused.bytes_written;
    out.push_back({"add_into_norm",
                   "residual add fused into the next norm (one pass): x, r read; x + r and norm(x + r) written (6 → 4 tensors)",
                   fmt::format("{} + {}", p[0], p[1]), add->count, add->bytes() + norm->bytes(), add_norm_bytes(*norm),
                   {*add, *norm}, {fused}});
  }
  for (const auto& op : ops) {
    if (op.backward || op.recompute || op.q_len <= 1 || op.v_head_dim > 0) continue;  // MLA: not attention_op's shape
    if (op.kind != op_kind::attention_naive && op.kind != op_kind::attention_fused) continue;
    const bool halved = op.note.find("halved") != std::string::npos;
    const auto naive = attention_op(op_kind::attention_naive, op.batch, op.heads, op.kv_heads, op.head_dim, op.q_len,
                                    op.kv_len, op.dtype_bytes, op.kv_dtype_bytes, halved);
    const auto fused = attention_op(op_kind::attention_fused, op.batch, op.heads, op.kv_heads, op.head_dim, op.q_len,
                                    op.kv_len, op.dtype_bytes, op.kv_dtype_bytes, halved);
    out.push_back({"flash_attention", "FlashAttention (Dao et al. 2022): the n×n scores never reach memory",
                   "attention (naive → fused)", op.count, naive.bytes(), fused.bytes(), {naive}, {fused}});
    break;
  }
  return out;
}

}  // namespace roofline
