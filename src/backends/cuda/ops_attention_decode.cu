// Decode attention (one query token per sequence) over a KV cache, flash-decoding style
// (Dao et al. 2023, "Flash-Decoding for long-context inference"): the KV length is split over
// blocks, each block computes a partial (max, sum, unnormalised output) with an online softmax, and
// a second kernel combines the splits. GQA: one block serves all g = heads / kv_heads query heads of
// its KV head (up to 8 per block), so the cache is read once per step (g > 8: once per 8 heads).
// Layouts: q, o [batch, heads, d]; K, V cache [batch, kv_heads, kv_len, d] (fp16/bf16, = dtype).
// FLOPs 4·batch·heads·kv_len·d (q·k and p·v); bytes = K + V (2·batch·kv_heads·kv_len·d·b) + q + o
// (2·batch·heads·d·b), plus the split partials (batch·heads·splits·(d+2)·4 written and read: small,
// in the note). Kernel: d/8 lanes per key (16-byte loads of K and V), d ∈ {64, 128, 256}; fp32 math,
// exp2f with log2e folded into q. Check: fp32 reference (ops_attention_ref.cu) on all query rows.
#include "backends/cuda/ops_kernels.cuh"

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

template <typename T>
op_timing run_decode_typed(const op_desc& op, const timing_options& timing, const op_context& ctx, dtype_id dt) {
  const int batch = static_cast<int>(op.batch), heads = static_cast<int>(op.heads);
  const int kv_heads = static_cast<int>(op.kv_heads > 0 ? op.kv_heads : op.heads), d = static_cast<int>(op.head_dim);
  const int kv_len = static_cast<int>(op.kv_len > 0 ? op.kv_len : op.context);
  if (batch <= 0 || heads <= 0 || kv_heads <= 0 || heads % kv_heads || kv_len <= 0)
    throw probe_error(cat(op_label(op), ": decode attention needs batch, heads, kv_heads | heads, kv_len (or context) > 0; got batch ",
                          batch, ", heads ", heads, ", kv_heads ", kv_heads, ", kv_len ", kv_len));
  if (d != 64 && d != 128 && d != 256)
    throw probe_error(cat(op_label(op), ": decode attention kernel supports head_dim 64, 128, 256 (got ", d, ")"));
  if (op.q_len > 1)
    throw probe_error(cat(op_label(op), ": decode attention takes one query per sequence (q_len ", op.q_len, ")"));
  if (op.kv_dtype_bytes != 0 && op.kv_dtype_bytes != static_cast<int>(sizeof(T)))
    throw probe_error(cat(op_label(op), ": KV cache of ", op.kv_dtype_bytes, " bytes per element is not supported (only the activation dtype)"));
  const int g = heads / kv_heads;
  const int G = g >= 8 ? 8 : g >= 4 ? 4 : g >= 2 ? 2 : 1;
  const int hgroups = (g + G - 1) / G;
  const int kpi = dec_warps * (32 / (d / 8));  // keys per block iteration
  const int sms = sm_count(ctx);
  const int blocks0 = batch * kv_heads * hgroups;
  int splits = std::max(1, std::min((4 * sms + blocks0 - 1) / blocks0, (kv_len + kpi - 1) / kpi));
  int chunk = (kv_len + splits - 1) / splits;
  chunk = (chunk + kpi - 1) / kpi * kpi;
  splits = (kv_len + chunk - 1) / chunk;

  const size_t qn = size_t(batch) * heads * d, kvn = size_t(batch) * kv_heads * kv_len * d;
  const size_t qb = align256(qn * sizeof(T)), kvb = align256(kvn * sizeof(T));
  const size_t set_bytes = 2 * qb + 2 * kvb;  // q, o, K, V
  const rotation rot = plan_rotation(set_bytes, ctx.l2_bytes);
  device_buffer pool(rot.set_bytes * rot.n_sets);
  fill_random(pool.get(), dt, pool.bytes() / sizeof(T), 0xdec0ull, 1.0f, ctx.stream);
  auto q_of = [&](int s) { return pool.as<T>(size_t(s) * rot.set_bytes); };
  auto o_of = [&](int s) { return pool.as<T>(size_t(s) * rot.set_bytes + qb); };
  auto k_of = [&](int s) { return pool.as<T>(size_t(s) * rot.set_bytes + 2 * qb); };
  auto v_of = [&](int s) { return pool.as<T>(size_t(s) * rot.set_bytes + 2 * qb + kvb); };
  const size_t parts = size_t(batch) * heads * splits;
  device_buffer pacc(parts * d * sizeof(float)), pml(parts * 2 * sizeof(float));
  const dim3 grid(splits, kv_heads * hgroups, batch);
  auto launch = [&](int s) {
    switch (d) {
      case 64: launch_split<T, 64>(G, grid, q_of(s), k_of(s), v_of(s), pacc.as<float>(), pml.as<float>(), heads, kv_heads, kv_len, chunk, splits, ctx.stream); break;
      case 128: launch_split<T, 128>(G, grid, q_of(s), k_of(s), v_of(s), pacc.as<float>(), pml.as<float>(), heads, kv_heads, kv_len, chunk, splits, ctx.stream); break;
      default: launch_split<T, 256>(G, grid, q_of(s), k_of(s), v_of(s), pacc.as<float>(), pml.as<float>(), heads, kv_heads, kv_len, chunk, splits, ctx.stream); break;
    }
    decode_combine_kernel<T><<<batch * heads, d, 0, ctx.stream>>>(pacc.as<float>(), pml.as<float>(), o_of(s), d, splits);
    ROOFLINE_CUDA_LAUNCH_CHECK();
  };
  const int cs = rot.n_sets - 1;
  device_buffer ref(qn * sizeof(float));
  launch_attention_reference<T>(q_of(cs), k_of(cs), v_of(cs), ref.as<float>(), batch, heads, kv_heads, d, 1, kv_len,
                                false, nullptr, size_t(batch) * heads, ctx.stream);
  poison(o_of(cs), qn * sizeof(T), ctx.stream);
  poison(pacc.get(), pacc.bytes(), ctx.stream);
  poison(pml.get(), pml.bytes(), ctx.stream);
  launch(cs);
  const std::string checked = require_close(
      compare(o_of(cs), dt, ref.as<float>(), size_t(batch) * heads, d, d, nullptr, ctx.stream), default_tol(dt), op,
      "all");
  return time_launches(
      ctx, timing, rot.n_sets, launch,
      cat("own kernels: flash-decoding, ", splits, " splits of ", chunk, " keys, ", grid.x * grid.y * grid.z,
          " blocks, ", std::min(G, g), " query heads per KV read (GQA g=", g, "), then a combine kernel; partials ",
          fmt_bytes(double(pacc.bytes() + pml.bytes())), "; ", checked, "; ", rot.note()));
}

}  // namespace

op_timing run_attention_decode(const op_desc& op, const timing_options& timing, const op_context& ctx) {
  const dtype_id dt = parse_dtype(op);
  return dt == dtype_id::f16 ? run_decode_typed<__half>(op, timing, ctx, dt)
                             : run_decode_typed<__nv_bfloat16>(op, timing, ctx, dt);
}

}  // namespace roofline::cuda::detail
