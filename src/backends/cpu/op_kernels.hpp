// The CPU's model-op kernels, fp32, OpenMP over all worker threads (small ops run on one thread:
// below 32768 elements a parallel region costs more than it saves). Each kernel's FLOPs and bytes
// are those of the op catalogue (docs/formulas.md); exp is fast_expf (fast_exp.hpp, vectorised).
// Per element:
//   add, mul        z = x ∘ y                      1 FLOP, 12 B (2 reads + 1 write)
//   silu            y = x·σ(x) = x / (1 + e^-x)    8 B
//   silu_mul        y = silu(g)·u (fused SwiGLU)   12 B (the unfused pair moves 20 B: 3/5)
//   gelu            y = ½x(1 + tanh(√(2/π)(x + 0.044715x³)))  (Hendrycks & Gimpel 2016, eq. 2)
//   rmsnorm         y = x / sqrt(mean(x²) + eps) · w   (Zhang & Sennrich 2019), one pass over x
//   layernorm       y = (x − μ)/sqrt(σ² + eps) · w + b (Ba et al. 2016)
//   softmax         y = e^(x − max) / Σ e^(x − max) per row: 3 reads (max, sum, normalise) + 1 write;
//                   x and y may alias (in place)
//   rope            rotate-half rotary embedding (Su et al. 2021; HF Llama apply_rotary_pos_emb)
//   embedding       out[r] = table[ids[r]]
//   gemm            C[m×n] = A[m×k]·B[k×n] through OpenBLAS cblas_sgemm (m = 1: cblas_sgemv, C = Bᵀ·A)
// Attention (attention_kernels.cpp): q [batch, heads, q_len, head_dim], k/v [batch, kv_heads,
// kv_len, head_dim] (GQA: head h reads kv head h / (heads / kv_heads)), out like q; scale
// 1/sqrt(head_dim); causal: query i sits at position kv_len − q_len + i and sees keys ≤ it.
#pragma once
#include <cstdint>

namespace roofline::cpu {

/// Elements written below which the elementwise, norm, softmax, RoPE and embedding kernels run on
/// one thread (their OpenMP region's `if` clause is false): a parallel region costs more than it
/// saves there. measured.small_work records it, and the prediction uses the one-thread floor and
/// ramp for such ops (docs/formulas-analysis.md §7.2).
inline constexpr std::int64_t serial_below_elements = 32768;

void add_kernel(const float* x, const float* y, float* z, std::int64_t n);
void mul_kernel(const float* x, const float* y, float* z, std::int64_t n);
void silu_kernel(const float* x, float* y, std::int64_t n);
void silu_mul_kernel(const float* g, const float* u, float* y, std::int64_t n);
void gelu_kernel(const float* x, float* y, std::int64_t n);
void rmsnorm_kernel(const float* x, const float* w, float* y, std::int64_t rows, std::int64_t cols, float eps);
/// The same in two passes over the tensor (all rows' 1/rms first, then y): x read twice from memory
/// when rows × cols exceeds the caches — the unfused form that fusion comparisons measure.
void rmsnorm_two_pass_kernel(const float* x, const float* w, float* y, std::int64_t rows, std::int64_t cols,
                             float eps);
void layernorm_kernel(const float* x, const float* w, const float* b, float* y, std::int64_t rows, std::int64_t cols,
                      float eps);
/// Row softmax of x [rows, cols] into y: y is x itself or does not overlap it.
void softmax_kernel(const float* x, float* y, std::int64_t rows, std::int64_t cols);
/// q [tokens, heads, head_dim], k [tokens, kv_heads, head_dim], rotated in place with cos/sin
/// [tokens, head_dim/2] (the per-position tables HF computes once per forward).
void rope_kernel(float* q, float* k, const float* cos, const float* sin, std::int64_t tokens, std::int64_t heads,
                 std::int64_t kv_heads, std::int64_t head_dim);
/// cos/sin tables for positions pos0 + t (theta = 10000, Llama): cos[t, i] = cos(p θ^(−2i/d)).
void rope_tables(float* cos, float* sin, std::int64_t tokens, std::int64_t head_dim, std::int64_t pos0,
                 double theta = 10000.0);
void embedding_kernel(const float* table, const std::int32_t* ids, float* out, std::int64_t rows, std::int64_t cols);
/// Throws probe_error when built without OpenBLAS.
void gemm_kernel(const float* a, const float* b, float* c, std::int64_t m, std::int64_t n, std::int64_t k);

struct attention_shape {
  std::int64_t batch = 1, heads = 1, kv_heads = 1, head_dim = 64, q_len = 1, kv_len = 1;
  bool causal = true;
};
/// Decode (q_len = 1), split-KV: each (batch, kv head, key range) item reads its K and V tiles once
/// for all heads / kv_heads query heads of the group (GQA), keeps a running max, sum and P·V per head
/// (online softmax, Milakov & Gimelshein 2018), and the ranges are combined by their maxima (the
/// flash-decoding reduction, Dao et al. 2023). splits ≤ 0: enough items for two per thread, each range
/// at least one 64-key tile; splits > 0 forces that many ranges (tests).
void attention_decode_kernel(const float* q, const float* k, const float* v, float* out, const attention_shape& s,
                             std::int64_t splits = 0);
/// Scores S = q·kᵀ·scale written to `scores` [batch, heads, q_len, kv_len] (full rows; masked
/// entries −inf), then softmax in place over full rows, then out = P·v: with OpenBLAS the two
/// products by cblas_sgemm per (batch, head) over full rows, as eager attention runs them; without,
/// tiled dot products and P·v over the visible keys.
void attention_naive_kernel(const float* q, const float* k, const float* v, float* scores, float* out,
                            const attention_shape& s);
/// Fused attention: scores live only in a per-thread tile, never in memory. With OpenBLAS: query
/// tiles of up to 256 rows (at most 8 MiB of scores), S = Q·Kᵀ and O = P·V by cblas_sgemm, the causal
/// mask and an exact softmax per row in between (one pass over all visible keys, so no online
/// rescaling: the tile holds the whole row). Without OpenBLAS: FlashAttention-style (Dao et al.
/// 2022, Alg. 1 with the FA-2 loop order), query tiles of 32 against key tiles of 64, online softmax.
void attention_fused_kernel(const float* q, const float* k, const float* v, float* out, const attention_shape& s);
/// The softmax between the fused kernel's two GEMMs, in place on a tile of scores [rows × cols]: row i
/// sees its first min(cols, first_visible + i) keys (the causal mask; first_visible ≥ cols: none)
/// and becomes exp(s − max) over them and 0 beyond; inv[i] = 1 ÷ the row's sum (applied to O later).
void softmax_tile(float* scores, std::int64_t rows, std::int64_t cols, std::int64_t first_visible, float* inv);
/// The fused kernel without a BLAS (what attention_fused_kernel runs when built without OpenBLAS):
/// query tiles of 32 against key tiles of 64, online softmax (FlashAttention-2 loop order).
void attention_fused_tiles_kernel(const float* q, const float* k, const float* v, float* out, const attention_shape& s);

}  // namespace roofline::cpu
