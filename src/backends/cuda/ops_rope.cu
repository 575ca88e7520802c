// RoPE (rotary position embedding, Su et al. 2021, RoFormer §3.4.2) on the q and k rows of `tokens`
// tokens, in the rotate-half pairing of GPT-NeoX / HF Llama: within each head of d, element i pairs
// with i + d/2 (i < d/2), rotated by θ = pos · base^(−2i/d), base 10000 (Llama/TinyLlama rope_theta):
//   y_i = x_i·cosθ − x_{i+d/2}·sinθ,   y_{i+d/2} = x_{i+d/2}·cosθ + x_i·sinθ.
// Shape: tokens = op.rows (else batch·seq); heads of q and k = op.heads + op.kv_heads with
// d = op.head_dim (else op.cols / op.head_dim heads in all). q and k are one [tokens, heads, d]
// buffer (q heads then k heads): identical bytes and work to two buffers.
// cos/sin are COMPUTED in the kernel (sincosf), not read from a table: bytes = read x + write y =
// 2·tokens·(heads+kv_heads)·d·b (b = 2), no table bytes; FLOPs 3 per element (4 mul + 2 add per pair),
// sincos not counted. Out of place (y ≠ x) so the output can be NaN-poisoned: same bytes as in place.
// Positions: decode → every row at position op.context; otherwise token t at t mod op.seq.
// Kernel: each thread rotates 8 pairs with two 16-byte loads and two 16-byte stores (d % 16 == 0),
// grid-stride, where that still gives at least 32 warps per SM; otherwise (other d, and the short ops
// of decode) one pair per thread: with few threads the 8 dependent sincos of a thread are latency no
// warp hides (H200: the 8-pair kernel ran decode rope at 1.6× its bytes-plus-floor
// prediction at every batch from 1 to 32). Check: fp32 reference (fp64 angles) over all outputs.
#include <cmath>

#include "backends/cuda/ops_common.cuh"

