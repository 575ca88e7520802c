// One op at one shape: FLOPs and bytes read/written. Every formula: docs/formulas-model.md §2-§4.
#include <fmt/format.h>

#include "roofline/error.hpp"
#include "roofline/op_shapes.hpp"

namespace roofline {

namespace {

std::string dtype_name(int b) { return b == 4 ? "fp32" : b == 2 ? "fp16" : b == 1 ? "fp8" : fmt::format("{}B", b); }

/// The plain format of `b` bytes per element: no scales (fp8 of one byte counted as 8 bits, its
/// per-tensor scale left out as the activation dtype's is).
weight_quant plain(int b) {
  weight_quant q;
  q.format = dtype_name(b), q.bits = 8 * b;
  return q;
}

void check_positive(const char* what, std::int64_t v) {
  if (v <= 0) throw input_error("", what, fmt::format("must be positive, got {}", v));
}

}  // namespace

op_desc gemm_op(const std::string& name, std::int64_t m, std::int64_t n, std::int64_t k, int b, bool bias) {
  return gemm_op(name, m, n, k, b, plain(b), bias);
}

op_desc gemm_op(const std::string& name, std::int64_t m, std::int64_t n, std::int64_t k, int b, const weight_quant& w,
                bool bias) {
  check_positive("m", m), check_positive("n", n), check_positive("k", k);
  op_desc op;
  op.name = name;
  op.kind = op_kind::gemm;
  op.m = m, op.n = n, op.k = k;
  op.dtype_bytes = op.kv_dtype_bytes = b;
  op.dtype = dtype_name(b);
  const double M = m, N = n, K = k;
  op.flops = 2 * M * N * K + (bias ? M * N : 0);
  op.weights = w.label();
  op.weight_bytes = weight_tensor_bytes(w, k, n);  // the one count of a linear's weight bytes
  op.bytes_read = (M * K + (bias ? N : 0)) * b + op.weight_bytes;
  op.bytes_written = M * N * b;
  op.shape = fmt::format("[{}×{}]·[{}×{}]{}", m, k, k, n, bias ? "+b" : "");
  return op;
}

op_desc elementwise_op(op_kind kind, const std::string& name, std::int64_t rows, std::int64_t cols, int b) {
  check_positive("rows", rows), check_positive("cols", cols);
  op_desc op;
  op.name = name;
  op.kind = kind;
  op.rows = rows, op.cols = cols;
  op.dtype_bytes = op.kv_dtype_bytes = b;
  op.dtype = dtype_name(b);
  const double e = double(rows) * double(cols), row = double(cols) * b;
  double per_elem = 0, reads = 0, extra_read = 0;  // reads: tensor passes of rows × cols
  switch (kind) {
    case op_kind::add: per_elem = add_flops_per_element, reads = 2; break;
    case op_kind::mul: per_elem = add_flops_per_element, reads = 2; break;
    case op_kind::silu: per_elem = silu_flops_per_element, reads = 1; break;
    case op_kind::silu_mul: per_elem = silu_mul_flops_per_element, reads = 2; break;
    case op_kind::gelu: per_elem = gelu_flops_per_element, reads = 1; break;
    case op_kind::rmsnorm: per_elem = rmsnorm_flops_per_element, reads = 2, extra_read = row; break;
    case op_kind::layernorm: per_elem = layernorm_flops_per_element, reads = 2, extra_read = 2 * row; break;
    case op_kind::softmax: per_elem = softmax_flops_per_element, reads = 3; break;
    default: throw input_error("", "kind", "elementwise_op: " + to_string(kind) + " is not an elementwise or row op");
  }
  op.flops = per_elem * e;
  op.bytes_read = reads * e * b + extra_read;
  op.bytes_written = e * b;
  op.shape = fmt::format("[{}×{}]", rows, cols);
  return op;
}

op_desc embedding_op(const std::string& name, std::int64_t rows, std::int64_t cols, int b, std::int64_t table_rows) {
  check_positive("rows", rows), check_positive("cols", cols), check_positive("table_rows", table_rows);
  op_desc op;
  op.name = name;
  op.kind = op_kind::embedding;
  op.rows = rows, op.cols = cols;
  op.k = table_rows;  // the table the rows are gathered from (vocab, or positions for wpe)
  op.dtype_bytes = op.kv_dtype_bytes = b;
  op.dtype = dtype_name(b);
  op.flops = 0;
  op.bytes_read = double(rows) * (double(cols) * b + token_id_bytes);
  op.bytes_written = double(rows) * double(cols) * b;
  op.shape = fmt::format("gather {} rows × {} from [{} × {}]", rows, cols, table_rows, cols);
  return op;
}

op_desc rope_op(std::int64_t tokens, std::int64_t heads, std::int64_t kv_heads, std::int64_t head_dim, int b) {
  check_positive("tokens", tokens), check_positive("heads", heads), check_positive("kv_heads", kv_heads);
  op_desc op;
  op.name = "rope";
  op.kind = op_kind::rope;
  op.rows = tokens, op.cols = (heads + kv_heads) * head_dim;
  op.heads = heads, op.kv_heads = kv_heads, op.head_dim = head_dim;
  op.dtype_bytes = op.kv_dtype_bytes = b;
  op.dtype = dtype_name(b);
  const double e = double(op.rows) * double(op.cols);
  op.flops = rope_flops_per_element * e;
  op.bytes_read = e * b + double(tokens) * 2 * double(head_dim) * b;  // q, k + cos, sin rows
  op.bytes_written = e * b;
  op.shape = fmt::format("q [{}×{}×{}] + k [{}×{}×{}]", tokens, heads, head_dim, tokens, kv_heads, head_dim);
  return op;
}

op_desc attention_op(op_kind kind, std::int64_t batch, std::int64_t heads, std::int64_t kv_heads,
                     std::int64_t head_dim, std::int64_t q_len, std::int64_t kv_len, int b, int kvb,
                     bool causal_halved, std::int64_t window, std::int64_t chunk) {
  check_positive("batch", batch), check_positive("heads", heads), check_positive("kv_heads", kv_heads);
  check_positive("head_dim", head_dim), check_positive("q_len", q_len);
  if (kind != op_kind::attention_decode || kv_len != 0) check_positive("kv_len", kv_len);  // decode: 0 cached keys at a chunk's start
  if (kind != op_kind::attention_decode && kind != op_kind::attention_naive && kind != op_kind::attention_fused)
    throw input_error("", "kind", "attention_op: " + to_string(kind) + " is not an attention kind");
  op_desc op;
  op.name = "attention";
  op.kind = kind;
  op.batch = batch, op.heads = heads, op.kv_heads = kv_heads, op.head_dim = head_dim;
  op.q_len = q_len, op.kv_len = kv_len;
  op.dtype_bytes = b, op.kv_dtype_bytes = kvb;
  op.dtype = dtype_name(b);
  const double B = batch, H = heads, G = kv_heads, d = head_dim, Q = q_len, K = kv_len;
  const bool triangle = causal_halved && q_len == kv_len && q_len > 1;
  op.causal = q_len > 1;
  double pairs = triangle ? Q * (Q + 1) / 2 : Q * K;  // scored (query, key) pairs per head
  const bool windowed = kind != op_kind::attention_decode && chunk <= 0 && window > 0 && window < kv_len;
  if (windowed) {  // each query scores at most the last `window` keys
    const double W = double(window);
    pairs = triangle ? W * (W + 1) / 2 + (Q - W) * W : Q * W;
  }
  const bool chunked = kind != op_kind::attention_decode && chunk > 0 && chunk < q_len;
  if (chunked) {  // each query scores only the keys of its own aligned chunk
    const double C = double(chunk), n = double(q_len / chunk), r = double(q_len % chunk);
    pairs = triangle ? n * C * (C + 1) / 2 + r * (r + 1) / 2 : n * C * C + r * r;
  }
  op.flops = B * H * pairs * (4 * d + softmax_flops_per_element);
  const double q_bytes = B * Q * H * d * b, out_bytes = q_bytes;
  const double kv_bytes = 2 * B * K * G * d * kvb;
  op.bytes_read = q_bytes + kv_bytes;
  op.bytes_written = out_bytes;
  if (kind == op_kind::attention_decode) {
    op.bytes_written += 2 * B * Q * G * d * kvb;  // the new token's K and V appended to the cache
    op.note = "reads the whole KV cache once (kv_heads); intensity ≈ heads/kv_heads";
    op.shape = fmt::format("{}×[{}q×{}kv heads×{}]·cache[{}]", batch, heads, kv_heads, head_dim, kv_len);
  } else {
    const double scores = B * H * Q * K * b;  // written full n×n even under a causal mask
    if (kind == op_kind::attention_naive) {
      op.bytes_written += 2 * scores;  // S = QKᵀ, then softmax's P
      op.bytes_read += 4 * scores;     // softmax 3 passes over S, then P·V reads P
    }
    op.note = std::string(kind == op_kind::attention_fused ? "fused (FlashAttention): q, k, v, out only; "
                                                           : "naive: n×n scores written, softmax 3 reads + 1 write, P read; ") +
              (triangle ? "causal: halved FLOPs" : "causal mask not exploited: full FLOPs") +
              (windowed ? fmt::format("; sliding window {}: each query scores at most {} keys", window, window) : "") +
              (chunked ? fmt::format("; chunked attention: each query scores only its own {}-token chunk", chunk) : "");
    op.shape = fmt::format("{}×[{}q×{}kv heads×{}]·[{}×{}]", batch, heads, kv_heads, head_dim, q_len, kv_len);
  }
  return op;
}

op_desc attention_softmax_op(const op_desc& a) {
  op_desc op = elementwise_op(op_kind::softmax, "softmax", a.batch * a.heads * a.q_len, a.kv_len, a.dtype_bytes);
  op.ph = a.ph, op.batch = a.batch, op.seq = a.seq, op.context = a.context, op.count = a.count, op.dtype = a.dtype;
  op.note = "inside " + a.name + ": listed for reference, not part of the step total";
  return op;
}

op_desc tensor_op(const std::string& name, double bytes_read, double bytes_written, double flops_per_element,
                  std::int64_t elements) {
  if (elements < 0) throw input_error("", "elements", fmt::format("must not be negative, got {}", elements));
  if (!(bytes_read >= 0) || !(bytes_written >= 0) || !(flops_per_element >= 0))
    throw input_error("", name, "tensor_op: bytes and FLOPs per element must be non-negative");
  op_desc op;
  op.name = name;
  op.kind = op_kind::add;  // no catalogue kind: a framework op costed by its tensors (§3.1)
  op.rows = 1, op.cols = elements;
  op.flops = flops_per_element * double(elements);
  op.bytes_read = bytes_read;
  op.bytes_written = bytes_written;
  op.shape = fmt::format("{} elements", elements);
  op.note = "generic tensor op: inputs read once, output written once";
  return op;
}

std::string unrunnable_reason(const op_desc& op) {
  if (op.kind == op_kind::gemm && op.groups > 1)
    return fmt::format("{} independent weight groups (a batched GEMM per head); the backends' GEMM runs one", op.groups);
  const bool attention = op.kind == op_kind::attention_decode || op.kind == op_kind::attention_naive ||
                         op.kind == op_kind::attention_fused;
  if (attention && op.v_head_dim > 0 && op.v_head_dim != op.head_dim)
    return fmt::format("attention with q·k width {} and v width {} (MLA); the backends' kernels take one head_dim",
                       op.head_dim, op.v_head_dim);
  return "";
}

}  // namespace roofline
