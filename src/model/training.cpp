// The backward pass of a training step and the optimizer update, op by op (docs/formulas-model.md
// §5, "Training step ops"). The constructors are public (roofline/model.hpp): the trace reader costs
// a framework's backward and optimizer kernels with them.
#include "model/training.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "roofline/error.hpp"

namespace roofline {

namespace {

op_desc like(const op_desc& fwd, const std::string& suffix) {
  op_desc op = fwd;
  op.name = fwd.name + suffix;
  op.backward = true;
  op.note.clear();
  return op;
}

}  // namespace

op_desc elementwise_backward_op(const op_desc& f) {
  op_desc op = like(f, ".bwd");
  const double e = double(f.rows) * double(f.cols), b = f.dtype_bytes, row = double(f.cols) * b;
  op.flops = 2 * f.flops;
  switch (f.kind) {
    case op_kind::mul:       // dx = dy·y, dy' = dy·x
    case op_kind::silu_mul:  // dg = dy·u·silu'(g), du = dy·silu(g)
      op.bytes_read = 3 * e * b, op.bytes_written = 2 * e * b;
      break;
    case op_kind::rmsnorm:  // reads x, dy, w; writes dx, dw
      op.bytes_read = 2 * e * b + row, op.bytes_written = e * b + row;
      break;
    case op_kind::layernorm:  // reads x, dy, w; writes dx, dw, db
      op.bytes_read = 2 * e * b + row, op.bytes_written = e * b + 2 * row;
      break;
    case op_kind::rope:  // the inverse rotation of dq, dk: same traffic and FLOPs as forward
      op.flops = f.flops, op.bytes_read = f.bytes_read, op.bytes_written = f.bytes_written;
      break;
    default:  // silu, gelu, softmax: reads x (or y) and dy, writes dx
      op.bytes_read = 2 * e * b, op.bytes_written = e * b;
  }
  return op;
}

op_desc attention_backward_op(const op_desc& f) {
  op_desc op = like(f, ".bwd");
  const double B = f.batch, H = f.heads, G = f.kv_heads, d = f.head_dim, Q = f.q_len, K = f.kv_len;
  const double b = f.dtype_bytes, kvb = f.kv_dtype_bytes;
  const double q = B * Q * H * d * b, kv = 2 * B * K * G * d * kvb, lse = B * H * Q * 4;
  // reads q, k, v, out, dout (+ fp32 logsumexp); writes dq, dk, dv
  op.bytes_read = 3 * q + kv + lse;
  op.bytes_written = q + kv;
  if (f.kind == op_kind::attention_naive) {
    const double scores = B * H * Q * K * b;
    op.flops = 2 * f.flops;  // dV = Pᵀ·dO, dP = dO·Vᵀ, dQ = dS·K, dK = dSᵀ·Q
    // dV = Pᵀ·dO reads P; dP = dO·Vᵀ writes dP; dS = P⊙(dP − rowsum(dP⊙P)) reads P, dP, writes dS;
    // dQ = dS·K and dK = dSᵀ·Q read dS: 5 reads and 2 writes of the scores, no logsumexp
    op.bytes_read += 5 * scores - lse;
    op.bytes_written += 2 * scores;
    op.note = "naive backward: P, dP, dS materialised";
  } else {
    op.flops = 2.5 * f.flops;  // + recomputed S = QKᵀ (FlashAttention backward)
    op.note = "FlashAttention backward: recomputes QKᵀ (2.5× forward FLOPs, hardware FLOPs)";
  }
  return op;
}

op_desc embedding_backward_op(const op_desc& f) {
  // scatter-add dY rows into the table gradient: read dY and the table rows, write them back
  op_desc op = like(f, ".bwd");
  const double e = double(f.rows) * double(f.cols), b = f.dtype_bytes;
  op.flops = e;
  op.bytes_read = 2 * e * b + double(f.rows) * token_id_bytes;
  op.bytes_written = e * b;
  return op;
}

std::string to_string(optimizer_kind k) {
  switch (k) {
    case optimizer_kind::sgd: return "sgd";
    case optimizer_kind::sgd_momentum: return "sgd_momentum";
    case optimizer_kind::adam: return "adam";
    case optimizer_kind::adamw: return "adamw";
  }
  return "?";
}

double optimizer_flops_per_element(optimizer_kind k) {
  switch (k) {
    case optimizer_kind::sgd: return 2;
    case optimizer_kind::sgd_momentum: return 4;
    case optimizer_kind::adam: return 13;
    case optimizer_kind::adamw: return 14;
  }
  return 0;
}

int optimizer_states(optimizer_kind k) {
  switch (k) {
    case optimizer_kind::sgd: return 0;
    case optimizer_kind::sgd_momentum: return 1;
    case optimizer_kind::adam:
    case optimizer_kind::adamw: return 2;
  }
  return 0;
}

op_desc optimizer_op(optimizer_kind k, const std::string& name, double elements, int param_bytes, int grad_bytes,
                     int state_bytes) {
  if (!(elements >= 0)) throw input_error("", "elements", fmt::format("must not be negative, got {}", elements));
  if (param_bytes < 1 || grad_bytes < 1 || (optimizer_states(k) > 0 && state_bytes < 1))
    throw input_error("", name, "optimizer_op: element sizes must be at least 1 byte");
  const double states = optimizer_states(k) * double(state_bytes);
  op_desc op = tensor_op(name, elements * (param_bytes + grad_bytes + states), elements * (param_bytes + states),
                         optimizer_flops_per_element(k), std::int64_t(elements));
  op.dtype_bytes = param_bytes;
  op.note = fmt::format("{} update: parameters, gradients and {} state tensor(s) read, parameters and states written",
                        to_string(k), optimizer_states(k));
  return op;
}

namespace detail {

std::vector<op_desc> backward_ops(const std::vector<op_desc>& forward) {
  std::vector<op_desc> out;
  for (auto it = forward.rbegin(); it != forward.rend(); ++it) {
    const op_desc& f = *it;
    switch (f.kind) {
      case op_kind::gemm: {
        const bool bias = f.flops > 2.0 * double(f.m) * double(f.n) * double(f.k);
        // dX[m×k] = dY[m×n]·Wᵀ[n×k]
        op_desc gi = gemm_op(f.name + ".grad_input", f.m, f.k, f.n, f.dtype_bytes);
        // dW[k×n] = Xᵀ[k×m]·dY[m×n] (+ db[n] = Σ_m dY: m·n adds, n written)
        op_desc gw = gemm_op(f.name + ".grad_weight", f.k, f.n, f.m, f.dtype_bytes);
        if (bias) gw.flops += double(f.m) * double(f.n), gw.bytes_written += double(f.n) * f.dtype_bytes;
        for (op_desc* g : {&gi, &gw}) {
          g->ph = f.ph, g->batch = f.batch, g->seq = f.seq, g->context = f.context, g->dtype = f.dtype;
          g->count = f.count, g->kv_dtype_bytes = f.kv_dtype_bytes, g->backward = true;
        }
        out.push_back(gi);
        out.push_back(gw);
        break;
      }
      case op_kind::add:
        break;  // z = x + y: dz flows to both inputs unchanged, no kernel
      case op_kind::embedding:
        out.push_back(embedding_backward_op(f));
        break;
      case op_kind::attention_decode:
      case op_kind::attention_naive:
      case op_kind::attention_fused:
        out.push_back(attention_backward_op(f));
        break;
      default:
        out.push_back(elementwise_backward_op(f));
    }
  }
  return out;
}

}  // namespace detail
}  // namespace roofline
