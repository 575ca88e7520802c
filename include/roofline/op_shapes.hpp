// One op at one shape: the op kinds, the phases, the op descriptor (op_desc) with its FLOPs and bytes,
// the per-element FLOP conventions and the op constructors (src/model/op_shapes.cpp), and the names
// of phases, op kinds and dtypes (src/common/names.cpp). Part of roofline_base: every layer and the
// CUDA backend cost ops with it. The model configs and the catalogue that builds a step from these:
// roofline/model.hpp. Formulas and their sources: docs/formulas-model.md §2-§4.
#pragma once
#include <cstdint>
#include <string>

#include "roofline/weight_format.hpp"

namespace roofline {

enum class phase { decode, prefill, train };
std::string to_string(phase p);
phase parse_phase(const std::string& s);  ///< throws input_error

/// What kind of kernel an op is; backends implement each kind once.
enum class op_kind {
  gemm,             ///< C[m×n] = A[m×k]·B[k×n] (linear layers: m = tokens, k = in, n = out)
  add,              ///< z = x + y (residual)
  mul,              ///< z = x * y
  silu,             ///< y = x·sigmoid(x)
  silu_mul,         ///< y = silu(g) * u (fused SwiGLU activation)
  gelu,             ///< y = gelu(x) (tanh approximation)
  rmsnorm,          ///< y = x / rms(x) * w, per row of `cols`
  layernorm,        ///< y = (x - mean) / std * w + b, per row of `cols`
  softmax,          ///< row softmax over `cols`
  rope,             ///< rotary embedding applied to q and k in place
  embedding,        ///< gather `rows` rows of width `cols` from a [vocab × cols] table
  attention_decode, ///< one query token per sequence against a KV cache of `context` tokens
  attention_naive,  ///< prefill: S = QKᵀ written to memory, softmax, then S·V
  attention_fused,  ///< prefill: FlashAttention-style, scores never leave on-chip memory
};
std::string to_string(op_kind k);

/// One op instance of a step: its shape, FLOPs and bytes (per instance; `count` instances per step).
struct op_desc {
  std::string name;  ///< q_proj, k_proj, v_proj, o_proj, gate_proj, up_proj, down_proj, lm_head, ...
  op_kind kind = op_kind::add;
  phase ph = phase::decode;
  std::int64_t batch = 1, seq = 1, context = 0;
  // gemm: m × k times k × n. elementwise / norm / softmax / embedding: rows × cols.
  std::int64_t m = 0, n = 0, k = 0;
  std::int64_t rows = 0, cols = 0;
  // attention: per sequence, heads of head_dim; q_len queries against kv_len keys.
  std::int64_t heads = 0, kv_heads = 0, head_dim = 0, q_len = 0, kv_len = 0;
  bool causal = true;
  int dtype_bytes = 2;     ///< activations / weights
  int kv_dtype_bytes = 2;  ///< KV cache
  std::string dtype;       ///< "fp16", "bf16", "fp32"
  /// gemm: the weight operand's format ("int4 g128 (16-bit scale + 4-bit zero)", "fp16") and its
  /// bytes per instance, scales included (weight_tensor_bytes; part of bytes_read). Empty / 0 otherwise.
  std::string weights;
  double weight_bytes = 0;
  std::int64_t count = 1;  ///< instances per step (usually the layer count)
  double flops = 0, bytes_read = 0, bytes_written = 0;
  std::string shape;       ///< human readable shape
  bool backward = false;   ///< training: a backward-pass op (gradient GEMMs keep kind gemm with their own m/n/k)
  bool recompute = false;  ///< training: a forward op re-run in the backward pass (activation recompute)
  std::string note;        ///< the counting convention of this op, e.g. "causal: halved FLOPs"
  /// attention: the width of V and of the output per head when it differs from head_dim (the q·k
  /// width); MLA: 128 (prefill, naive decode) or kv_lora_rank (absorbed decode). 0 = head_dim.
  std::int64_t v_head_dim = 0;
  /// gemm: `groups` independent GEMMs of m × k · k × n, each with its own weights (a batched einsum,
  /// e.g. MLA's per-head absorption of W_UK into the query). 1 = one GEMM.
  std::int64_t groups = 1;
  double bytes() const { return bytes_read + bytes_written; }
  double intensity() const { return bytes() > 0 ? flops / bytes() : 0; }
};

// ---- per-element FLOP conventions (docs/formulas-model.md §3) ----
/// add, mul: 1 FLOP per output element.
inline constexpr double add_flops_per_element = 1;
/// SiLU x·σ(x) = x / (1 + e^(−x)): exp, add, divide, multiply = 4.
inline constexpr double silu_flops_per_element = 4;
/// silu(g)·u = SiLU 4 + multiply 1 = 5.
inline constexpr double silu_mul_flops_per_element = 5;
/// gpt-oss clamped SwiGLU (transformers GptOssExperts): min(gate, L) 1, clamp(up, −L, L) 2, 1.702·gate 1,
/// sigmoid 3, ·gate 1, up + 1 1, multiply 1 = 10.
inline constexpr double clamped_swiglu_flops_per_element = 10;
/// GELU tanh form 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))): x², x³, ·0.044715, +x, ·√(2/π), tanh,
/// +1, ·x, ·0.5 = 9 (Hendrycks & Gimpel 2016, eq. for the tanh approximation).
inline constexpr double gelu_flops_per_element = 9;
/// RMSNorm x / sqrt(mean(x²) + ε) · w: square, accumulate, scale by 1/rms, multiply by w = 4 (the
/// per-row mean, ε and rsqrt are ignored) (Zhang & Sennrich 2019, eq. 4).
inline constexpr double rmsnorm_flops_per_element = 4;
/// LayerNorm (x − μ)/σ · w + b: mean 1, variance (sub, square, add) 3, normalize (sub, ·1/σ, ·w, +b) 4 = 8.
inline constexpr double layernorm_flops_per_element = 8;
/// Softmax exp(x − max) / Σ: max, subtract, exp, sum, divide = 5 useful FLOPs (the exp a three-pass
/// kernel recomputes in its last pass is not counted).
inline constexpr double softmax_flops_per_element = 5;
/// RoPE rotates pairs: (x₁cos − x₂sin, x₁sin + x₂cos) = 4 mul + 2 add per pair = 3 per element
/// (Su et al. 2021, RoFormer eq. 34).
inline constexpr double rope_flops_per_element = 3;
/// Token ids read by an embedding gather: int64 (torch.long).
inline constexpr int token_id_bytes = 8;

// ---- op constructors: one op at a given shape (catalogue entries are built from these) ----

/// Linear layer Y[m×n] = X[m×k]·W[k×n] (+ b[n]). FLOPs 2·m·n·k (+ m·n for the bias); reads
/// (m·k + k·n [+ n])·b, writes m·n·b, b = dtype_bytes. 4096³ fp16: intensity 4096/3 = 1365.3.
op_desc gemm_op(const std::string& name, std::int64_t m, std::int64_t n, std::int64_t k, int dtype_bytes,
                bool bias = false);
/// The same with the weight W[k×n] stored in `weights` (activations X, Y and the bias in
/// dtype_bytes): reads m·k·b + weight_tensor_bytes(weights, k, n) (+ n·b). FLOPs unchanged (the
/// dequantization's arithmetic is not counted). Llama-3-8B q_proj at batch 1, int4 g128 (4-bit zero):
/// 4096·2 + 8,716,288 B read.
op_desc gemm_op(const std::string& name, std::int64_t m, std::int64_t n, std::int64_t k, int dtype_bytes,
                const weight_quant& weights, bool bias = false);

/// Elementwise or row op on rows × cols elements: add, mul (2 reads, 1 write), silu, gelu (1 read,
/// 1 write), silu_mul (2 reads, 1 write), rmsnorm (two-pass: x read twice, w once, 1 write),
/// layernorm (two-pass: x twice, w and b once, 1 write), softmax (three-pass: 3 reads, 1 write).
/// FLOPs = rows·cols × the per-element constant above. fp16 add: 1/6 FLOP/B.
op_desc elementwise_op(op_kind kind, const std::string& name, std::int64_t rows, std::int64_t cols, int dtype_bytes);

/// Embedding gather: `rows` token ids (int64) pick rows of width `cols`; 0 FLOPs; reads
/// rows·(cols·b + 8), writes rows·cols·b. `table_rows` (the vocab; positions for wpe) goes to op.k,
/// the table backends gather from.
op_desc embedding_op(const std::string& name, std::int64_t rows, std::int64_t cols, int dtype_bytes,
                     std::int64_t table_rows);

/// RoPE on q and k of `tokens` tokens: rows = tokens, cols = (heads + kv_heads)·head_dim; reads q, k
/// and the cos/sin rows (2·head_dim per token), writes q, k; 3 FLOPs per element.
op_desc rope_op(std::int64_t tokens, std::int64_t heads, std::int64_t kv_heads, std::int64_t head_dim, int dtype_bytes);

/// Attention of `batch` sequences, q_len queries each against kv_len keys, heads query heads sharing
/// kv_heads K/V heads of head_dim. FLOPs = batch·heads·P·(4·head_dim + 5), P = scored pairs
/// (q_len·kv_len, or the causal lower triangle q_len·(q_len+1)/2 when q_len = kv_len and causal_halved).
///  - attention_decode (q_len = 1): reads q, the K and V cache (2·batch·kv_len·kv_heads·head_dim·kvb)
///    once, writes the output and the new token's K and V. Intensity ≈ (4d+5)·H / (4d·kv_heads·kvb/2)
///    ≈ heads / kv_heads for a 2-byte cache, independent of batch and context (Pope et al. 2022 §3.1).
///  - attention_fused (FlashAttention, Dao et al. 2022 §3): moves only q, k, v and the output (the
///    I/O lower bound; the tiled kernel re-reads K/V Θ(n²d²/M) times, Theorem 2).
///  - attention_naive: also writes the batch·heads·q_len·kv_len scores (full n×n even when causal),
///    softmax reads them 3× and writes them 1×, and P·V reads them again: 6 passes over the scores.
/// `window` > 0 (prefill/train sliding-window layers): each query scores at most `window` keys,
/// P = W(W+1)/2 + (q_len − W)·W (causal-halved) or q_len·W (Mistral-7B, 32768 tokens, W 4096:
/// 2.08 TFLOP per layer instead of 8.88). `chunk` > 0 (prefill/train chunked layers): each query
/// scores only its own chunk, P = n·C(C+1)/2 + r(r+1)/2 (causal-halved) or n·C² + r² with n = q_len ÷ C,
/// r = q_len mod C. Decode callers give kv_len = decode_keys() instead; a decode kv_len of 0 (a
/// chunked layer's query opening a new chunk) scores no cached key.
op_desc attention_op(op_kind kind, std::int64_t batch, std::int64_t heads, std::int64_t kv_heads,
                     std::int64_t head_dim, std::int64_t q_len, std::int64_t kv_len, int dtype_bytes,
                     int kv_dtype_bytes, bool causal_halved, std::int64_t window = 0, std::int64_t chunk = 0);

/// The softmax inside an attention op, as a standalone row softmax over its scores: rows =
/// batch·heads·q_len, cols = kv_len (the shape eager naive attention runs it at; §3 conventions).
/// Its bytes are already part of attention_naive's; list it beside, never add it to a step total.
op_desc attention_softmax_op(const op_desc& attention);

/// A generic tensor op that reads its inputs once and writes its output once (docs/formulas-model.md
/// §3.1): copies and casts (aten::copy_, to, cat: 0 FLOPs), unary and broadcast elementwise ops
/// (neg, pow, rsqrt, exp, a mul by a broadcast weight row: 1 FLOP per output element unless §3
/// gives a constant), reductions (mean, sum, argmax: 1 FLOP per input element). The caller gives the
/// bytes from the tensors' element counts and dtype sizes (inputs read once, output written once);
/// FLOPs = flops_per_element · elements. kind stays op_kind::add (no backend kernel of its own: it
/// is used to cost a framework op's kernel, never to build a catalogue). A 2 MiB fp16 copy: 0 FLOP,
/// 4 MiB moved.
op_desc tensor_op(const std::string& name, double bytes_read, double bytes_written, double flops_per_element,
                  std::int64_t elements);

/// Why a backend cannot run `op` as described ("" when it can): a GEMM of several independent
/// weight groups (op.groups > 1) or attention whose V width differs from its q·k width
/// (op.v_head_dim): the backends' kernels take neither, and running them at another shape would
/// time a different op. `run` reports such an op "not run: <why>".
std::string unrunnable_reason(const op_desc& op);

/// Bytes per element of a dtype name ("fp32" 4, "fp16"/"bf16" 2, "fp8"/"int8" 1). Throws input_error.
int dtype_bytes(const std::string& dtype);

}  // namespace roofline
