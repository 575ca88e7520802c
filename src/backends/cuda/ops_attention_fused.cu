// Fused prefill attention, FlashAttention-2 style (Dao 2023, "FlashAttention-2", alg. 1): per
// (batch, head) and 64-query tile, loop over 64-key tiles of K and V, S = Q·Kᵀ and O += P·V on the
// tensor cores (mma.sync m16n8k16, fp16/bf16 in, fp32 accumulate), online softmax in registers
// (running row max and sum, rescaling O): the scores never leave the chip.
// Block: 4 warps, 16 query rows each; K/V tiles double-buffered in shared memory with cp.async
// (16-byte, zero-filled past kv_len); fragments loaded with ldmatrix (.trans for V); shared rows
// padded by 16 bytes (conflict-free ldmatrix). head_dim 64 or 128. Causal: key tiles wholly above
// the diagonal are skipped, the diagonal tiles are masked element-wise; the heaviest query tiles are
// scheduled first. GQA: head h reads KV head h / (heads / kv_heads).
// FLOPs 4·batch·heads·q_len·kv_len·d (halved by the causal mask: the skipped tiles);
// bytes: Q, K, V read, O written — K and V once per query tile from L2 (HBM reads ≈ once).
// Check: the fp32 reference of ops_attention_ref.cu (run_attention_prefill).
#include <type_traits>

#include "backends/cuda/ops_kernels.cuh"
#include "backends/cuda/ops_mma.cuh"

