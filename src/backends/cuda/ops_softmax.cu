// Row softmax over rows × cols: y = exp(s·x − max) / Σ exp(s·x − max), optional causal mask
// (used by the naive attention path: row r is query q = r mod q_len, keys j > q + kv_off get 0).
// Bytes: reads x once, writes y once: 2·rows·cols·b (b = 2); ~5 FLOPs per element (scale, subtract,
// exp, sum, divide) — counted from the formula, exp as 1.
// One pass over memory: one block per row, the row held in registers (16-byte loads, cols ≤ 16384
// and a multiple of 8), block max then block sum (fp32, warp shuffles + shared memory), exp2f.
// Other shapes: an online pass (running max and rescaled sum, Milakov & Gimelshein 2018, alg. 3)
// then a writing pass that re-reads the row (said in the note).
// Check: fp32 reference (one warp per row, fp64 sums) over every output, outputs NaN-poisoned.
#include "backends/cuda/ops_common.cuh"
#include "backends/cuda/ops_kernels.cuh"

namespace roofline::cuda::detail {
namespace {

constexpr float log2e = 1.4426950408889634f;

__device__ __forceinline__ int row_limit(size_t row, int cols, int q_len, int kv_off) {
  return q_len > 0 ? min(cols - 1, static_cast<int>(row % q_len) + kv_off) : cols - 1;
}

template <typename T, int VPT>
__global__ void __launch_bounds__(256) softmax_vec_kernel(const T* __restrict__ x, T* __restrict__ y, int cols,
                                                          float scale, int q_len, int kv_off) {
  __shared__ float scratch[32];
  const size_t row = blockIdx.x;
  const int nv = cols / 8, limit = row_limit(row, cols, q_len, kv_off);
  const float sl = scale * log2e;
  const uint4* xr = reinterpret_cast<const uint4*>(x + row * cols);
  uint4 raw[VPT];
#pragma unroll
  for (int i = 0; i < VPT; ++i) {
    const int idx = threadIdx.x + i * blockDim.x;
    raw[i] = idx < nv ? __ldg(xr + idx) : make_uint4(0, 0, 0, 0);
  }
  float m = -INFINITY;
#pragma unroll
  for (int i = 0; i < VPT; ++i) {
    const int idx = threadIdx.x + i * blockDim.x;
    float f[8];
    unpack8<T>(raw[i], f);
#pragma unroll
    for (int j = 0; j < 8; ++j)
      if (idx < nv && idx * 8 + j <= limit) m = fmaxf(m, f[j] * sl);
  }
  m = block_max(m, scratch);
  float s = 0.f;
#pragma unroll
  for (int i = 0; i < VPT; ++i) {
    const int idx = threadIdx.x + i * blockDim.x;
    float f[8];
    unpack8<T>(raw[i], f);
#pragma unroll
    for (int j = 0; j < 8; ++j)
      if (idx < nv && idx * 8 + j <= limit) s += exp2f(f[j] * sl - m);
  }
  const float inv = 1.f / block_sum(s, scratch);
  uint4* yr = reinterpret_cast<uint4*>(y + row * cols);
#pragma unroll
  for (int i = 0; i < VPT; ++i) {
    const int idx = threadIdx.x + i * blockDim.x;
    if (idx < nv) {
      float f[8];
      unpack8<T>(raw[i], f);
#pragma unroll
      for (int j = 0; j < 8; ++j) f[j] = idx * 8 + j <= limit ? exp2f(f[j] * sl - m) * inv : 0.f;
      yr[idx] = pack8<T>(f);
    }
  }
}

template <typename T>
__global__ void __launch_bounds__(256) softmax_online_kernel(const T* __restrict__ x, T* __restrict__ y, int cols,
                                                             float scale, int q_len, int kv_off) {
  __shared__ float scratch[32];
  const size_t row = blockIdx.x;
  const int limit = row_limit(row, cols, q_len, kv_off);
  const float sl = scale * log2e;
  const T* xr = x + row * cols;
  float m = -INFINITY, s = 0.f;
  for (int c = threadIdx.x; c <= limit; c += blockDim.x) {
    const float v = elem<T>::to_f(xr[c]) * sl;
    const float mn = fmaxf(m, v);
    s = s * exp2f(m - mn) + exp2f(v - mn);
    m = mn;
  }
  const float gm = block_max(m, scratch);
  s = m == -INFINITY ? 0.f : s * exp2f(m - gm);
  const float inv = 1.f / block_sum(s, scratch);
  for (int c = threadIdx.x; c < cols; c += blockDim.x)
    y[row * cols + c] = elem<T>::from_f(c <= limit ? exp2f(elem<T>::to_f(xr[c]) * sl - gm) * inv : 0.f);
}

template <typename T>
__global__ void softmax_reference(const T* x, float* ref, size_t rows, int cols, float scale, int q_len, int kv_off) {
  const size_t row = (blockIdx.x * size_t(blockDim.x) + threadIdx.x) / 32;
  const int lane = threadIdx.x & 31;
  if (row >= rows) return;
  const int limit = row_limit(row, cols, q_len, kv_off);
  const T* xr = x + row * cols;
  double m = -1e300;
  for (int c = lane; c <= limit; c += 32) m = fmax(m, double(elem<T>::to_f(xr[c])) * scale);
  for (int o = 16; o > 0; o >>= 1) m = fmax(m, __shfl_xor_sync(0xffffffffu, m, o));
  double s = 0;
  for (int c = lane; c <= limit; c += 32) s += exp(double(elem<T>::to_f(xr[c])) * scale - m);
  for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
  for (int c = lane; c < cols; c += 32)
    ref[row * cols + c] = c <= limit ? static_cast<float>(exp(double(elem<T>::to_f(xr[c])) * scale - m) / s) : 0.f;
}

}  // namespace

template <typename T>
const char* launch_row_softmax(const T* x, T* y, size_t rows, int cols, float scale, int q_len, int kv_off,
                               cudaStream_t s) {
  const int nv = cols / 8;
  int vpt = 0;
  if (cols % 8 == 0)
    for (int v : {1, 2, 4, 8})
      if (nv <= 256 * v) { vpt = v; break; }
  const int threads = vpt ? std::min(256, std::max(32, ((nv + vpt - 1) / vpt + 31) / 32 * 32)) : 256;
  switch (vpt) {
    case 1: softmax_vec_kernel<T, 1><<<rows, threads, 0, s>>>(x, y, cols, scale, q_len, kv_off); break;
    case 2: softmax_vec_kernel<T, 2><<<rows, threads, 0, s>>>(x, y, cols, scale, q_len, kv_off); break;
    case 4: softmax_vec_kernel<T, 4><<<rows, threads, 0, s>>>(x, y, cols, scale, q_len, kv_off); break;
    case 8: softmax_vec_kernel<T, 8><<<rows, threads, 0, s>>>(x, y, cols, scale, q_len, kv_off); break;
    default: softmax_online_kernel<T><<<rows, 256, 0, s>>>(x, y, cols, scale, q_len, kv_off);
  }
  ROOFLINE_CUDA_LAUNCH_CHECK();
  // a static string: no host work inside timed regions
  return vpt ? "one pass: one block (<= 256 threads) per row, row in registers"
             : "online max/sum pass then a writing pass (cols not a multiple of 8 or > 16384)";
}
template const char* launch_row_softmax<__half>(const __half*, __half*, size_t, int, float, int, int, cudaStream_t);
template const char* launch_row_softmax<__nv_bfloat16>(const __nv_bfloat16*, __nv_bfloat16*, size_t, int, float, int,
                                                       int, cudaStream_t);

template <typename T>
void launch_softmax_reference(const T* x, float* ref, size_t rows, int cols, float scale, int q_len, int kv_off,
                              cudaStream_t s) {
  softmax_reference<T><<<static_cast<unsigned>((rows * 32 + 255) / 256), 256, 0, s>>>(x, ref, rows, cols, scale,
                                                                                      q_len, kv_off);
  ROOFLINE_CUDA_LAUNCH_CHECK();
}
template void launch_softmax_reference<__half>(const __half*, float*, size_t, int, float, int, int, cudaStream_t);
template void launch_softmax_reference<__nv_bfloat16>(const __nv_bfloat16*, float*, size_t, int, float, int, int,
                                                      cudaStream_t);

namespace {
template <typename T>
op_timing run_softmax_typed(const op_desc& op, const timing_options& timing, const op_context& ctx, dtype_id dt) {
  if (op.rows <= 0 || op.cols <= 0 || op.cols > (1 << 30))
    throw probe_error(cat(op_label(op), ": rows x cols must be positive (got ", op.rows, " x ", op.cols, ")"));
  const size_t rows = op.rows;
  const int cols = static_cast<int>(op.cols);
  const size_t n = rows * cols;
  const size_t tb = align256(n * sizeof(T));
  const rotation rot = plan_rotation(2 * tb, ctx.l2_bytes);
  device_buffer pool(rot.set_bytes * rot.n_sets);
  fill_random(pool.get(), dt, pool.bytes() / sizeof(T), 0x50f7ull, 4.0f, ctx.stream);
  auto x_of = [&](int set) { return pool.as<T>(size_t(set) * rot.set_bytes); };
  auto y_of = [&](int set) { return pool.as<T>(size_t(set) * rot.set_bytes + tb); };
  const int cs = rot.n_sets - 1;
  device_buffer ref(n * sizeof(float));
  launch_softmax_reference<T>(x_of(cs), ref.as<float>(), rows, cols, 1.f, 0, 0, ctx.stream);
  poison(y_of(cs), n * sizeof(T), ctx.stream);
  const std::string impl = launch_row_softmax<T>(x_of(cs), y_of(cs), rows, cols, 1.f, 0, 0, ctx.stream);
  const std::string checked =
      require_close(compare(y_of(cs), dt, ref.as<float>(), rows, cols, cols, nullptr, ctx.stream), default_tol(dt), op, "all");
  return time_launches(
      ctx, timing, rot.n_sets,
      [&](int set) { launch_row_softmax<T>(x_of(set), y_of(set), rows, cols, 1.f, 0, 0, ctx.stream); },
      cat("roofline cuda softmax (own kernel, ", impl, ", fp32 max/sum)"), cat(checked, "; ", rot.note()));
}
}  // namespace

op_timing run_softmax(const op_desc& op, const timing_options& timing, const op_context& ctx) {
  const dtype_id dt = parse_dtype(op);
  return dt == dtype_id::f16 ? run_softmax_typed<__half>(op, timing, ctx, dt)
                             : run_softmax_typed<__nv_bfloat16>(op, timing, ctx, dt);
}

}  // namespace roofline::cuda::detail
