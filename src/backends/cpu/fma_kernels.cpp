#include "backends/cpu/fma_kernels.hpp"

#include "roofline/error.hpp"
#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace roofline::cpu {

namespace {

#if defined(__x86_64__)
// N accumulators kept in registers (AVX2: 12 ymm + m, b = 14 of 16; AVX-512: 24 zmm of 32).
#define ROOFLINE_CHAIN(VEC, SET1, FMA, STORE, LANES, ELEM, N)                 \
  const VEC m = SET1(one), b = SET1(step);                                              \
  VEC x[N];                                                                             \
  for (int j = 0; j < N; ++j) x[j] = SET1(static_cast<ELEM>(1));                        \
  for (std::int64_t i = 0; i < iterations; ++i) {                                       \
    _Pragma("GCC unroll 32") for (int j = 0; j < N; ++j) x[j] = FMA(x[j], m, b);        \
  }                                                                                     \
  double sum = 0;                                                                       \
  for (int j = 0; j < N; ++j) {                                                         \
    ELEM buf[LANES];                                                                    \
    STORE(buf, x[j]);                                                                   \
    for (int l = 0; l < LANES; ++l) sum += (static_cast<double>(buf[l]) - one) / step;                                      \
  }                                                                                     \
  return sum;

__attribute__((target("avx2,fma"), noinline)) double avx2_fp32(std::int64_t iterations, float one, float step) {
  ROOFLINE_CHAIN(__m256, _mm256_set1_ps, _mm256_fmadd_ps, _mm256_storeu_ps, 8, float, 12)
}
__attribute__((target("avx2,fma"), noinline)) double avx2_fp64(std::int64_t iterations, double one, double step) {
  ROOFLINE_CHAIN(__m256d, _mm256_set1_pd, _mm256_fmadd_pd, _mm256_storeu_pd, 4, double, 12)
}
__attribute__((target("avx512f"), noinline)) double avx512_fp32(std::int64_t iterations, float one, float step) {
  ROOFLINE_CHAIN(__m512, _mm512_set1_ps, _mm512_fmadd_ps, _mm512_storeu_ps, 16, float, 24)
}
__attribute__((target("avx512f"), noinline)) double avx512_fp64(std::int64_t iterations, double one, double step) {
  ROOFLINE_CHAIN(__m512d, _mm512_set1_pd, _mm512_fmadd_pd, _mm512_storeu_pd, 8, double, 24)
}
#endif

// Baseline: 128-bit GCC vectors, separate multiply and add (no FMA instruction assumed).
typedef float v4f __attribute__((vector_size(16)));
typedef double v2d __attribute__((vector_size(16)));

template <class V, class E, int L>
__attribute__((noinline)) double generic_chain(std::int64_t iterations, E one, E step) {
  constexpr int n = 12;
  V m, b, x[n];
  for (int l = 0; l < L; ++l) {
    m[l] = one;
    b[l] = step;
  }
  for (int j = 0; j < n; ++j)
    for (int l = 0; l < L; ++l) x[j][l] = 1;
  for (std::int64_t i = 0; i < iterations; ++i) {
#pragma GCC unroll 12
    for (int j = 0; j < n; ++j) x[j] = x[j] * m + b;
  }
  double sum = 0;
  for (int j = 0; j < n; ++j)
    for (int l = 0; l < L; ++l) sum += (static_cast<double>(x[j][l]) - one) / step;
  return sum;
}

}  // namespace

fma_kernel fma_kernel_for(const std::string& isa) {
  if (isa == "avx512f") return {"avx512f", 24, 16, 8, true};
  if (isa == "avx2+fma") return {"avx2+fma", 12, 8, 4, true};
  return {isa, 12, 4, 2, false};
}

double fma_chain_fp32(const fma_kernel& k, std::int64_t iterations, float one, float step) {
#if defined(__x86_64__)
  if (k.isa == "avx512f") return avx512_fp32(iterations, one, step);
  if (k.isa == "avx2+fma") return avx2_fp32(iterations, one, step);
#endif
  return generic_chain<v4f, float, 4>(iterations, one, step);
}

double fma_chain_fp64(const fma_kernel& k, std::int64_t iterations, double one, double step) {
#if defined(__x86_64__)
  if (k.isa == "avx512f") return avx512_fp64(iterations, one, step);
  if (k.isa == "avx2+fma") return avx2_fp64(iterations, one, step);
#endif
  return generic_chain<v2d, double, 2>(iterations, one, step);
}

}  // namespace roofline::cpu
