// Kernels shared between op runners (host launchers; the kernels are in the named files).
#pragma once
#include <cublasLt.h>

#include <functional>
#include <string>

#include "backends/cuda/ops_common.cuh"

namespace roofline::cuda::detail {

/// ops_softmax.cu: row softmax of rows × cols (y may equal x), softmax(scale·x); with q_len > 0 a
/// causal mask: row r is query r mod q_len and sees keys j ≤ (r mod q_len) + kv_off (others → 0).
/// Returns a one-line description of the path taken.
template <typename T>
const char* launch_row_softmax(const T* x, T* y, size_t rows, int cols, float scale, int q_len, int kv_off,
                               cudaStream_t s);
/// fp32 reference of the same (one warp per row, fp64 sums).
template <typename T>
void launch_softmax_reference(const T* x, float* ref, size_t rows, int cols, float scale, int q_len, int kv_off,
                              cudaStream_t s);

/// ops_gemm.cu: one cuBLASLt matmul in row-major terms, fp32 accumulation:
///   C[b][m×n] = A[b][m×k] · op(B[b]),  op(B) = Bᵀ of a stored [n×k] (b_is_nk) or B stored [k×n],
/// for batch b with element strides stride_a/b/c (0 for batch 1). The constructor picks the fastest
/// of cuBLASLt's heuristic algorithms (up to 8, each timed over a few runs); run() launches it.
/// Operands of buffer set s (for timing candidates cold, over the runner's rotation).
struct lt_sets {
  int n = 1;
  std::function<void(int s, const void*& a, const void*& b, void*& c)> of;
};

class lt_matmul {
 public:
  /// Chooses the algorithm: the one ctx.memo holds for this shape, else the fastest of the heuristic's
  /// top 8 — timed over `sets` (graph replays over the buffer sets, as the op is timed) when given
  /// with n > 1, else 1 warm-up + 3 runs on a, b, c — and stores it in ctx.memo.
  lt_matmul(const op_context& ctx, dtype_id t, int64_t m, int64_t n, int64_t k, bool b_is_nk, int batch,
            int64_t stride_a, int64_t stride_b, int64_t stride_c, const void* a, const void* b, void* c,
            const lt_sets* sets = nullptr);
  ~lt_matmul();
  lt_matmul(const lt_matmul&) = delete;
  lt_matmul& operator=(const lt_matmul&) = delete;
  void run(const void* a, const void* b, void* c, float alpha = 1.f) const;
  const std::string& description() const { return desc_; }
  /// What one run executes on the tensor cores: the chosen tile's padded FLOPs, 2·k·⌈n/tile_m⌉·tile_m ·
  /// ⌈m/tile_n⌉·tile_n · batch (row-major C = A·op(B) runs as column-major Cᵀ, so the tile's M spans
  /// our n and its N our m); the model's 2·m·n·k·batch when the library reports no tile.
  executed_flops executed() const;

 private:
  const op_context& ctx_;
  int64_t m_ = 0, n_ = 0, k_ = 0;
  int batch_ = 1;
  cublasLtMatmulDesc_t op_ = nullptr;
  cublasLtMatrixLayout_t la_ = nullptr, lb_ = nullptr, lc_ = nullptr;
  cublasLtMatmulAlgo_t algo_{};
  std::string desc_;
};

/// ops_attention_ref.cu: fp32 reference attention, one thread per (batch, head, query), online
/// softmax over keys in fp64-free fp32 with fp32 accumulation. Layouts: q, o [batch, heads, q_len, d];
/// k, v [batch, kv_heads, kv_len, d]; query i sits at position i + kv_len − q_len (causal sees keys ≤ it).
/// `rows` selects which flat (b, h, i) query rows to compute (nullptr: all); ref is [n_rows × d].
template <typename T>
void launch_attention_reference(const T* q, const T* k, const T* v, float* ref, int batch, int heads, int kv_heads,
                                int d, int q_len, int kv_len, bool causal, const int32_t* rows, size_t n_rows,
                                cudaStream_t s);

}  // namespace roofline::cuda::detail

namespace roofline::cuda::detail {
/// ops_attention_fused.cu: raises the kernel's shared-memory limit (call once before launching, outside
/// any timed region); returns the implementation's description. Throws for head_dim other than 64/128.
template <typename T>
std::string prepare_flash_attention(int d);
/// FlashAttention-2-style fused prefill attention; layouts as launch_attention_reference.
template <typename T>
void launch_flash_attention(const T* q, const T* k, const T* v, T* o, int batch, int heads, int kv_heads, int d,
                            int q_len, int kv_len, bool causal, cudaStream_t s);
}  // namespace roofline::cuda::detail
