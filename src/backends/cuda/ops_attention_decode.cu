// Decode attention (one query token per sequence) over a KV cache, flash-decoding style
// (Dao et al. 2023, "Flash-Decoding for long-context inference"): the KV length is split over
// blocks, each block computes a partial (max, sum, unnormalised output) with an online softmax, and
// the partials are combined. GQA: one block serves the g = heads / kv_heads query heads of its KV
// head together (up to 16 per block), so the cache is read once per step.
// Layouts: q, o [batch, heads, d]; K, V cache [batch, kv_heads, kv_len, d] (fp16/bf16, = dtype).
// FLOPs 4·batch·heads·kv_len·d (q·k and p·v); bytes = K + V (2·batch·kv_heads·kv_len·d·b) + q + o
// (2·batch·heads·d·b), plus the split partials (batch·heads·splits·(d+2)·4 written and read: small,
// in the note).
// Main kernel (head_dim 64 or 128, compute capability 8.0+): tensor cores, mma.sync m16n8k16 — the
// query heads of a KV head are the 16 rows of the A operand (rows past g are zero), S = Q·Kᵀ and
// O += P·V per 16-key tile with an fp32 online softmax (base 2, log2e folded into the scale). K and V
// go global → shared → registers with 16-byte cp.async, 3 stages deep per warp; each thread copies
// exactly the 16-byte pieces it later reads (the head dimension of Q·Kᵀ and the columns of O are
// permuted so that a thread's fragment is whole 16-byte runs of one key row), so no barrier is
// needed inside the loop and the loads stay 16 bytes wide and coalesced. The last block of each
// (batch, KV head) to finish combines the splits (an arrival counter, reset by that block), so
// one kernel does it all. Other head sizes: the CUDA-core kernel below (d/8 lanes per key, 16-byte
// loads) and a separate combine kernel.
// Check: fp32 reference (ops_attention_ref.cu) on all query rows, outputs and partials NaN-poisoned.
// Where cuDNN loads, its fused SDPA (cudnn_sdpa.hpp) is verified and timed too; the faster is the op.
#include <algorithm>
#include <cmath>
#include <memory>
#include <type_traits>
#include <vector>

#include "backends/cuda/cudnn_sdpa.hpp"
#include "backends/cuda/ops_kernels.cuh"
#include "backends/cuda/ops_mma.cuh"