namespace roofline::cuda::detail {
namespace {

constexpr int fa_br = 64, fa_bc = 64, fa_threads = 128;

template <typename T, int D>
__device__ __forceinline__ void load_tile(T* dst, const T* src, int row0, int rows_valid, int tid) {
  constexpr int CH = D / 8, LD = D + 8;
#pragma unroll
  for (int i = tid; i < fa_br * CH; i += fa_threads) {
    const int r = i / CH, c = i % CH;
    const bool p = row0 + r < rows_valid;
    cp_async16(smem_u32(dst + r * LD + c * 8), src + size_t(p ? row0 + r : 0) * D + c * 8, p);
  }
}

template <typename T, int D>
__global__ void __launch_bounds__(fa_threads) flash_fwd_kernel(const T* __restrict__ q, const T* __restrict__ k,
                                                               const T* __restrict__ v, T* __restrict__ o, int heads,
                                                               int kv_heads, int q_len, int kv_len, int causal,
                                                               float scale_log2) {
  constexpr int LD = D + 8;
  extern __shared__ __align__(16) unsigned char fa_smem[];
  T* sq = reinterpret_cast<T*>(fa_smem);
  T* sk = sq + fa_br * LD;
  T* sv = sk + 2 * fa_bc * LD;
  const int qtile = gridDim.x - 1 - blockIdx.x;  // heaviest (causal) tiles first
  const int h = blockIdx.y, b = blockIdx.z;
  const int kvh = h / (heads / kv_heads);
  const int q0 = qtile * fa_br, off = kv_len - q_len;
  const T* qg = q + (size_t(b) * heads + h) * size_t(q_len) * D;
  const T* kg = k + (size_t(b) * kv_heads + kvh) * size_t(kv_len) * D;
  const T* vg = v + (size_t(b) * kv_heads + kvh) * size_t(kv_len) * D;
  T* og = o + (size_t(b) * heads + h) * size_t(q_len) * D;
  const int tid = threadIdx.x, warp = tid >> 5, lane = tid & 31, g = lane >> 2, t = lane & 3;
  const int kv_end = causal ? min(kv_len, q0 + fa_br + off) : kv_len;
  const int ntiles = (kv_end + fa_bc - 1) / fa_bc;

  load_tile<T, D>(sq, qg, q0, q_len, tid);
  load_tile<T, D>(sk, kg, 0, kv_len, tid);
  load_tile<T, D>(sv, vg, 0, kv_len, tid);
  cp_async_commit();

  uint32_t qa[D / 16][4];
  float oacc[D / 8][4];
#pragma unroll
  for (int i = 0; i < D / 8; ++i) oacc[i][0] = oacc[i][1] = oacc[i][2] = oacc[i][3] = 0.f;
  float m0 = -INFINITY, m1 = -INFINITY, l0 = 0.f, l1 = 0.f;
  const int row_a = q0 + warp * 16 + g, row_b = row_a + 8;
  const int pos_a = row_a + off, pos_b = row_b + off;

  for (int it = 0; it < ntiles; ++it) {
    const int st = it & 1;
    if (it + 1 < ntiles) {
      load_tile<T, D>(sk + (st ^ 1) * fa_bc * LD, kg, (it + 1) * fa_bc, kv_len, tid);
      load_tile<T, D>(sv + (st ^ 1) * fa_bc * LD, vg, (it + 1) * fa_bc, kv_len, tid);
      cp_async_commit();
      cp_async_wait<1>();
    } else {
      cp_async_wait<0>();
    }
    __syncthreads();
    if (it == 0) {
#pragma unroll
      for (int kk = 0; kk < D / 16; ++kk) {
        const int row = warp * 16 + (lane & 7) + ((lane >> 3) & 1) * 8, col = kk * 16 + (lane >> 4) * 8;
        ldsm_x4(qa[kk], smem_u32(sq + row * LD + col));
      }
    }
    const T* ks = sk + st * fa_bc * LD;
    const T* vs = sv + st * fa_bc * LD;
    float s[8][4];
#pragma unroll
    for (int i = 0; i < 8; ++i) s[i][0] = s[i][1] = s[i][2] = s[i][3] = 0.f;
#pragma unroll
    for (int kk = 0; kk < D / 16; ++kk) {
#pragma unroll
      for (int np = 0; np < 4; ++np) {
        uint32_t r[4];
        const int key = np * 16 + (lane & 7) + (lane >> 4) * 8, dim = kk * 16 + ((lane >> 3) & 1) * 8;
        ldsm_x4(r, smem_u32(ks + key * LD + dim));
        mma16816<T>(s[2 * np], qa[kk], r[0], r[1]);
        mma16816<T>(s[2 * np + 1], qa[kk], r[2], r[3]);
      }
    }
    const int k0 = it * fa_bc;
    const bool need_mask = k0 + fa_bc > kv_len || (causal && k0 + fa_bc - 1 > q0 + off);
    float mx0 = -INFINITY, mx1 = -INFINITY;
#pragma unroll
    for (int nt = 0; nt < 8; ++nt) {
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        float x = s[nt][e] * scale_log2;
        if (need_mask) {
          const int key = k0 + nt * 8 + 2 * t + (e & 1);
          const int pos = e < 2 ? pos_a : pos_b;
          if (key >= kv_len || (causal && key > pos)) x = -INFINITY;
        }
        s[nt][e] = x;
      }
      mx0 = fmaxf(mx0, fmaxf(s[nt][0], s[nt][1]));
      mx1 = fmaxf(mx1, fmaxf(s[nt][2], s[nt][3]));
    }
    mx0 = fmaxf(mx0, __shfl_xor_sync(0xffffffffu, mx0, 1));
    mx0 = fmaxf(mx0, __shfl_xor_sync(0xffffffffu, mx0, 2));
    mx1 = fmaxf(mx1, __shfl_xor_sync(0xffffffffu, mx1, 1));
    mx1 = fmaxf(mx1, __shfl_xor_sync(0xffffffffu, mx1, 2));
    const float mn0 = fmaxf(m0, mx0), mn1 = fmaxf(m1, mx1);
    const float mu0 = mn0 == -INFINITY ? 0.f : mn0, mu1 = mn1 == -INFINITY ? 0.f : mn1;
    const float a0 = exp2f(m0 - mu0), a1 = exp2f(m1 - mu1);
    m0 = mn0;
    m1 = mn1;
    l0 *= a0;
    l1 *= a1;
#pragma unroll
    for (int nt = 0; nt < 8; ++nt) {
      s[nt][0] = exp2f(s[nt][0] - mu0);
      s[nt][1] = exp2f(s[nt][1] - mu0);
      s[nt][2] = exp2f(s[nt][2] - mu1);
      s[nt][3] = exp2f(s[nt][3] - mu1);
      l0 += s[nt][0] + s[nt][1];
      l1 += s[nt][2] + s[nt][3];
    }
#pragma unroll
    for (int i = 0; i < D / 8; ++i) {
      oacc[i][0] *= a0;
      oacc[i][1] *= a0;
      oacc[i][2] *= a1;
      oacc[i][3] *= a1;
    }
#pragma unroll
    for (int kk = 0; kk < 4; ++kk) {
      const uint32_t pa[4] = {pack2<T>(s[2 * kk][0], s[2 * kk][1]), pack2<T>(s[2 * kk][2], s[2 * kk][3]),
                              pack2<T>(s[2 * kk + 1][0], s[2 * kk + 1][1]),
                              pack2<T>(s[2 * kk + 1][2], s[2 * kk + 1][3])};
#pragma unroll
      for (int dp = 0; dp < D / 16; ++dp) {
        uint32_t r[4];
        const int key = kk * 16 + (lane & 7) + ((lane >> 3) & 1) * 8, dim = dp * 16 + (lane >> 4) * 8;
        ldsm_x4_t(r, smem_u32(vs + key * LD + dim));
        mma16816<T>(oacc[2 * dp], pa, r[0], r[1]);
        mma16816<T>(oacc[2 * dp + 1], pa, r[2], r[3]);
      }
    }
    __syncthreads();  // stage st is refilled by the next iteration's prefetch
  }
  l0 += __shfl_xor_sync(0xffffffffu, l0, 1);
  l0 += __shfl_xor_sync(0xffffffffu, l0, 2);
  l1 += __shfl_xor_sync(0xffffffffu, l1, 1);
  l1 += __shfl_xor_sync(0xffffffffu, l1, 2);
  const float inv0 = l0 > 0.f ? 1.f / l0 : 0.f, inv1 = l1 > 0.f ? 1.f / l1 : 0.f;
#pragma unroll
  for (int i = 0; i < D / 8; ++i) {
    const int col = i * 8 + 2 * t;
    if (row_a < q_len)
      *reinterpret_cast<uint32_t*>(og + size_t(row_a) * D + col) = pack2<T>(oacc[i][0] * inv0, oacc[i][1] * inv0);
    if (row_b < q_len)
      *reinterpret_cast<uint32_t*>(og + size_t(row_b) * D + col) = pack2<T>(oacc[i][2] * inv1, oacc[i][3] * inv1);
  }
}

template <typename T, int D>
constexpr size_t fa_smem_bytes() {
  return size_t(fa_br + 4 * fa_bc) * (D + 8) * sizeof(T);
}

}  // namespace

