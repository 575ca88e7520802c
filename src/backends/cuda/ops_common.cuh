// Shared machinery of the op runner (src/backends/cuda/ops_*.cu): element types, device buffers,
// hash-based random init, NaN poisoning, the fp32-reference comparison, L2-defeating buffer rotation
// and event timing through time_repeated(). Kernels live in the ops_<kind>.cu files.
#pragma once
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <functional>
#include <string>

#include "backends/cuda/cuda_check.hpp"
#include "backends/cuda/cuda_ops.hpp"
#include "backends/cuda/ops_host.hpp"

namespace roofline::cuda::detail {

// ---- element types: fp16 and bf16 storage, fp32 math ----
template <typename T> struct elem;
template <> struct elem<__half> {
  static __device__ __forceinline__ float to_f(__half x) { return __half2float(x); }
  static __device__ __forceinline__ __half from_f(float x) { return __float2half_rn(x); }
  static __device__ __forceinline__ float2 to_f2(__half2 x) { return __half22float2(x); }
  static __device__ __forceinline__ __half2 from_f2(float2 x) { return __float22half2_rn(x); }
  using pair = __half2;
  static constexpr const char* name = "fp16";
};
template <> struct elem<__nv_bfloat16> {
  static __device__ __forceinline__ float to_f(__nv_bfloat16 x) { return __bfloat162float(x); }
  static __device__ __forceinline__ __nv_bfloat16 from_f(float x) { return __float2bfloat16_rn(x); }
  static __device__ __forceinline__ float2 to_f2(__nv_bfloat162 x) { return __bfloat1622float2(x); }
  static __device__ __forceinline__ __nv_bfloat162 from_f2(float2 x) { return __float22bfloat162_rn(x); }
  using pair = __nv_bfloat162;
  static constexpr const char* name = "bf16";
};

/// 8 elements of T in one 16-byte register group, converted to/from 8 floats.
template <typename T>
__device__ __forceinline__ void unpack8(const uint4& v, float (&f)[8]) {
  const auto* p = reinterpret_cast<const typename elem<T>::pair*>(&v);
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    const float2 x = elem<T>::to_f2(p[i]);
    f[2 * i] = x.x;
    f[2 * i + 1] = x.y;
  }
}
template <typename T>
__device__ __forceinline__ uint4 pack8(const float (&f)[8]) {
  uint4 v;
  auto* p = reinterpret_cast<typename elem<T>::pair*>(&v);
#pragma unroll
  for (int i = 0; i < 4; ++i) p[i] = elem<T>::from_f2(make_float2(f[2 * i], f[2 * i + 1]));
  return v;
}

// ---- reductions ----
__device__ __forceinline__ float warp_sum(float v) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}
__device__ __forceinline__ float warp_max(float v) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}
/// Sum over the block (blockDim.x a multiple of 32, ≤ 1024); every thread gets the result.
/// `scratch` holds 32 floats; the call ends with the block synchronised.
__device__ __forceinline__ float block_sum(float v, float* scratch) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nw = blockDim.x >> 5;
  v = warp_sum(v);
  __syncthreads();  // scratch may still be read by a previous reduction
  if (lane == 0) scratch[warp] = v;
  __syncthreads();
  float r = lane < nw ? scratch[lane] : 0.f;
  return warp_sum(r);
}
__device__ __forceinline__ float block_max(float v, float* scratch) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nw = blockDim.x >> 5;
  v = warp_max(v);
  __syncthreads();
  if (lane == 0) scratch[warp] = v;
  __syncthreads();
  float r = lane < nw ? scratch[lane] : -INFINITY;
  return warp_max(r);
}

// ---- host helpers: see ops_host.hpp ----

}  // namespace roofline::cuda::detail

// The per-kind runners (one per file).
namespace roofline::cuda::detail {
op_timing run_elementwise(const op_desc&, const timing_options&, const op_context&);
op_timing run_norm(const op_desc&, const timing_options&, const op_context&);
op_timing run_softmax(const op_desc&, const timing_options&, const op_context&);
op_timing run_rope(const op_desc&, const timing_options&, const op_context&);
op_timing run_embedding(const op_desc&, const timing_options&, const op_context&);
op_timing run_gemm(const op_desc&, const timing_options&, const op_context&);
op_timing run_attention_decode(const op_desc&, const timing_options&, const op_context&);
op_timing run_attention_prefill(const op_desc&, const timing_options&, const op_context&);
}  // namespace roofline::cuda::detail