namespace roofline::cuda::detail {
namespace {

constexpr int dec_warps = 4;
constexpr float log2e = 1.4426950408889634f;

template <typename T, int D, int G>
__global__ void __launch_bounds__(dec_warps * 32) decode_split_kernel(
    const T* __restrict__ q, const T* __restrict__ k, const T* __restrict__ v, float* __restrict__ part_acc,
    float* __restrict__ part_ml, int heads, int kv_heads, int kv_len, int chunk, int splits) {
  constexpr int LPK = D / 8;       // lanes per key
  constexpr int KPW = 32 / LPK;    // keys per warp step
  __shared__ float sm_acc[dec_warps][G][D];
  __shared__ float sm_m[dec_warps][G], sm_l[dec_warps][G];
  const int split = blockIdx.x, b = blockIdx.z;
  const int g = heads / kv_heads;
  const int kvh = blockIdx.y / ((g + G - 1) / G), hg = blockIdx.y % ((g + G - 1) / G);
  const int h0 = kvh * g + hg * G, gq = min(G, g - hg * G);
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31, ks = lane / LPK, dp = lane % LPK;
  const float qs = rsqrtf(static_cast<float>(D)) * log2e;

  float qf[G][8], acc[G][8], m[G], l[G];
#pragma unroll
  for (int h = 0; h < G; ++h) {
    m[h] = -INFINITY;
    l[h] = 0.f;
#pragma unroll
    for (int c = 0; c < 8; ++c) acc[h][c] = 0.f;
    if (h < gq) {
      unpack8<T>(__ldg(reinterpret_cast<const uint4*>(q + (size_t(b) * heads + h0 + h) * D) + dp), qf[h]);
#pragma unroll
      for (int c = 0; c < 8; ++c) qf[h][c] *= qs;
    } else {
#pragma unroll
      for (int c = 0; c < 8; ++c) qf[h][c] = 0.f;
    }
  }
  const size_t kv_base = (size_t(b) * kv_heads + kvh) * size_t(kv_len) * D;
  const uint4* kr = reinterpret_cast<const uint4*>(k + kv_base);
  const uint4* vr = reinterpret_cast<const uint4*>(v + kv_base);
  const int start = split * chunk, end = min(kv_len, start + chunk);
  // software-pipelined: the next step's K and V are in flight while this step computes
  constexpr int step = dec_warps * KPW;
  uint4 kn = make_uint4(0, 0, 0, 0), vn = make_uint4(0, 0, 0, 0);
  if (start + warp * KPW + ks < end) {
    kn = __ldg(kr + size_t(start + warp * KPW + ks) * (D / 8) + dp);
    vn = __ldg(vr + size_t(start + warp * KPW + ks) * (D / 8) + dp);
  }
  for (int base = start + warp * KPW; base < end; base += step) {  // uniform per warp
    const int j = base + ks;
    const bool valid = j < end;
    const uint4 kraw = kn, vraw = vn;
    if (j + step < end) {
      kn = __ldg(kr + size_t(j + step) * (D / 8) + dp);
      vn = __ldg(vr + size_t(j + step) * (D / 8) + dp);
    }
    float kf[8], vf[8];
    unpack8<T>(kraw, kf);
    unpack8<T>(vraw, vf);
#pragma unroll
    for (int h = 0; h < G; ++h) {
      float s = 0.f;
#pragma unroll
      for (int c = 0; c < 8; ++c) s += qf[h][c] * kf[c];
#pragma unroll
      for (int o = LPK / 2; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
      if (valid && h < gq) {
        const float mn = fmaxf(m[h], s);
        const float corr = exp2f(m[h] - mn), p = exp2f(s - mn);
        l[h] = l[h] * corr + p;
#pragma unroll
        for (int c = 0; c < 8; ++c) acc[h][c] = acc[h][c] * corr + p * vf[c];
        m[h] = mn;
      }
    }
  }
  // merge the key slots of the warp (lanes with equal dp)
#pragma unroll
  for (int o = LPK; o < 32; o <<= 1) {
#pragma unroll
    for (int h = 0; h < G; ++h) {
      const float mo = __shfl_xor_sync(0xffffffffu, m[h], o), lo = __shfl_xor_sync(0xffffffffu, l[h], o);
      const float mn = fmaxf(m[h], mo);
      const float c1 = mn == -INFINITY ? 0.f : exp2f(m[h] - mn), c2 = mn == -INFINITY ? 0.f : exp2f(mo - mn);
#pragma unroll
      for (int c = 0; c < 8; ++c) acc[h][c] = acc[h][c] * c1 + __shfl_xor_sync(0xffffffffu, acc[h][c], o) * c2;
      l[h] = l[h] * c1 + lo * c2;
      m[h] = mn;
    }
  }
  if (ks == 0) {
#pragma unroll
    for (int h = 0; h < G; ++h) {
#pragma unroll
      for (int c = 0; c < 8; ++c) sm_acc[warp][h][dp * 8 + c] = acc[h][c];
      if (dp == 0) {
        sm_m[warp][h] = m[h];
        sm_l[warp][h] = l[h];
      }
    }
  }
  __syncthreads();
  for (int idx = threadIdx.x; idx < gq * D; idx += blockDim.x) {
    const int h = idx / D, c = idx % D;
    float mm = -INFINITY;
#pragma unroll
    for (int w = 0; w < dec_warps; ++w) mm = fmaxf(mm, sm_m[w][h]);
    float a = 0.f, ll = 0.f;
#pragma unroll
    for (int w = 0; w < dec_warps; ++w) {
      const float f = sm_m[w][h] == -INFINITY ? 0.f : exp2f(sm_m[w][h] - mm);
      a += f * sm_acc[w][h][c];
      ll += f * sm_l[w][h];
    }
    const size_t row = (size_t(b) * heads + h0 + h) * splits + split;
    part_acc[row * D + c] = a;
    if (c == 0) {
      part_ml[row * 2] = mm;
      part_ml[row * 2 + 1] = ll;
    }
  }
}

/// o[b,h,:] = Σ_s 2^(m_s − M)·acc_s / Σ_s 2^(m_s − M)·l_s; one block of D threads per (b, h).
template <typename T>
__global__ void decode_combine_kernel(const float* __restrict__ part_acc, const float* __restrict__ part_ml,
                                      T* __restrict__ o, int d, int splits) {
  const size_t bh = blockIdx.x;
  const int c = threadIdx.x;
  float mm = -INFINITY;
  for (int s = 0; s < splits; ++s) mm = fmaxf(mm, part_ml[(bh * splits + s) * 2]);
  float a = 0.f, l = 0.f;
  for (int s = 0; s < splits; ++s) {
    const float ms = part_ml[(bh * splits + s) * 2];
    const float f = ms == -INFINITY ? 0.f : exp2f(ms - mm);
    a += f * part_acc[(bh * splits + s) * d + c];
    l += f * part_ml[(bh * splits + s) * 2 + 1];
  }
  if (c < d) o[bh * d + c] = elem<T>::from_f(a / l);
}

template <typename T, int D>
void launch_split(int G, dim3 grid, const T* q, const T* k, const T* v, float* pa, float* pml, int heads, int kv_heads,
                  int kv_len, int chunk, int splits, cudaStream_t s) {
  switch (G) {
    case 1: decode_split_kernel<T, D, 1><<<grid, dec_warps * 32, 0, s>>>(q, k, v, pa, pml, heads, kv_heads, kv_len, chunk, splits); break;
    case 2: decode_split_kernel<T, D, 2><<<grid, dec_warps * 32, 0, s>>>(q, k, v, pa, pml, heads, kv_heads, kv_len, chunk, splits); break;
    case 4: decode_split_kernel<T, D, 4><<<grid, dec_warps * 32, 0, s>>>(q, k, v, pa, pml, heads, kv_heads, kv_len, chunk, splits); break;
    default: decode_split_kernel<T, D, 8><<<grid, dec_warps * 32, 0, s>>>(q, k, v, pa, pml, heads, kv_heads, kv_len, chunk, splits); break;
  }
  ROOFLINE_CUDA_LAUNCH_CHECK();
}


// ---- tensor-core flash-decoding (head_dim 64 / 128) ----
constexpr int mdw = 4;        // warps per block
constexpr int mtile = 16;     // keys per warp iteration
constexpr int max_splits = 256;

/// Dynamic shared memory of the mma kernel: per warp, `stages` stages of D/8 16-byte pieces per
/// lane; reused for the per-warp outputs (16 rows × D floats per warp) and the combine's weights
/// (16 rows × max_splits × 2 floats).
inline size_t mma_smem_bytes(int d, int stages) {
  const size_t pipe = size_t(mdw) * stages * 32 * (d / 8) * 16;
  const size_t merge = size_t(mdw) * 16 * d * sizeof(float);
  const size_t combine = size_t(16) * max_splits * 2 * sizeof(float);
  return std::max(pipe, std::max(merge, combine));
}

/// cp.async.wait_group n for a run-time n in 1..7 (the instruction takes an immediate).
__device__ __forceinline__ void cp_async_wait_n(int n) {
  switch (n) {
    case 1: cp_async_wait<1>(); break;
    case 2: cp_async_wait<2>(); break;
    case 3: cp_async_wait<3>(); break;
    case 4: cp_async_wait<4>(); break;
    case 5: cp_async_wait<5>(); break;
    case 6: cp_async_wait<6>(); break;
    default: cp_async_wait<7>(); break;
  }
}

__device__ __forceinline__ uint32_t pick_half(uint32_t lo_src, uint32_t hi_src, int half) {
  // {lo_src.half, hi_src.half}: the low 16 bits of the result from lo_src, the high from hi_src
  return __byte_perm(lo_src, hi_src, half ? 0x7632 : 0x5410);
}
__device__ __forceinline__ uint32_t word_of(const uint4& v, int w) {
  return w == 0 ? v.x : w == 1 ? v.y : w == 2 ? v.z : v.w;
}

/// One block: KV head kvh (blockIdx.y / hgroups) of sequence blockIdx.z, its query-head group
/// (blockIdx.y % hgroups, 16 heads at most; R16: more than 8 heads in the group), keys
/// [split·chunk, min(kv_len, (split+1)·chunk)). Writes o directly when splits == 1.
/// COAL: the warp copies each tile with whole-row coalesced 16-byte pieces (lane l takes piece
/// 32·c + l of the tile's contiguous rows) and places each where its consuming lane reads it, then
/// __syncwarp; else each lane copies exactly the pieces it reads (half-row runs for K, no barrier).
/// `stages` (2…8) tiles per warp are in flight in shared memory.
template <typename T, int D, bool R16, bool COAL>
__global__ void __launch_bounds__(mdw * 32, D == 64 ? 4 : 2) decode_mma_kernel(
    const T* __restrict__ q, const T* __restrict__ k, const T* __restrict__ v, T* __restrict__ o,
    float* __restrict__ part_acc, float* __restrict__ part_ml, unsigned* __restrict__ counters, int heads,
    int kv_heads, int kv_len, int chunk, int splits, int hgroups, float scale_log2, int stages) {
  constexpr int KP = D / 16;        // 16-byte K pieces per lane per tile (2 n-tiles × D/32)
  constexpr int VP = D / 16;        // 16-byte V pieces per lane per tile (4 keys × D/64)
  constexpr int P = KP + VP;
  constexpr int NT = D / 8;         // n-tiles of the output
  extern __shared__ __align__(16) unsigned char smem[];
  __shared__ float sm_m[mdw][16], sm_l[mdw][16];
  __shared__ int sm_last;

  const int split = blockIdx.x, b = blockIdx.z;
  const int kvh = blockIdx.y / hgroups, hg = blockIdx.y % hgroups;
  const int g = heads / kv_heads;
  const int h0 = kvh * g + hg * 16, gq = min(R16 ? 16 : 8, g - hg * 16);
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31, r0 = lane >> 2, t4 = lane & 3;
  const int start = split * chunk, end = min(kv_len, start + chunk);

  // Q as A fragments (rows = query heads), head dim permuted: k-step 2j+e takes elements 4e..4e+3 of
  // the 16-byte run Q[row][32j + 8·t4 ..]; K's B fragments use the same permutation.
  uint32_t qa[D / 16][4];
  {
    const size_t qrow = size_t(b) * heads + h0;
#pragma unroll
    for (int j = 0; j < D / 32; ++j) {
      uint4 x0 = make_uint4(0, 0, 0, 0), x1 = make_uint4(0, 0, 0, 0);
      if (r0 < gq) x0 = __ldg(reinterpret_cast<const uint4*>(q + (qrow + r0) * D + 32 * j + 8 * t4));
      if (R16 && r0 + 8 < gq) x1 = __ldg(reinterpret_cast<const uint4*>(q + (qrow + r0 + 8) * D + 32 * j + 8 * t4));
      qa[2 * j][0] = x0.x, qa[2 * j][1] = x1.x, qa[2 * j][2] = x0.y, qa[2 * j][3] = x1.y;
      qa[2 * j + 1][0] = x0.z, qa[2 * j + 1][1] = x1.z, qa[2 * j + 1][2] = x0.w, qa[2 * j + 1][3] = x1.w;
    }
  }

  const size_t kv_base = (size_t(b) * kv_heads + kvh) * size_t(kv_len) * D;
  const T* kb = k + kv_base;
  const T* vb = v + kv_base;
  uint4* pipe = reinterpret_cast<uint4*>(smem) + size_t(warp) * stages * P * 32;
  const int tiles = (end - start + mtile - 1) / mtile;
  const int mine = warp < tiles ? (tiles - warp + mdw - 1) / mdw : 0;
  // Blocks start at different tiles of their chunk (the softmax does not care about order), so that
  // the blocks' streams do not walk through memory in lock-step at power-of-two distances.
  const int rot = mine > 0 ? int((blockIdx.x * 7u + blockIdx.y * 13u + blockIdx.z * 3u) % unsigned(mine)) : 0;
  auto tile_of = [&](int i) { int t = i + rot; return t >= mine ? t - mine : t; };

  // Stage s of this warp: piece p of lane l at pipe[(s·P + p)·32 + l] (conflict-free 16-byte access).
  auto issue = [&](int i) {
    const int key0 = start + (warp + tile_of(i) * mdw) * mtile;
    uint4* stage = pipe + size_t(i % stages) * P * 32;
    if constexpr (COAL) {
      // K and V tiles are 16 contiguous rows of D elements: 2·D pieces each, KP per lane.
#pragma unroll
      for (int c = 0; c < KP; ++c) {
        const int q16 = c * 32 + lane, kk = q16 / (D / 8), cc = q16 % (D / 8);
        const int key = key0 + kk;
        const bool ok = key < end;
        const int kl = (kk % 8) * 4 + (cc % 4), kp = (kk / 8) * (D / 32) + cc / 4;
        cp_async16(smem_u32(stage + kp * 32 + kl), kb + size_t(ok ? key : start) * D + 8 * cc, ok);
        const int m = (kk % 2) + 2 * (kk / 8), vl = (cc / (D / 64)) * 4 + (kk % 8) / 2;
        const int vp = KP + m * (D / 64) + cc % (D / 64);
        cp_async16(smem_u32(stage + vp * 32 + vl), vb + size_t(ok ? key : start) * D + 8 * cc, ok);
      }
      return;
    }
    const uint32_t dst = smem_u32(stage + lane);
#pragma unroll
    for (int nt = 0; nt < 2; ++nt)
#pragma unroll
      for (int j = 0; j < D / 32; ++j) {
        const int key = key0 + 8 * nt + r0;
        const bool ok = key < end;
        cp_async16(dst + (nt * (D / 32) + j) * 32 * 16, kb + size_t(ok ? key : start) * D + 32 * j + 8 * t4, ok);
      }
#pragma unroll
    for (int m = 0; m < 4; ++m)
#pragma unroll
      for (int jj = 0; jj < D / 64; ++jj) {
        const int key = key0 + 2 * t4 + (m & 1) + (m >> 1) * 8;
        const bool ok = key < end;
        cp_async16(dst + (KP + m * (D / 64) + jj) * 32 * 16,
                   vb + size_t(ok ? key : start) * D + (D / 8) * r0 + 8 * jj, ok);
      }
  };

  float oacc[NT][4];
#pragma unroll
  for (int i = 0; i < NT; ++i) oacc[i][0] = oacc[i][1] = oacc[i][2] = oacc[i][3] = 0.f;
  float m0 = -INFINITY, m1 = -INFINITY, l0 = 0.f, l1 = 0.f;

  for (int i = 0; i < stages - 1; ++i) {
    if (i < mine) issue(i);
    cp_async_commit();
  }
  for (int i = 0; i < mine; ++i) {
    if constexpr (COAL) __syncwarp();  // every lane has read the stage that issue() refills
    if (i + stages - 1 < mine) issue(i + stages - 1);
    cp_async_commit();
    cp_async_wait_n(stages - 1);
    if constexpr (COAL) __syncwarp();  // the other lanes' pieces of tile i have landed
    const uint4* st = pipe + size_t(i % stages) * P * 32 + lane;
    uint4 kr[KP], vr[VP];
#pragma unroll
    for (int p = 0; p < KP; ++p) kr[p] = st[p * 32];
#pragma unroll
    for (int p = 0; p < VP; ++p) vr[p] = st[(KP + p) * 32];

    float s[2][4];
#pragma unroll
    for (int nt = 0; nt < 2; ++nt) {
      s[nt][0] = s[nt][1] = s[nt][2] = s[nt][3] = 0.f;
#pragma unroll
      for (int j = 0; j < D / 32; ++j) {
        const uint4 x = kr[nt * (D / 32) + j];
        mma16816<T>(s[nt], qa[2 * j], x.x, x.y);
        mma16816<T>(s[nt], qa[2 * j + 1], x.z, x.w);
      }
    }
    const int key0 = start + (warp + tile_of(i) * mdw) * mtile;
#pragma unroll
    for (int nt = 0; nt < 2; ++nt)
#pragma unroll
      for (int c = 0; c < 2; ++c) {
        const bool ok = key0 + 8 * nt + 2 * t4 + c < end;
        s[nt][c] = ok ? s[nt][c] * scale_log2 : -INFINITY;
        s[nt][2 + c] = ok ? s[nt][2 + c] * scale_log2 : -INFINITY;
      }
    // online softmax, row r0 (and r0 + 8 with R16); the 4 lanes of a quad share a row
    float mx0 = fmaxf(fmaxf(s[0][0], s[0][1]), fmaxf(s[1][0], s[1][1]));
    mx0 = fmaxf(mx0, __shfl_xor_sync(0xffffffffu, mx0, 1));
    mx0 = fmaxf(mx0, __shfl_xor_sync(0xffffffffu, mx0, 2));
    const float mn0 = fmaxf(m0, mx0), mu0 = mn0 == -INFINITY ? 0.f : mn0;
    const float c0 = exp2f(m0 - mu0);
    s[0][0] = exp2f(s[0][0] - mu0), s[0][1] = exp2f(s[0][1] - mu0);
    s[1][0] = exp2f(s[1][0] - mu0), s[1][1] = exp2f(s[1][1] - mu0);
    l0 = l0 * c0 + (s[0][0] + s[0][1] + s[1][0] + s[1][1]);
    m0 = mn0;
    float c1 = 1.f;
    if constexpr (R16) {
      float mx1 = fmaxf(fmaxf(s[0][2], s[0][3]), fmaxf(s[1][2], s[1][3]));
      mx1 = fmaxf(mx1, __shfl_xor_sync(0xffffffffu, mx1, 1));
      mx1 = fmaxf(mx1, __shfl_xor_sync(0xffffffffu, mx1, 2));
      const float mn1 = fmaxf(m1, mx1), mu1 = mn1 == -INFINITY ? 0.f : mn1;
      c1 = exp2f(m1 - mu1);
      s[0][2] = exp2f(s[0][2] - mu1), s[0][3] = exp2f(s[0][3] - mu1);
      s[1][2] = exp2f(s[1][2] - mu1), s[1][3] = exp2f(s[1][3] - mu1);
      l1 = l1 * c1 + (s[0][2] + s[0][3] + s[1][2] + s[1][3]);
      m1 = mn1;
    }
    uint32_t pa[4];
    pa[0] = pack2<T>(s[0][0], s[0][1]);
    pa[2] = pack2<T>(s[1][0], s[1][1]);
    if constexpr (R16) {
      pa[1] = pack2<T>(s[0][2], s[0][3]);
      pa[3] = pack2<T>(s[1][2], s[1][3]);
    } else {
      pa[1] = pa[3] = 0u;
    }
    // O += P·V: output column n of n-tile i is head dim (D/8)·n + i; this lane's B fragment is
    // element i of its 16-byte runs of V rows 2·t4, 2·t4+1 (b0) and 2·t4+8, 2·t4+9 (b1).
#pragma unroll
    for (int i = 0; i < NT; ++i) {
      const int jj = i / 8, w = (i % 8) / 2, hf = i % 2;
      const uint32_t b0 = pick_half(word_of(vr[0 * (D / 64) + jj], w), word_of(vr[1 * (D / 64) + jj], w), hf);
      const uint32_t b1 = pick_half(word_of(vr[2 * (D / 64) + jj], w), word_of(vr[3 * (D / 64) + jj], w), hf);
      oacc[i][0] *= c0, oacc[i][1] *= c0;
      if constexpr (R16) oacc[i][2] *= c1, oacc[i][3] *= c1;
      mma16816<T>(oacc[i], pa, b0, b1);
    }
  }
  cp_async_wait<0>();
  l0 += __shfl_xor_sync(0xffffffffu, l0, 1);
  l0 += __shfl_xor_sync(0xffffffffu, l0, 2);
  l1 += __shfl_xor_sync(0xffffffffu, l1, 1);
  l1 += __shfl_xor_sync(0xffffffffu, l1, 2);
  __syncthreads();  // every warp is done with its pipeline: the shared memory is reused below
  float* so = reinterpret_cast<float*>(smem) + size_t(warp) * 16 * D;
#pragma unroll
  for (int i = 0; i < NT; ++i)
#pragma unroll
    for (int c = 0; c < 2; ++c) {
      const int d = (D / 8) * (2 * t4 + c) + i;
      so[r0 * D + d] = oacc[i][c];
      if (R16) so[(r0 + 8) * D + d] = oacc[i][2 + c];
    }
  if (t4 == 0) {
    sm_m[warp][r0] = m0, sm_l[warp][r0] = l0;
    sm_m[warp][r0 + 8] = m1, sm_l[warp][r0 + 8] = l1;
  }
  __syncthreads();
  const float* sall = reinterpret_cast<const float*>(smem);
  for (int idx = threadIdx.x; idx < gq * D; idx += blockDim.x) {
    const int h = idx / D, d = idx % D;
    float mm = -INFINITY;
#pragma unroll
    for (int w = 0; w < mdw; ++w) mm = fmaxf(mm, sm_m[w][h]);
    float a = 0.f, ll = 0.f;
#pragma unroll
    for (int w = 0; w < mdw; ++w) {
      const float f = sm_m[w][h] == -INFINITY ? 0.f : exp2f(sm_m[w][h] - mm);
      a += f * sall[(w * 16 + h) * D + d];
      ll += f * sm_l[w][h];
    }
    const size_t bh = size_t(b) * heads + h0 + h;
    if (splits == 1) {
      o[bh * D + d] = elem<T>::from_f(a / ll);
    } else {
      const size_t row = bh * splits + split;
      part_acc[row * D + d] = a;
      if (d == 0) part_ml[row * 2] = mm, part_ml[row * 2 + 1] = ll;
    }
  }
  if (splits == 1) return;

  // The last block of this (sequence, KV head, head group) to arrive combines the splits.
  __threadfence();
  __syncthreads();
  unsigned* counter = counters + (size_t(b) * kv_heads + kvh) * hgroups + hg;
  if (threadIdx.x == 0) sm_last = atomicAdd(counter, 1u) == unsigned(splits - 1);
  __syncthreads();
  if (!sm_last) return;
  __threadfence();
  float* wts = reinterpret_cast<float*>(smem);  // [gq][splits] m, then weights
  float* wl = wts + 16 * max_splits;              // [gq][splits] l
  for (int idx = threadIdx.x; idx < gq * splits; idx += blockDim.x) {
    const int h = idx / splits, sp = idx % splits;
    const float2 ml = __ldcg(reinterpret_cast<const float2*>(part_ml) + (size_t(b) * heads + h0 + h) * splits + sp);
    wts[idx] = ml.x;
    wl[idx] = ml.y;
  }
  __syncthreads();
  if (threadIdx.x < gq) {
    float* wr = wts + threadIdx.x * splits;
    const float* lr = wl + threadIdx.x * splits;
    float mm = -INFINITY;
    for (int sp = 0; sp < splits; ++sp) mm = fmaxf(mm, wr[sp]);
    float ll = 0.f;
    for (int sp = 0; sp < splits; ++sp) {
      const float f = wr[sp] == -INFINITY ? 0.f : exp2f(wr[sp] - mm);
      ll += f * lr[sp];
      wr[sp] = f;
    }
    const float inv = 1.f / ll;
    for (int sp = 0; sp < splits; ++sp) wr[sp] *= inv;
  }
  __syncthreads();
  // Each thread sums up to D/8 outputs (gq·D over 128 threads) over the splits, all loads in flight.
  constexpr int OPT = 16 * D / (mdw * 32);
  float acc[OPT];
#pragma unroll
  for (int k = 0; k < OPT; ++k) acc[k] = 0.f;
  const size_t bh0 = size_t(b) * heads + h0;
  // Unrolled over splits too, so that several splits' loads are in flight (a loop of dependent
  // rounds through L2 cost ~13 µs at 32 splits, measured on the H200).
#pragma unroll 4
  for (int sp = 0; sp < splits; ++sp) {
#pragma unroll
    for (int k = 0; k < OPT; ++k) {
      const int idx = threadIdx.x + k * mdw * 32, h = idx / D, d = idx % D;
      if (h < gq) acc[k] += wts[h * splits + sp] * __ldcg(part_acc + ((bh0 + h) * splits + sp) * D + d);
    }
  }
#pragma unroll
  for (int k = 0; k < OPT; ++k) {
    const int idx = threadIdx.x + k * mdw * 32, h = idx / D, d = idx % D;
    if (h < gq) o[(bh0 + h) * D + d] = elem<T>::from_f(acc[k]);
  }
  if (threadIdx.x == 0) *counter = 0u;  // ready for the next launch
}

/// One tensor-core decode kernel instantiation with its launch parameters.
struct mma_variant {
  bool coalesced = false;
  int stages = 3;
  int occupancy = 0;  ///< resident blocks per SM
  size_t smem = 0;
};

template <typename T, int D, bool R16, bool COAL>
void launch_mma_t(dim3 grid, size_t smem, const T* q, const T* k, const T* v, T* o, float* pa, float* pml,
                  unsigned* cnt, int heads, int kv_heads, int kv_len, int chunk, int splits, int hgroups,
                  float scale_log2, int stages, cudaStream_t s) {
  decode_mma_kernel<T, D, R16, COAL><<<grid, mdw * 32, smem, s>>>(q, k, v, o, pa, pml, cnt, heads, kv_heads, kv_len,
                                                                   chunk, splits, hgroups, scale_log2, stages);
  ROOFLINE_CUDA_LAUNCH_CHECK();
}

template <typename T>
void launch_mma(int d, bool r16, const mma_variant& var, dim3 grid, const T* q, const T* k, const T* v, T* o,
                float* pa, float* pml, unsigned* cnt, int heads, int kv_heads, int kv_len, int chunk, int splits,
                int hgroups, float scale_log2, cudaStream_t s) {
#define ROOFLINE_DEC_LAUNCH(DD, RR, CC)                                                                     \
  launch_mma_t<T, DD, RR, CC>(grid, var.smem, q, k, v, o, pa, pml, cnt, heads, kv_heads, kv_len, chunk, splits, \
                              hgroups, scale_log2, var.stages, s)
  if (d == 64) {
    if (r16) { if (var.coalesced) ROOFLINE_DEC_LAUNCH(64, true, true); else ROOFLINE_DEC_LAUNCH(64, true, false); }
    else { if (var.coalesced) ROOFLINE_DEC_LAUNCH(64, false, true); else ROOFLINE_DEC_LAUNCH(64, false, false); }
  } else {
    if (r16) { if (var.coalesced) ROOFLINE_DEC_LAUNCH(128, true, true); else ROOFLINE_DEC_LAUNCH(128, true, false); }
    else { if (var.coalesced) ROOFLINE_DEC_LAUNCH(128, false, true); else ROOFLINE_DEC_LAUNCH(128, false, false); }
  }
#undef ROOFLINE_DEC_LAUNCH
}

/// Raises the instantiation's dynamic shared-memory limit to `smem`; returns resident blocks per SM.
template <typename T, int D, bool R16, bool COAL>
int prepare_mma_t(size_t smem) {
  ROOFLINE_CUDA_CALL(cudaFuncSetAttribute(decode_mma_kernel<T, D, R16, COAL>,
                                          cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem)));
  int blocks = 0;
  ROOFLINE_CUDA_CALL(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, decode_mma_kernel<T, D, R16, COAL>,
                                                                   mdw * 32, smem));
  return std::max(blocks, 1);
}

template <typename T>
mma_variant prepare_mma(int d, bool r16, bool coalesced, int stages) {
  mma_variant v;
  v.coalesced = coalesced;
  v.stages = stages;
  v.smem = mma_smem_bytes(d, stages);
  if (d == 64)
    v.occupancy = r16 ? (coalesced ? prepare_mma_t<T, 64, true, true>(v.smem) : prepare_mma_t<T, 64, true, false>(v.smem))
                      : (coalesced ? prepare_mma_t<T, 64, false, true>(v.smem) : prepare_mma_t<T, 64, false, false>(v.smem));
  else
    v.occupancy = r16 ? (coalesced ? prepare_mma_t<T, 128, true, true>(v.smem) : prepare_mma_t<T, 128, true, false>(v.smem))
                      : (coalesced ? prepare_mma_t<T, 128, false, true>(v.smem) : prepare_mma_t<T, 128, false, false>(v.smem));
  return v;
}

}  // namespace

