// GEMM probe helpers: normal(0,1) inputs (int8: uniform integers) and a double-precision reference for sampled entries.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include "backends/cuda/gemm_kernels.hpp"

namespace roofline::cuda {

namespace {

__device__ __forceinline__ std::uint64_t splitmix64(std::uint64_t z) {
  z += 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

template <class T>
__device__ __forceinline__ T from_unit(float u, std::uint64_t h);  // u: a normal(0,1) draw (int8: h alone)
template <>
__device__ __forceinline__ float from_unit<float>(float u, std::uint64_t) { return u; }
template <>
__device__ __forceinline__ __half from_unit<__half>(float u, std::uint64_t) { return __float2half_rn(u); }
template <>
__device__ __forceinline__ __nv_bfloat16 from_unit<__nv_bfloat16>(float u, std::uint64_t) { return __float2bfloat16_rn(u); }
template <>
__device__ __forceinline__ __nv_fp8_e4m3 from_unit<__nv_fp8_e4m3>(float u, std::uint64_t) { return __nv_fp8_e4m3(u); }
template <>
__device__ __forceinline__ std::int8_t from_unit<std::int8_t>(float, std::uint64_t h) {
  return static_cast<std::int8_t>(static_cast<int>(h >> 59) - 16);  // [−16, 15]
}

// normal(0,1) by the Box–Muller transform (Box and Muller, "A note on the generation of random normal
// deviates", Ann. Math. Statist. 29(2), 1958) of two 24-bit uniforms of one hash: u1 in (0, 1], u2 in
// [0, 1); |z| <= sqrt(2 · 24 · ln 2) = 5.77, inside every floating type's range (fp8 e4m3: 448).
template <class T>
__global__ void fill_kernel(T* p, std::size_t n, std::uint64_t seed) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    const std::uint64_t h = splitmix64(seed * 0x100000001b3ull + i);
    const float u1 = static_cast<float>((h >> 40) + 1) * (1.0f / 16777216.0f);
    const float u2 = static_cast<float>((h >> 16) & 0xFFFFFFull) * (1.0f / 16777216.0f);
    const float z = sqrtf(-2.0f * logf(u1)) * cospif(2.0f * u2);
    p[i] = from_unit<T>(z, h);
  }
}

__device__ __forceinline__ double to_double(const void* p, gemm_elem e, std::size_t i) {
  switch (e) {
    case gemm_elem::fp32: return static_cast<const float*>(p)[i];
    case gemm_elem::fp16: return __half2float(static_cast<const __half*>(p)[i]);
    case gemm_elem::bf16: return __bfloat162float(static_cast<const __nv_bfloat16*>(p)[i]);
    case gemm_elem::fp8_e4m3: return static_cast<float>(static_cast<const __nv_fp8_e4m3*>(p)[i]);
    case gemm_elem::int8: return static_cast<const std::int8_t*>(p)[i];
    default: return static_cast<const std::int32_t*>(p)[i];
  }
}

// One block per sampled entry; a block reduction in double.
__global__ void reference_kernel(const void* a, const void* b, const void* d, gemm_elem in, gemm_elem out,
                                 std::int64_t m, std::int64_t k, const std::int32_t* rows, const std::int32_t* cols,
                                 double* ref, double* scale, double* got, bool a_transposed) {
  const std::int64_t i = rows[blockIdx.x], j = cols[blockIdx.x];
  double s = 0, s2 = 0;
  for (std::int64_t kk = threadIdx.x; kk < k; kk += blockDim.x) {
    const double p = to_double(a, in, a_transposed ? kk + i * k : i + kk * m) * to_double(b, in, kk + j * k);
    s += p;
    s2 += p * p;
  }
  __shared__ double sh[2][256];
  sh[0][threadIdx.x] = s;
  sh[1][threadIdx.x] = s2;
  __syncthreads();
  for (int off = blockDim.x / 2; off > 0; off >>= 1) {
    if (threadIdx.x < off) {
      sh[0][threadIdx.x] += sh[0][threadIdx.x + off];
      sh[1][threadIdx.x] += sh[1][threadIdx.x + off];
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    ref[blockIdx.x] = sh[0][0];
    scale[blockIdx.x] = sqrt(sh[1][0]);
    got[blockIdx.x] = to_double(d, out, i + j * m);
  }
}

int fill_grid(std::size_t n) {
  const std::size_t blocks = (n + 255) / 256;
  return static_cast<int>(blocks < 32768 ? (blocks ? blocks : 1) : 32768);
}

}  // namespace

std::size_t gemm_elem_bytes(gemm_elem e) {
  switch (e) {
    case gemm_elem::fp32:
    case gemm_elem::int32: return 4;
    case gemm_elem::fp16:
    case gemm_elem::bf16: return 2;
    default: return 1;
  }
}

void fill_random(void* p, gemm_elem e, std::size_t n, std::uint64_t seed, cudaStream_t s) {
  const int g = fill_grid(n);
  switch (e) {
    case gemm_elem::fp32: fill_kernel<<<g, 256, 0, s>>>(static_cast<float*>(p), n, seed); break;
    case gemm_elem::fp16: fill_kernel<<<g, 256, 0, s>>>(static_cast<__half*>(p), n, seed); break;
    case gemm_elem::bf16: fill_kernel<<<g, 256, 0, s>>>(static_cast<__nv_bfloat16*>(p), n, seed); break;
    case gemm_elem::fp8_e4m3: fill_kernel<<<g, 256, 0, s>>>(static_cast<__nv_fp8_e4m3*>(p), n, seed); break;
    case gemm_elem::int8: fill_kernel<<<g, 256, 0, s>>>(static_cast<std::int8_t*>(p), n, seed); break;
    case gemm_elem::int32: break;  // outputs only
  }
}

void reference_entries(const void* a, const void* b, const void* d, gemm_elem in, gemm_elem out, std::int64_t m,
                       std::int64_t k, const std::int32_t* rows, const std::int32_t* cols, double* ref,
                       double* scale, double* got, int samples, cudaStream_t stream, bool a_transposed) {
  reference_kernel<<<samples, 256, 0, stream>>>(a, b, d, in, out, m, k, rows, cols, ref, scale, got, a_transposed);
}

}  // namespace roofline::cuda
