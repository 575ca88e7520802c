// Tensor-core and asynchronous-copy helpers shared by the attention kernels (ops_attention_*.cu):
// mma.sync m16n8k16 (fp16/bf16 in, fp32 accumulate), ldmatrix, cp.async with zero fill, packing two
// floats into one fp16/bf16 pair. Fragment layouts: PTX ISA, "Matrix Fragments for mma.m16n8k16 with
// floating point type". All need sm_80+; an older target (the sm_75 build for T4) compiles them to a
// trap, and the host side refuses compute capability below 8.0 before launching.
#pragma once
#include <cstdint>
#include <type_traits>

#include "backends/cuda/ops_common.cuh"

namespace roofline::cuda::detail {

#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
#define ROOFLINE_FA_SM80 1
#endif

__device__ __forceinline__ uint32_t smem_u32(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}
__device__ __forceinline__ void cp_async16(uint32_t dst, const void* src, bool pred) {
#ifdef ROOFLINE_FA_SM80
  const int sz = pred ? 16 : 0;
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src), "r"(sz));
#else
  __trap();
#endif
}
__device__ __forceinline__ void cp_async_commit() {
#ifdef ROOFLINE_FA_SM80
  asm volatile("cp.async.commit_group;\n" ::);
#endif
}
template <int N>
__device__ __forceinline__ void cp_async_wait() {
#ifdef ROOFLINE_FA_SM80
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N));
#endif
}
__device__ __forceinline__ void ldsm_x4(uint32_t (&r)[4], uint32_t addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(addr));
}
__device__ __forceinline__ void ldsm_x4_t(uint32_t (&r)[4], uint32_t addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(addr));
}
template <typename T>
__device__ __forceinline__ void mma16816(float (&c)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1) {
#ifndef ROOFLINE_FA_SM80
  __trap();
#else
  if constexpr (std::is_same_v<T, __half>) {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
        : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
  } else {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
        : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
  }
#endif
}
template <typename T>
__device__ __forceinline__ uint32_t pack2(float lo, float hi) {
  const typename elem<T>::pair p = elem<T>::from_f2(make_float2(lo, hi));
  return *reinterpret_cast<const uint32_t*>(&p);
}

}  // namespace roofline::cuda::detail