decode_split_plan plan_decode_splits(long long pairs, long long kv_len, long long resident_blocks) {
  // Time in units of one warp iteration (16 keys): waves × (iterations per block + 2 for the
  // block's start and end) + 0.05 per split for writing and combining the partials. Saturated
  // (pairs·splits ≥ resident), waves × iterations is the bytes over the bandwidth plus the tail of
  // the last wave; below that, a block's iterations run one after another at memory latency.
  const long long tiles = std::max(1LL, (kv_len + mtile - 1) / mtile);
  decode_split_plan best{1, tiles * mtile, 0};
  double best_cost = 1e300;
  for (long long s = 1; s <= std::min<long long>(tiles, max_splits); ++s) {
    const long long chunk_tiles = (tiles + s - 1) / s, splits = (tiles + chunk_tiles - 1) / chunk_tiles;
    const long long waves = (pairs * splits + resident_blocks - 1) / std::max(1LL, resident_blocks);
    const long long iters = (chunk_tiles + mdw - 1) / mdw;
    const double cost = double(waves) * double(iters + 2) + 0.05 * double(splits);
    if (cost < best_cost - 1e-9) best_cost = cost, best = {splits, chunk_tiles * mtile, cost};
  }
  return best;
}

namespace {

/// Event timing of a burst of launches on one stream (variant selection; the reported time comes
/// from time_launches).
struct event_timer_decode {
  cudaStream_t s;
  cudaEvent_t a = nullptr, b = nullptr;
  explicit event_timer_decode(cudaStream_t st) : s(st) {
    ROOFLINE_CUDA_CALL(cudaEventCreate(&a));
    ROOFLINE_CUDA_CALL(cudaEventCreate(&b));
  }
  ~event_timer_decode() {
    (void)cudaEventDestroy(a);
    (void)cudaEventDestroy(b);
  }
  template <typename F>
  double time(F&& f) {
    ROOFLINE_CUDA_CALL(cudaEventRecord(a, s));
    f();
    ROOFLINE_CUDA_CALL(cudaEventRecord(b, s));
    ROOFLINE_CUDA_CALL(cudaEventSynchronize(b));
    float ms = 0;
    ROOFLINE_CUDA_CALL(cudaEventElapsedTime(&ms, a, b));
    return ms * 1e-3;
  }
};

/// The shape of one decode-attention op, checked: what the kernels support (head_dim 64, 128, 256;
/// one query per sequence; the KV cache in the activation dtype of `elem_bytes`). probe_error otherwise.
struct decode_dims {
  int batch = 0, heads = 0, kv_heads = 0, d = 0, kv_len = 0, g = 1;  ///< g: query heads per K/V head (GQA)
};
decode_dims check_decode(const op_desc& op, int elem_bytes) {
  decode_dims x;
  const int batch = x.batch = static_cast<int>(op.batch), heads = x.heads = static_cast<int>(op.heads);
  const int kv_heads = x.kv_heads = static_cast<int>(op.kv_heads > 0 ? op.kv_heads : op.heads);
  const int d = x.d = static_cast<int>(op.head_dim);
  const int kv_len = x.kv_len = static_cast<int>(op.kv_len > 0 ? op.kv_len : op.context);
  if (batch <= 0 || heads <= 0 || kv_heads <= 0 || heads % kv_heads || kv_len <= 0)
    throw probe_error(cat(op_label(op), ": decode attention needs batch, heads, kv_heads | heads, kv_len (or context) > 0; got batch ",
                          batch, ", heads ", heads, ", kv_heads ", kv_heads, ", kv_len ", kv_len));
  if (d != 64 && d != 128 && d != 256)
    throw probe_error(cat(op_label(op), ": decode attention kernel supports head_dim 64, 128, 256 (got ", d, ")"));
  if (op.q_len > 1)
    throw probe_error(cat(op_label(op), ": decode attention takes one query per sequence (q_len ", op.q_len, ")"));
  if (op.kv_dtype_bytes != 0 && op.kv_dtype_bytes != elem_bytes)
    throw probe_error(cat(op_label(op), ": KV cache of ", op.kv_dtype_bytes, " bytes per element is not supported (only the activation dtype)"));
  x.g = heads / kv_heads;
  return x;
}

/// One variant of the tensor-core path with its own split plan (from its occupancy).
struct decode_variant_plan {
  mma_variant var;
  int splits = 1, chunk = 0;
};
/// The launch plan of either path: the tensor-core path (`use_mma`) has variants (how tiles are
/// copied, how many are in flight), each with its own split plan; `splits` sizes the partial buffers
/// (the largest of the variants'). The CUDA-core path groups G query heads per K/V read.
struct decode_launch {
  int hgroups = 1, splits = 1, chunk = 0, G = 1;
  bool r16 = false;
  std::vector<decode_variant_plan> plans;
};
template <typename T>
decode_launch plan_decode_launch(const decode_dims& x, bool use_mma, int sms) {
  const int batch = x.batch, kv_heads = x.kv_heads, d = x.d, kv_len = x.kv_len, g = x.g;
  decode_launch out;
  int& hgroups = out.hgroups;
  int& splits = out.splits;
  int& chunk = out.chunk;
  int& G = out.G;
  bool& r16 = out.r16;
  chunk = kv_len;
  if (use_mma) {
    r16 = g > 8;
    hgroups = r16 ? (g + 15) / 16 : 1;
    const int stage_opts[2] = {d == 64 ? 3 : 2, d == 64 ? 6 : 3};
    for (const bool coal : {false, true})
      for (const int st : stage_opts) {
        decode_variant_plan pl;
        pl.var = prepare_mma<T>(d, r16, coal, st);
        const decode_split_plan sp = plan_decode_splits(static_cast<long long>(batch) * kv_heads * hgroups, kv_len,
                                                        static_cast<long long>(pl.var.occupancy) * sms);
        pl.splits = static_cast<int>(sp.splits);
        pl.chunk = static_cast<int>(sp.chunk);
        out.plans.push_back(pl);
      }
    for (const auto& pl : out.plans) splits = std::max(splits, pl.splits);  // partial buffers for the largest
  } else {
    G = g >= 8 ? 8 : g >= 4 ? 4 : g >= 2 ? 2 : 1;
    hgroups = (g + G - 1) / G;
    const int kpi = dec_warps * (32 / (d / 8));  // keys per block iteration
    const int blocks0 = batch * kv_heads * hgroups;
    splits = std::max(1, std::min((4 * sms + blocks0 - 1) / blocks0, (kv_len + kpi - 1) / kpi));
    chunk = (kv_len + splits - 1) / splits;
    chunk = (chunk + kpi - 1) / kpi * kpi;
    splits = (kv_len + chunk - 1) / chunk;
  }
  return out;
}

/// What ran, in words: our decode kernel's path, its chosen variant (tensor cores) or head grouping
/// (CUDA cores), the split-KV plan, the grid, and `how` the variant was chosen.
std::string describe_decode(const decode_dims& x, bool use_mma, const decode_launch& lp, int chosen, int splits, int chunk,
                            dim3 grid, const std::string& how) {
  const int g = x.g, batch = x.batch, heads = x.heads, d = x.d, G = lp.G;
  const bool r16 = lp.r16;
  const auto& plans = lp.plans;
  return use_mma ? cat("roofline cuda decode attention, flash-decoding on tensor cores (mma.sync m16n8k16, ",
                       r16 ? "16" : "8", "-row query-head groups: g=", g, " heads share each K/V read), per-warp ",
                       plans[chosen].var.stages, "-stage 16-byte cp.async pipeline (",
                       plans[chosen].var.coalesced ? "whole-row coalesced copies" : "per-lane fragment copies",
                       "), split-KV ", splits, " x ", chunk, " keys, combine by the last block to arrive; grid ", grid.x,
                       "x", grid.y, "x", grid.z, " of ", mdw * 32, " threads, ", plans[chosen].var.smem / 1024,
                       " KiB shared, ", plans[chosen].var.occupancy, " blocks/SM resident; ", how)
                 : cat("roofline cuda decode attention, flash-decoding on CUDA cores (d/8 lanes per key, 16-byte loads, ",
                       std::min(G, g), " query heads per K/V read, GQA g=", g, "), split-KV ", splits, " x ", chunk,
                       " keys; grid ", grid.x, "x", grid.y, "x", grid.z, " of ", dec_warps * 32,
                       " threads, then a combine kernel (", batch * heads, " x ", d, ")");
}

/// cuDNN's fused SDPA (one query row per sequence), where the library is present: the other candidate
/// of a decode-attention op. Every plan verified (`verify_on`: the check's text), the fastest timed as
/// graph replays over the buffer sets (`run_on`) against our chosen variant's `t_ours`; with the run's
/// earlier choice `kept` (−1 − plan) that plan alone, untimed. `dnn` null where cuDNN is not used
/// (`note` says why; a kept cuDNN choice that cannot run is forgotten in ctx.memo).
struct dnn_candidate {
  std::unique_ptr<cudnn_sdpa> dnn;
  double t = INFINITY;  ///< s per launch of the fastest plan (0: kept, untimed)
  std::string note, checked;
};
template <typename T>
dnn_candidate try_cudnn(const decode_dims& x, const op_context& ctx, const int* kept, const std::string& key, int n_sets,
                        double t_ours, const std::function<void(cudnn_sdpa&, int)>& run_on,
                        const std::function<std::string(cudnn_sdpa&)>& verify_on) {
  const int batch = x.batch, heads = x.heads, kv_heads = x.kv_heads, kv_len = x.kv_len, d = x.d;
  dnn_candidate c;
  std::unique_ptr<cudnn_sdpa>& dnn = c.dnn;
  double& t_dnn = c.t;
  std::string& dnn_note = c.note;
  std::string& dnn_checked = c.checked;
  if (kept && *kept >= 0) dnn_note = "cuDNN not tried again (the run's earlier choice is kept)";
  else try {
    sdpa_shape sh;
    sh.batch = batch, sh.heads = heads, sh.kv_heads = kv_heads, sh.q_len = 1, sh.kv_len = kv_len, sh.head_dim = d;
    sh.bf16 = std::is_same_v<T, __nv_bfloat16>;
    sh.scale = 1.f / sqrtf(static_cast<float>(d));
    dnn = std::make_unique<cudnn_sdpa>(sh, ctx.stream);
    auto run_dnn = [&](int s) { run_on(*dnn, s); };
    auto verify = [&] { dnn_checked = verify_on(*dnn); };
    std::string tried_dnn;
    if (kept) {  // the run's earlier choice was cuDNN plan −1 − *kept: it runs again, or fails here
      if (-1 - *kept >= dnn->plans())
        throw probe_error(cat("the plan chosen earlier in this run (", -1 - *kept, ") is not among the ", dnn->plans(),
                              " plans built now"));
      dnn->select(-1 - *kept);
      verify();
      t_dnn = 0;
      dnn_note = cat("cuDNN plan ", dnn->plan_name(-1 - *kept), " chosen when this shape first ran in this run");
    } else {
      t_dnn = select_fastest_plan(*dnn, verify, [&] { return quick_time(ctx, n_sets, run_dnn); }, tried_dnn);
      dnn_note = cat("cuDNN plans: ", tried_dnn);
      if (t_dnn < t_ours) verify();  // the chosen plan checked last
    }
  } catch (const std::exception& e) {
    dnn.reset();
    dnn_note = cat("cuDNN not used: ", e.what());
    if (kept) {  // the earlier choice cannot run here: our first verified variant runs, untimed, and the
                 // next caller of this shape chooses afresh
      dnn_note += "; it was this shape's choice earlier in the run, so our kernel's first verified variant runs instead";
      if (ctx.memo) ctx.memo->chosen.erase(key), ctx.memo->times.erase(key);
    }
  }
  return c;
}

template <typename T>
op_timing run_decode_typed(const op_desc& op, const timing_options& timing, const op_context& ctx, dtype_id dt) {
  const decode_dims dims = check_decode(op, static_cast<int>(sizeof(T)));
  const int batch = dims.batch, heads = dims.heads, kv_heads = dims.kv_heads, d = dims.d, kv_len = dims.kv_len;
  const int sms = sm_count(ctx);
  int major = 0;
  ROOFLINE_CUDA_CALL(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, ctx.device));
  const bool use_mma = major >= 8 && (d == 64 || d == 128);
  decode_launch lp = plan_decode_launch<T>(dims, use_mma, sms);
  const int hgroups = lp.hgroups, G = lp.G;
  const bool r16 = lp.r16;
  int splits = lp.splits, chunk = lp.chunk;
  const std::vector<decode_variant_plan>& plans = lp.plans;