template <typename T>
std::string prepare_flash_attention(int d) {
  int dev = 0, major = 0;
  ROOFLINE_CUDA_CALL(cudaGetDevice(&dev));
  ROOFLINE_CUDA_CALL(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev));
  if (major < 8)
    throw probe_error(cat("fused attention kernel needs compute capability 8.0+ (cp.async, mma.sync m16n8k16); "
                          "this GPU is ", major, ".x"));
  if (d == 64) {
    ROOFLINE_CUDA_CALL(cudaFuncSetAttribute(flash_fwd_kernel<T, 64>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                            static_cast<int>(fa_smem_bytes<T, 64>())));
    return cat("FlashAttention-2-style own kernel: mma.sync m16n8k16, 64x64 tiles, 4 warps, cp.async double buffer, ",
               fa_smem_bytes<T, 64>() / 1024, " KiB shared");
  }
  if (d == 128) {
    ROOFLINE_CUDA_CALL(cudaFuncSetAttribute(flash_fwd_kernel<T, 128>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                            static_cast<int>(fa_smem_bytes<T, 128>())));
    return cat("FlashAttention-2-style own kernel: mma.sync m16n8k16, 64x64 tiles, 4 warps, cp.async double buffer, ",
               fa_smem_bytes<T, 128>() / 1024, " KiB shared");
  }
  throw probe_error(cat("fused attention kernel supports head_dim 64 and 128 (got ", d, ")"));
}
template std::string prepare_flash_attention<__half>(int);
template std::string prepare_flash_attention<__nv_bfloat16>(int);

template <typename T>
void launch_flash_attention(const T* q, const T* k, const T* v, T* o, int batch, int heads, int kv_heads, int d,
                            int q_len, int kv_len, bool causal, cudaStream_t s) {
  const dim3 grid((q_len + fa_br - 1) / fa_br, heads, batch);
  const float scale_log2 = 1.4426950408889634f / sqrtf(static_cast<float>(d));
  if (d == 64)
    flash_fwd_kernel<T, 64><<<grid, fa_threads, fa_smem_bytes<T, 64>(), s>>>(q, k, v, o, heads, kv_heads, q_len,
                                                                              kv_len, causal, scale_log2);
  else if (d == 128)
    flash_fwd_kernel<T, 128><<<grid, fa_threads, fa_smem_bytes<T, 128>(), s>>>(q, k, v, o, heads, kv_heads, q_len,
                                                                                kv_len, causal, scale_log2);
  else
    throw probe_error(cat("fused attention kernel supports head_dim 64 and 128 (got ", d, ")"));
  ROOFLINE_CUDA_LAUNCH_CHECK();
}
template void launch_flash_attention<__half>(const __half*, const __half*, const __half*, __half*, int, int, int, int,
                                             int, int, bool, cudaStream_t);
template void launch_flash_attention<__nv_bfloat16>(const __nv_bfloat16*, const __nv_bfloat16*, const __nv_bfloat16*,
                                                    __nv_bfloat16*, int, int, int, int, int, int, bool, cudaStream_t);

}  // namespace roofline::cuda::detail