namespace roofline::cuda::detail {
namespace {

constexpr float rope_log2_base = 13.287712379549449f;  // log2(10000)

__device__ __forceinline__ int rope_pos(size_t token, int seq, int fixed_pos) {
  return fixed_pos >= 0 ? fixed_pos : static_cast<int>(seq > 0 ? token % seq : token);
}

template <typename T>
__global__ void __launch_bounds__(256) rope_vec_kernel(const T* __restrict__ x, T* __restrict__ y, size_t tokens,
                                                       int heads, int d, int seq, int fixed_pos) {
  const int cpr = d / 16;  // 8-pair chunks per head
  const size_t n = tokens * heads * cpr;
  for (size_t w = blockIdx.x * size_t(blockDim.x) + threadIdx.x; w < n; w += size_t(gridDim.x) * blockDim.x) {
    const int c = static_cast<int>(w % cpr);
    const size_t th = w / cpr;  // token * heads + head
    const size_t token = th / heads;
    const float pos = static_cast<float>(rope_pos(token, seq, fixed_pos));
    const size_t base = th * d + c * 8;
    const uint4* xv = reinterpret_cast<const uint4*>(x);
    float a[8], b[8];
    unpack8<T>(__ldg(xv + base / 8), a);
    unpack8<T>(__ldg(xv + (base + d / 2) / 8), b);
#pragma unroll
    for (int j = 0; j < 8; ++j) {
      const int i = c * 8 + j;
      const float theta = pos * exp2f(-(2.f * i / d) * rope_log2_base);
      float sn, cs;
      sincosf(theta, &sn, &cs);
      const float x1 = a[j], x2 = b[j];
      a[j] = x1 * cs - x2 * sn;
      b[j] = x2 * cs + x1 * sn;
    }
    uint4* yv = reinterpret_cast<uint4*>(y);
    yv[base / 8] = pack8<T>(a);
    yv[(base + d / 2) / 8] = pack8<T>(b);
  }
}

template <typename T>
__global__ void rope_scalar_kernel(const T* __restrict__ x, T* __restrict__ y, size_t tokens, int heads, int d,
                                   int seq, int fixed_pos) {
  const int half = d / 2;
  const size_t n = tokens * heads * half;
  for (size_t w = blockIdx.x * size_t(blockDim.x) + threadIdx.x; w < n; w += size_t(gridDim.x) * blockDim.x) {
    const int i = static_cast<int>(w % half);
    const size_t th = w / half;
    const float pos = static_cast<float>(rope_pos(th / heads, seq, fixed_pos));
    const float theta = pos * exp2f(-(2.f * i / d) * rope_log2_base);
    float sn, cs;
    sincosf(theta, &sn, &cs);
    const float x1 = elem<T>::to_f(x[th * d + i]), x2 = elem<T>::to_f(x[th * d + i + half]);
    y[th * d + i] = elem<T>::from_f(x1 * cs - x2 * sn);
    y[th * d + i + half] = elem<T>::from_f(x2 * cs + x1 * sn);
  }
}

template <typename T>
__global__ void rope_reference(const T* x, float* ref, size_t tokens, int heads, int d, int seq, int fixed_pos) {
  const int half = d / 2;
  const size_t n = tokens * heads * half;
  for (size_t w = blockIdx.x * size_t(blockDim.x) + threadIdx.x; w < n; w += size_t(gridDim.x) * blockDim.x) {
    const int i = static_cast<int>(w % half);
    const size_t th = w / half;
    const double pos = rope_pos(th / heads, seq, fixed_pos);
    const double theta = pos * pow(10000.0, -2.0 * i / d);
    const double x1 = elem<T>::to_f(x[th * d + i]), x2 = elem<T>::to_f(x[th * d + i + half]);
    ref[th * d + i] = static_cast<float>(x1 * cos(theta) - x2 * sin(theta));
    ref[th * d + i + half] = static_cast<float>(x2 * cos(theta) + x1 * sin(theta));
  }
}

template <typename T>
op_timing run_rope_typed(const op_desc& op, const timing_options& timing, const op_context& ctx, dtype_id dt) {
  const int64_t tokens = op.rows > 0 ? op.rows : op.batch * op.seq;
  int64_t heads = 0, d = op.head_dim;
  std::string shape_src;
  if (op.heads > 0 && d > 0) {
    heads = op.heads + (op.kv_heads > 0 ? op.kv_heads : op.heads);
    shape_src = cat("heads ", op.heads, " + kv_heads ", op.kv_heads > 0 ? op.kv_heads : op.heads, " of ", d);
  } else if (op.cols > 0 && d > 0 && op.cols % d == 0) {
    heads = op.cols / d;
    shape_src = cat("cols ", op.cols, " = ", heads, " heads of ", d);
  }
  if (tokens <= 0 || heads <= 0 || d <= 0 || d % 2)
    throw probe_error(cat(op_label(op), ": rope needs tokens (rows or batch*seq) > 0 and heads/kv_heads/head_dim ",
                          "(or cols a multiple of an even head_dim); got rows ", op.rows, ", heads ", op.heads,
                          ", kv_heads ", op.kv_heads, ", head_dim ", op.head_dim, ", cols ", op.cols));
  const int seq = static_cast<int>(op.seq);
  const int fixed_pos = op.ph == phase::decode ? static_cast<int>(std::max<int64_t>(op.context, 0)) : -1;
  const size_t n = size_t(tokens) * heads * d;
  const size_t tb = align256(n * sizeof(T));
  const rotation rot = plan_rotation(2 * tb, ctx.l2_bytes);
  device_buffer pool(rot.set_bytes * rot.n_sets);
  fill_random(pool.get(), dt, pool.bytes() / sizeof(T), 0x2093ull, 2.0f, ctx.stream);
  auto x_of = [&](int s) { return pool.as<T>(size_t(s) * rot.set_bytes); };
  auto y_of = [&](int s) { return pool.as<T>(size_t(s) * rot.set_bytes + tb); };
  const bool vec = d % 16 == 0 && n / 16 >= size_t(sm_count(ctx)) * 1024;  // >= 32 warps per SM
  const unsigned grid = grid_for(vec ? n / 16 : n / 2, 256, ctx);
  auto launch = [&](int s) {
    if (vec)
      rope_vec_kernel<T><<<grid, 256, 0, ctx.stream>>>(x_of(s), y_of(s), tokens, int(heads), int(d), seq, fixed_pos);
    else
      rope_scalar_kernel<T><<<grid, 256, 0, ctx.stream>>>(x_of(s), y_of(s), tokens, int(heads), int(d), seq, fixed_pos);
    ROOFLINE_CUDA_LAUNCH_CHECK();
  };
  const int cs = rot.n_sets - 1;
  device_buffer ref(n * sizeof(float));
  rope_reference<T><<<grid_for(n / 2, 256, ctx), 256, 0, ctx.stream>>>(x_of(cs), ref.as<float>(), tokens, int(heads),
                                                                       int(d), seq, fixed_pos);
  ROOFLINE_CUDA_LAUNCH_CHECK();
  poison(y_of(cs), n * sizeof(T), ctx.stream);
  launch(cs);
  const std::string checked = require_close(
      compare(y_of(cs), dt, ref.as<float>(), size_t(tokens) * heads, d, d, nullptr, ctx.stream), default_tol(dt), op,
      "all");
  return time_launches(ctx, timing, rot.n_sets, launch,
                       cat("roofline cuda rope (own kernel: ", vec ? "8 pairs per thread, 16-byte loads/stores"
                               : d % 16 ? "one pair per thread (head_dim % 16 != 0)"
                                        : "one pair per thread (8 per thread would give < 32 warps per SM)",
                           ", cos/sin computed in-kernel (no table bytes), out of place)"),
                       cat(tokens, " tokens x (", shape_src, "); ", checked, "; ", rot.note()));
}

}  // namespace

op_timing run_rope(const op_desc& op, const timing_options& timing, const op_context& ctx) {
  const dtype_id dt = parse_dtype(op);
  return dt == dtype_id::f16 ? run_rope_typed<__half>(op, timing, ctx, dt)
                             : run_rope_typed<__nv_bfloat16>(op, timing, ctx, dt);
}

}  // namespace roofline::cuda::detail
