// FMA chains: see fma_kernels.hpp for what is computed, the FLOP count and the check.
#include <cuda_fp16.h>

#include "backends/cuda/fma_kernels.hpp"

namespace roofline::cuda {

namespace {

__device__ __forceinline__ double fma_step(double a, double x, double c) { return fma(a, x, c); }
__device__ __forceinline__ float fma_step(float a, float x, float c) { return fmaf(a, x, c); }
__device__ __forceinline__ __half2 fma_step(__half2 a, __half2 x, __half2 c) { return __hfma2(a, x, c); }

template <class T>
__device__ __forceinline__ T from_double(double v);
template <>
__device__ __forceinline__ double from_double<double>(double v) { return v; }
template <>
__device__ __forceinline__ float from_double<float>(double v) { return static_cast<float>(v); }
template <>
__device__ __forceinline__ __half2 from_double<__half2>(double v) { return __float2half2_rn(static_cast<float>(v)); }

template <class T>
__device__ __forceinline__ T add(T a, T b) { return a + b; }
template <>
__device__ __forceinline__ __half2 add<__half2>(__half2 a, __half2 b) { return __hadd2(a, b); }

template <class T>
__global__ void __launch_bounds__(fma_block) fma_kernel(T* out, T x, T c, std::int64_t iters) {
  T a[fma_chains];
#pragma unroll
  for (int j = 0; j < fma_chains; ++j) a[j] = from_double<T>((j + 1) * 0.25);
  for (std::int64_t i = 0; i < iters; i += fma_iter_multiple) {
#pragma unroll
    for (int u = 0; u < fma_iter_multiple; ++u) {
#pragma unroll
      for (int j = 0; j < fma_chains; ++j) a[j] = fma_step(a[j], x, c);
    }
  }
  T s = a[0];
#pragma unroll
  for (int j = 1; j < fma_chains; ++j) s = add(s, a[j]);
  out[static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x] = s;
}

void* kernel_for(fma_type t) {
  switch (t) {
    case fma_type::fp64: return reinterpret_cast<void*>(&fma_kernel<double>);
    case fma_type::fp32: return reinterpret_cast<void*>(&fma_kernel<float>);
    default: return reinterpret_cast<void*>(&fma_kernel<__half2>);
  }
}

}  // namespace

int fma_blocks_per_sm(fma_type t) {
  int blocks = 0;
  const cudaError_t e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel_for(t), fma_block, 0);
  return e == cudaSuccess ? blocks : -static_cast<int>(e);
}

void launch_fma(fma_type t, int grid, void* out, std::int64_t iters, cudaStream_t stream) {
  switch (t) {
    case fma_type::fp64:
      fma_kernel<double><<<grid, fma_block, 0, stream>>>(static_cast<double*>(out), -1.0, 0.5, iters);
      break;
    case fma_type::fp32:
      fma_kernel<float><<<grid, fma_block, 0, stream>>>(static_cast<float*>(out), -1.0f, 0.5f, iters);
      break;
    case fma_type::fp16x2:
      fma_kernel<__half2><<<grid, fma_block, 0, stream>>>(static_cast<__half2*>(out), __float2half2_rn(-1.0f),
                                                          __float2half2_rn(0.5f), iters);
      break;
  }
}

double fma_output_value(fma_type t, const void* host, std::size_t i, int lane) {
  switch (t) {
    case fma_type::fp64: return static_cast<const double*>(host)[i];
    case fma_type::fp32: return static_cast<const float*>(host)[i];
    default: {
      const __half2 h = static_cast<const __half2*>(host)[i];
      return __half2float(lane == 0 ? __low2half(h) : __high2half(h));
    }
  }
}

std::size_t fma_output_bytes(fma_type t) {
  switch (t) {
    case fma_type::fp64: return sizeof(double);
    case fma_type::fp32: return sizeof(float);
    default: return sizeof(__half2);
  }
}

}  // namespace roofline::cuda
