// A vectorisable single-precision exp (Cephes expf: S. L. Moshier, Cephes Math Library, expf.c):
// x = n·ln2 + r with |r| ≤ ½ln2, e^r by a degree-7 polynomial, 2^n by building the exponent bits.
// Relative error ≤ 2e-7 on [−87, 88] (checked against std::exp in tests/cpu/ops_test.cpp); above 88
// it gives e^88, below −87 exactly 0 (e^−∞ = 0: a masked score's probability is 0, not the ~1e−38
// of e^−87, whose products with values < 1 are subnormal floats, each an assist of ~100 cycles: the
// naive attention's P·V over masked rows ran 25× slower with them). Unlike glibc's expf it has no call and no
// branch, so GCC vectorises loops that use it; that keeps SiLU, GELU and softmax memory-bound on the
// CPU as they are on a GPU.
#pragma once
#include <cmath>
#include <cstdint>
#include <cstring>

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define ROOFLINE_SIMD_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define ROOFLINE_SIMD_CLONES
#endif

namespace roofline::cpu {

inline float fast_expf(float x_in) {
  float x = x_in < -87.0f ? -87.0f : x_in;
  x = x > 88.0f ? 88.0f : x;
  const float fx = x * 1.44269504088896341f + 0.5f;
  std::int32_t n = static_cast<std::int32_t>(fx);
  n -= static_cast<float>(n) > fx ? 1 : 0;  // floor
  const float nf = static_cast<float>(n);
  const float r = x - nf * 0.693359375f + nf * 2.12194440e-4f;
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  p = p * r * r + r + 1.0f;
  // 2^n from its exponent bits; below the range an exponent field of 0 makes the scale +0 (selecting
  // the integer keeps the loops vectorised: selecting the float result left GCC 12's silu loop 8×
  // slower, scalar)
  const std::int32_t bits = (x_in < -87.0f ? 0 : n + 127) << 23;
  float scale;
  std::memcpy(&scale, &bits, sizeof scale);
  return p * scale;
}

/// max over x[0, n) (−∞ for n = 0), vectorised. GCC 12 keeps an `omp simd reduction(max)` written
/// with std::max scalar (a chain of vmaxss: 1.07 ns per element on a Sapphire Rapids-class
/// guest) and vectorises the comparison written out (0.06 ns).
inline float max_of(const float* x, std::int64_t n) {
  float m = -INFINITY;
#pragma omp simd reduction(max : m)
  for (std::int64_t i = 0; i < n; ++i) m = m > x[i] ? m : x[i];
  return m;
}

}  // namespace roofline::cpu