  const size_t qn = size_t(batch) * heads * d, kvn = size_t(batch) * kv_heads * kv_len * d;
  const size_t qb = align256(qn * sizeof(T)), kvb = align256(kvn * sizeof(T));
  const size_t set_bytes = 2 * qb + 2 * kvb;  // q, o, K, V
  const rotation rot = plan_rotation(set_bytes, ctx.l2_bytes);
  device_buffer pool(rot.set_bytes * rot.n_sets);
  fill_random(pool.get(), dt, pool.bytes() / sizeof(T), 0xdec0ull + static_cast<uint64_t>(kv_len) * 131 + batch, 1.0f,
              ctx.stream);
  auto q_of = [&](int s) { return pool.as<T>(size_t(s) * rot.set_bytes); };
  auto o_of = [&](int s) { return pool.as<T>(size_t(s) * rot.set_bytes + qb); };
  auto k_of = [&](int s) { return pool.as<T>(size_t(s) * rot.set_bytes + 2 * qb); };
  auto v_of = [&](int s) { return pool.as<T>(size_t(s) * rot.set_bytes + 2 * qb + kvb); };
  const size_t parts = size_t(batch) * heads * splits;
  device_buffer pacc(parts * d * sizeof(float)), pml(parts * 2 * sizeof(float));
  const size_t n_counters = size_t(batch) * kv_heads * hgroups;
  device_buffer counters(n_counters * sizeof(unsigned));
  ROOFLINE_CUDA_CALL(cudaMemsetAsync(counters.get(), 0, counters.bytes(), ctx.stream));
  const float scale_log2 = log2e / sqrtf(static_cast<float>(d));
  int chosen = 0;
  auto grid_of = [&](int pi) {
    return use_mma ? dim3(plans[pi].splits, kv_heads * hgroups, batch) : dim3(splits, kv_heads * hgroups, batch);
  };
  auto launch_plan = [&](int pi, int s) {
    if (use_mma) {
      const decode_variant_plan& pl = plans[pi];
      launch_mma<T>(d, r16, pl.var, grid_of(pi), q_of(s), k_of(s), v_of(s), o_of(s), pacc.as<float>(), pml.as<float>(),
                    counters.as<unsigned>(), heads, kv_heads, kv_len, pl.chunk, pl.splits, hgroups, scale_log2,
                    ctx.stream);
      return;
    }
    const dim3 grid = grid_of(0);
    switch (d) {
      case 64: launch_split<T, 64>(G, grid, q_of(s), k_of(s), v_of(s), pacc.as<float>(), pml.as<float>(), heads, kv_heads, kv_len, chunk, splits, ctx.stream); break;
      case 128: launch_split<T, 128>(G, grid, q_of(s), k_of(s), v_of(s), pacc.as<float>(), pml.as<float>(), heads, kv_heads, kv_len, chunk, splits, ctx.stream); break;
      default: launch_split<T, 256>(G, grid, q_of(s), k_of(s), v_of(s), pacc.as<float>(), pml.as<float>(), heads, kv_heads, kv_len, chunk, splits, ctx.stream); break;
    }
    decode_combine_kernel<T><<<batch * heads, d, 0, ctx.stream>>>(pacc.as<float>(), pml.as<float>(), o_of(s), d, splits);
    ROOFLINE_CUDA_LAUNCH_CHECK();
  };
  auto launch = [&](int s) { launch_plan(chosen, s); };
  const int cs = rot.n_sets - 1;
  device_buffer ref(qn * sizeof(float));
  launch_attention_reference<T>(q_of(cs), k_of(cs), v_of(cs), ref.as<float>(), batch, heads, kv_heads, d, 1, kv_len,
                                false, nullptr, size_t(batch) * heads, ctx.stream);
  // Every variant is checked twice on the same set (the second run shows the arrival counters were
  // reset by the first), outputs and partials poisoned before each; then the verified variants are
  // timed briefly (median of 5 graph-free bursts of 10 launches over the buffer sets) and the
  // fastest is kept.
  const int n_plans = use_mma ? static_cast<int>(plans.size()) : 1;
  // The run's earlier choice for this shape (op_context::memo): ≥ 0 our plan, −1 − i cuDNN's plan i.
  const std::string key = cat("decode-attention ", int(dt), " batch ", batch, " heads ", heads, "/", kv_heads, " d ", d,
                              " kv ", kv_len);
  const int* in_memo = ctx.memo ? ctx.memo->find(key) : nullptr;
  const int kept_value = in_memo ? *in_memo : 0;  // a copy: the entry may be erased below
  const int* kept = in_memo ? &kept_value : nullptr;
  if (kept && *kept >= n_plans) kept = nullptr;
  std::string checked, tried;
  double best_t = 0;
  int best = -1;
  event_timer_decode timer(ctx.stream);
  for (int pi = 0; pi < n_plans; ++pi) {
    std::string c1, c2;
    for (int rep = 0; rep < 2; ++rep) {
      poison(o_of(cs), qn * sizeof(T), ctx.stream);
      poison(pacc.get(), pacc.bytes(), ctx.stream);
      poison(pml.get(), pml.bytes(), ctx.stream);
      launch_plan(pi, cs);
      (rep ? c2 : c1) = require_close(compare(o_of(cs), dt, ref.as<float>(), size_t(batch) * heads, d, d, nullptr, ctx.stream),
                                      default_tol(dt), op, rep ? "all, second run" : "all");
    }
    if (kept) {  // verified, not timed: the choice was made earlier in the run
      if (pi == std::max(0, *kept)) best = pi, checked = c1 + "; " + c2;
      continue;
    }
    std::vector<double> ts;
    for (int r = 0; r < 5; ++r) ts.push_back(timer.time([&] { for (int i = 0; i < 10; ++i) launch_plan(pi, i % rot.n_sets); }) / 10);
    std::sort(ts.begin(), ts.end());
    if (use_mma)
      tried += cat(pi ? ", " : "", plans[pi].var.coalesced ? "coalesced" : "per-lane", "/", plans[pi].var.stages, "st/",
                   plans[pi].splits, "sp ", std::round(ts[2] * 1e7) / 10, " us");
    if (best < 0 || ts[2] < best_t) best = pi, best_t = ts[2], checked = c1 + "; " + c2;
  }
  chosen = best;
  const dim3 grid = grid_of(chosen);
  if (use_mma) splits = plans[chosen].splits, chunk = plans[chosen].chunk;
  const std::string impl = describe_decode(
      dims, use_mma, lp, chosen, splits, chunk, grid,
      kept && *kept >= 0 ? cat("chosen when this shape first ran in this run, of ", n_plans, " verified variants")
      : kept             ? cat("the first of ", n_plans, " verified variants, untimed (the run's earlier choice, cuDNN, is tried first)")
                         : cat("fastest of ", n_plans, " verified variants (", tried, ")"));
  // cuDNN's fused SDPA, where the library is present, is the other candidate (try_cudnn): both timed
  // the same way (graph replays over the buffer sets); the faster of the two is the op.
  const double t_ours = kept ? (*kept >= 0 ? 0 : INFINITY) : quick_time(ctx, rot.n_sets, launch);
  const dnn_candidate cand = try_cudnn<T>(
      dims, ctx, kept, key, rot.n_sets, t_ours,
      [&](cudnn_sdpa& dn, int s) { dn.run(q_of(s), k_of(s), v_of(s), o_of(s), ctx.stream); },
      [&](cudnn_sdpa& dn) {
        poison(o_of(cs), qn * sizeof(T), ctx.stream);
        dn.run(q_of(cs), k_of(cs), v_of(cs), o_of(cs), ctx.stream);
        return require_close(compare(o_of(cs), dt, ref.as<float>(), size_t(batch) * heads, d, d, nullptr, ctx.stream),
                             default_tol(dt), op, "all");
      });
  const std::unique_ptr<cudnn_sdpa>& dnn = cand.dnn;
  const double t_dnn = cand.t;
  const std::string &dnn_note = cand.note, &dnn_checked = cand.checked;
  if (ctx.memo && !kept) {
    ctx.memo->chosen[key] = dnn && t_dnn < t_ours ? -1 - dnn->selected() : chosen;
    if (dnn && std::isfinite(t_dnn)) ctx.memo->times[key] = t_dnn < t_ours ? std::pair(t_dnn, t_ours) : std::pair(t_ours, t_dnn);
  }
  // a kept choice: the times it was made with, where this run timed both
  const auto first_times = [&](kernel_choice& c) {
    if (!ctx.memo || !kept) return;
    if (const auto it = ctx.memo->times.find(key); it != ctx.memo->times.end())
      c.chosen_s = it->second.first, c.over_s = it->second.second;
  };
  if (dnn && t_dnn < t_ours) {
    op_timing t = time_launches(ctx, timing, rot.n_sets, [&](int s) { dnn->run(q_of(s), k_of(s), v_of(s), o_of(s), ctx.stream); },
                                dnn->description(), cat(dnn_checked, "; ", rot.note(), "; ", dnn_note));
    t.choice = kernel_choice{"our kernel", cat(impl, "; verified: ", checked), std::nullopt, std::nullopt, kept != nullptr};
    if (!kept) t.choice->chosen_s = t_dnn, t.choice->over_s = t_ours;
    else first_times(*t.choice);
    return t;
  }
  op_timing t = time_launches(ctx, timing, rot.n_sets, launch, impl,
                              cat("partials ", fmt_bytes(double(pacc.bytes() + pml.bytes())), "; ", checked, "; ", rot.note(),
                                  "; ", dnn_note));
  // cuDNN's fastest plan lost (its description; the plans' checks are in dnn_note), or, kept from
  // earlier in the run, our kernel was chosen over cuDNN then
  if (dnn && !kept && std::isfinite(t_dnn)) {
    t.choice = kernel_choice{"cuDNN", dnn->description(), t_ours, t_dnn, false};
  } else if (kept && *kept >= 0 && ctx.memo && ctx.memo->times.count(key)) {
    t.choice = kernel_choice{"cuDNN", "", std::nullopt, std::nullopt, true};
    first_times(*t.choice);
  }
  return t;
}

}  // namespace

op_timing run_attention_decode(const op_desc& op, const timing_options& timing, const op_context& ctx) {
  const dtype_id dt = parse_dtype(op);
  return dt == dtype_id::f16 ? run_decode_typed<__half>(op, timing, ctx, dt)
                             : run_decode_typed<__nv_bfloat16>(op, timing, ctx, dt);
}

}  // namespace roofline::cuda::detail
