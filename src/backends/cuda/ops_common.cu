// Shared machinery of the op runner: random init (a hash of seed and index: splitmix64), NaN
// poisoning, the fp32-reference comparison, buffer rotation and event timing. See ops_common.cuh.
#include "backends/cuda/ops_common.cuh"  // first: configures fmt for nvcc
#include <cmath>
#include <cstring>

#include "roofline/measure.hpp"

namespace roofline::cuda::detail {

namespace {

__device__ __forceinline__ uint64_t splitmix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}
/// Uniform in [-1, 1) from 24 hash bits.
__device__ __forceinline__ float hash_unit(uint64_t seed, uint64_t i) {
  const uint64_t h = splitmix64(seed * 0x100000001b3ull ^ splitmix64(i));
  return static_cast<float>(h >> 40) * (2.0f / 16777216.0f) - 1.0f;
}

template <typename T>
__global__ void fill_kernel(T* p, size_t n, uint64_t seed, float scale) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    p[i] = elem<T>::from_f(scale * hash_unit(seed, i));
}
__global__ void fill_f32_kernel(float* p, size_t n, uint64_t seed, float scale) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    p[i] = scale * hash_unit(seed, i);
}
__global__ void fill_ids_kernel(int32_t* p, size_t n, uint64_t seed, int32_t hi) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    p[i] = static_cast<int32_t>(splitmix64(seed ^ splitmix64(i)) % static_cast<uint64_t>(hi));
}

template <typename T>
__global__ void to_f32_kernel(const T* in, float* out, size_t n) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    out[i] = elem<T>::to_f(in[i]);
}

unsigned fill_grid(size_t n) { return static_cast<unsigned>(std::min<size_t>((n + 255) / 256, 4096)); }

struct check_acc {
  double sq_diff, sq_ref;
  unsigned long long nonfinite, first_nonfinite, worst;  // worst: (|diff| bits << 32) | index
};

template <typename T>
__global__ void compare_kernel(const T* out, const float* ref, size_t rows, size_t cols, size_t stride,
                               const int32_t* row_map, check_acc* acc) {
  double sd = 0, sr = 0;
  unsigned long long nf = 0, first = ~0ull, worst = 0;
  const size_t n = rows * cols;
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
    const size_t r = i / cols, c = i % cols;
    const size_t orow = row_map ? static_cast<size_t>(row_map[r]) : r;
    const float o = elem<T>::to_f(out[orow * stride + c]);
    const float f = ref[i];
    if (!isfinite(o)) {
      ++nf;
      first = min(first, static_cast<unsigned long long>(i));
      continue;
    }
    const double d = static_cast<double>(o) - f;
    sd += d * d;
    sr += static_cast<double>(f) * f;
    const float ad = fabsf(o - f);
    const unsigned long long key = (static_cast<unsigned long long>(__float_as_uint(ad)) << 32) | (i & 0xffffffffull);
    worst = max(worst, key);
  }
  // warp-reduce then one atomic per warp
  for (int o = 16; o > 0; o >>= 1) {
    sd += __shfl_xor_sync(0xffffffffu, sd, o);
    sr += __shfl_xor_sync(0xffffffffu, sr, o);
    nf += __shfl_xor_sync(0xffffffffu, nf, o);
    first = min(first, __shfl_xor_sync(0xffffffffu, first, o));
    worst = max(worst, __shfl_xor_sync(0xffffffffu, worst, o));
  }
  if ((threadIdx.x & 31) == 0) {
    atomicAdd(&acc->sq_diff, sd);
    atomicAdd(&acc->sq_ref, sr);
    atomicAdd(&acc->nonfinite, nf);
    atomicMin(&acc->first_nonfinite, first);
    atomicMax(&acc->worst, worst);
  }
}

}  // namespace

void fill_random(void* p, dtype_id t, size_t n, uint64_t seed, float scale, cudaStream_t s) {
  if (n == 0) return;
  if (t == dtype_id::f16)
    fill_kernel<<<fill_grid(n), 256, 0, s>>>(static_cast<__half*>(p), n, seed, scale);
  else
    fill_kernel<<<fill_grid(n), 256, 0, s>>>(static_cast<__nv_bfloat16*>(p), n, seed, scale);
  ROOFLINE_CUDA_LAUNCH_CHECK();
}
void fill_random_f32(float* p, size_t n, uint64_t seed, float scale, cudaStream_t s) {
  if (n == 0) return;
  fill_f32_kernel<<<fill_grid(n), 256, 0, s>>>(p, n, seed, scale);
  ROOFLINE_CUDA_LAUNCH_CHECK();
}
void fill_random_ids(int32_t* p, size_t n, uint64_t seed, int32_t hi, cudaStream_t s) {
  if (n == 0) return;
  fill_ids_kernel<<<fill_grid(n), 256, 0, s>>>(p, n, seed, hi);
  ROOFLINE_CUDA_LAUNCH_CHECK();
}
void to_f32(const void* in, dtype_id t, float* out, size_t n, cudaStream_t s) {
  if (n == 0) return;
  if (t == dtype_id::f16)
    to_f32_kernel<<<fill_grid(n), 256, 0, s>>>(static_cast<const __half*>(in), out, n);
  else
    to_f32_kernel<<<fill_grid(n), 256, 0, s>>>(static_cast<const __nv_bfloat16*>(in), out, n);
  ROOFLINE_CUDA_LAUNCH_CHECK();
}
void poison(void* p, size_t bytes, cudaStream_t s) { ROOFLINE_CUDA_CALL(cudaMemsetAsync(p, 0xff, bytes, s)); }

check_result compare(const void* out, dtype_id t, const float* ref, size_t rows, size_t cols, size_t out_row_stride,
                     const int32_t* row_map, cudaStream_t s) {
  device_buffer acc_buf(sizeof(check_acc));
  check_acc init{0, 0, 0, ~0ull, 0};
  ROOFLINE_CUDA_CALL(cudaMemcpyAsync(acc_buf.get(), &init, sizeof init, cudaMemcpyHostToDevice, s));
  const size_t n = rows * cols;
  const unsigned grid = fill_grid(n);
  if (t == dtype_id::f16)
    compare_kernel<<<grid, 256, 0, s>>>(static_cast<const __half*>(out), ref, rows, cols, out_row_stride, row_map,
                                         acc_buf.as<check_acc>());
  else
    compare_kernel<<<grid, 256, 0, s>>>(static_cast<const __nv_bfloat16*>(out), ref, rows, cols, out_row_stride,
                                         row_map, acc_buf.as<check_acc>());
  ROOFLINE_CUDA_LAUNCH_CHECK();
  check_acc a{};
  ROOFLINE_CUDA_CALL(cudaMemcpyAsync(&a, acc_buf.get(), sizeof a, cudaMemcpyDeviceToHost, s));
  ROOFLINE_CUDA_CALL(cudaStreamSynchronize(s));
  check_result c;
  c.n = n;
  c.cols = cols;
  c.nonfinite = a.nonfinite;
  c.first_nonfinite = a.first_nonfinite;
  c.ref_norm = std::sqrt(a.sq_ref);
  c.rel_err = a.sq_ref > 0 ? std::sqrt(a.sq_diff / a.sq_ref) : (a.sq_diff > 0 ? INFINITY : 0.0);
  const uint32_t bits = static_cast<uint32_t>(a.worst >> 32);
  float ad;
  std::memcpy(&ad, &bits, sizeof ad);
  c.max_abs = ad;
  c.worst_index = a.worst & 0xffffffffull;
  return c;
}

}  // namespace roofline::cuda::detail
