// Float compares may not trap here, so that GCC if-converts fast_expf's clamps and vectorises the
// loops that call it (no effect on results: no code here relies on floating-point exceptions).
#pragma GCC optimize("no-trapping-math")
#include "backends/cpu/op_kernels.hpp"

#include <vector>
#include <algorithm>
#include <cmath>

#include "backends/cpu/fast_exp.hpp"
#include "roofline/error.hpp"
#ifdef ROOFLINE_HAVE_OPENBLAS
#include <cblas.h>
#endif
#ifdef ROOFLINE_HAVE_OPENMP
#include <omp.h>
#endif

namespace roofline::cpu {

namespace {
constexpr std::int64_t parallel_min = serial_below_elements;  // elements; below this one thread is faster

inline float silu1(float x) { return x / (1.0f + fast_expf(-x)); }
inline float gelu1(float v) {
  // tanh(y) = 1 − 2 / (e^{2y} + 1)
  const float y = 0.7978845608028654f * (v + 0.044715f * v * v * v);  // sqrt(2/pi) (x + 0.044715 x^3)
  return 0.5f * v * (2.0f - 2.0f / (fast_expf(2.0f * y) + 1.0f));
}

ROOFLINE_SIMD_CLONES void silu_chunk(const float* __restrict x, float* __restrict y, std::int64_t n) {
#pragma omp simd
  for (std::int64_t i = 0; i < n; ++i) y[i] = silu1(x[i]);
}
ROOFLINE_SIMD_CLONES void silu_mul_chunk(const float* __restrict g, const float* __restrict u, float* __restrict y,
                                         std::int64_t n) {
#pragma omp simd
  for (std::int64_t i = 0; i < n; ++i) y[i] = silu1(g[i]) * u[i];
}
ROOFLINE_SIMD_CLONES void gelu_chunk(const float* __restrict x, float* __restrict y, std::int64_t n) {
#pragma omp simd
  for (std::int64_t i = 0; i < n; ++i) y[i] = gelu1(x[i]);
}
ROOFLINE_SIMD_CLONES void softmax_row(const float* x, float* y, std::int64_t cols) {
  const float m = max_of(x, cols);
  // One exponential per element: y holds exp(x − max) until the sum is known, then is scaled in place
  // (the row is still in L1/L2 then). y may be x itself: element c reads x[c] before it writes y[c]
  // and nothing else, so the loops vectorise either way.
  float s = 0;
#pragma omp simd reduction(+ : s)
  for (std::int64_t c = 0; c < cols; ++c) {
    const float e = fast_expf(x[c] - m);
    y[c] = e;
    s += e;
  }
  const float inv = 1.0f / s;
#pragma omp simd
  for (std::int64_t c = 0; c < cols; ++c) y[c] *= inv;
}

/// Splits [0, n) into one contiguous chunk per thread (one thread below parallel_min).
template <class F>
void chunked(std::int64_t n, F f) {
#pragma omp parallel if (n >= parallel_min)
  {
#ifdef ROOFLINE_HAVE_OPENMP
    const std::int64_t t = omp_get_thread_num(), nt = omp_get_num_threads();
#else
    const std::int64_t t = 0, nt = 1;
#endif
    const std::int64_t lo = n * t / nt / 16 * 16, hi = t + 1 == nt ? n : n * (t + 1) / nt / 16 * 16;
    if (hi > lo) f(lo, hi);
  }
}
}  // namespace

void add_kernel(const float* __restrict x, const float* __restrict y, float* __restrict z, std::int64_t n) {
#pragma omp parallel for simd schedule(static) if (n >= parallel_min)
  for (std::int64_t i = 0; i < n; ++i) z[i] = x[i] + y[i];
}

void mul_kernel(const float* __restrict x, const float* __restrict y, float* __restrict z, std::int64_t n) {
#pragma omp parallel for simd schedule(static) if (n >= parallel_min)
  for (std::int64_t i = 0; i < n; ++i) z[i] = x[i] * y[i];
}

void silu_kernel(const float* x, float* y, std::int64_t n) {
  chunked(n, [&](std::int64_t lo, std::int64_t hi) { silu_chunk(x + lo, y + lo, hi - lo); });
}

void silu_mul_kernel(const float* g, const float* u, float* y, std::int64_t n) {
  chunked(n, [&](std::int64_t lo, std::int64_t hi) { silu_mul_chunk(g + lo, u + lo, y + lo, hi - lo); });
}

void gelu_kernel(const float* x, float* y, std::int64_t n) {
  chunked(n, [&](std::int64_t lo, std::int64_t hi) { gelu_chunk(x + lo, y + lo, hi - lo); });
}

void rmsnorm_kernel(const float* __restrict x, const float* __restrict w, float* __restrict y, std::int64_t rows,
                    std::int64_t cols, float eps) {
#pragma omp parallel for schedule(static) if (rows * cols >= parallel_min)
  for (std::int64_t r = 0; r < rows; ++r) {
    const float* xr = x + r * cols;
    float* yr = y + r * cols;
    float ss = 0;
#pragma omp simd reduction(+ : ss)
    for (std::int64_t c = 0; c < cols; ++c) ss += xr[c] * xr[c];
    const float inv = 1.0f / std::sqrt(ss / static_cast<float>(cols) + eps);
#pragma omp simd
    for (std::int64_t c = 0; c < cols; ++c) yr[c] = xr[c] * inv * w[c];
  }
}

void rmsnorm_two_pass_kernel(const float* __restrict x, const float* __restrict w, float* __restrict y,
                             std::int64_t rows, std::int64_t cols, float eps) {
  std::vector<float> inv(static_cast<std::size_t>(rows));
#pragma omp parallel for schedule(static) if (rows * cols >= parallel_min)
  for (std::int64_t r = 0; r < rows; ++r) {  // pass 1: 1/rms of every row
    const float* xr = x + r * cols;
    float ss = 0;
#pragma omp simd reduction(+ : ss)
    for (std::int64_t c = 0; c < cols; ++c) ss += xr[c] * xr[c];
    inv[r] = 1.0f / std::sqrt(ss / static_cast<float>(cols) + eps);
  }
#pragma omp parallel for schedule(static) if (rows * cols >= parallel_min)
  for (std::int64_t r = 0; r < rows; ++r) {  // pass 2: x read again
    const float* xr = x + r * cols;
    float* yr = y + r * cols;
#pragma omp simd
    for (std::int64_t c = 0; c < cols; ++c) yr[c] = xr[c] * inv[r] * w[c];
  }
}

void layernorm_kernel(const float* __restrict x, const float* __restrict w, const float* __restrict b,
                      float* __restrict y, std::int64_t rows, std::int64_t cols, float eps) {
#pragma omp parallel for schedule(static) if (rows * cols >= parallel_min)
  for (std::int64_t r = 0; r < rows; ++r) {
    const float* xr = x + r * cols;
    float* yr = y + r * cols;
    float s = 0;
#pragma omp simd reduction(+ : s)
    for (std::int64_t c = 0; c < cols; ++c) s += xr[c];
    const float mean = s / static_cast<float>(cols);
    float v = 0;
#pragma omp simd reduction(+ : v)
    for (std::int64_t c = 0; c < cols; ++c) v += (xr[c] - mean) * (xr[c] - mean);
    const float inv = 1.0f / std::sqrt(v / static_cast<float>(cols) + eps);
#pragma omp simd
    for (std::int64_t c = 0; c < cols; ++c) yr[c] = (xr[c] - mean) * inv * w[c] + b[c];
  }
}

void softmax_kernel(const float* x, float* y, std::int64_t rows, std::int64_t cols) {
#pragma omp parallel for schedule(static) if (rows * cols >= parallel_min)
  for (std::int64_t r = 0; r < rows; ++r) softmax_row(x + r * cols, y + r * cols, cols);
}

void rope_tables(float* cos, float* sin, std::int64_t tokens, std::int64_t head_dim, std::int64_t pos0, double theta) {
  const std::int64_t half = head_dim / 2;
  for (std::int64_t t = 0; t < tokens; ++t)
    for (std::int64_t i = 0; i < half; ++i) {
      const double a = static_cast<double>(pos0 + t) * std::pow(theta, -2.0 * static_cast<double>(i) / head_dim);
      cos[t * half + i] = static_cast<float>(std::cos(a));
      sin[t * half + i] = static_cast<float>(std::sin(a));
    }
}

void rope_kernel(float* __restrict q, float* __restrict k, const float* __restrict cos, const float* __restrict sin,
                 std::int64_t tokens, std::int64_t heads, std::int64_t kv_heads, std::int64_t head_dim) {
  const std::int64_t half = head_dim / 2;
  const std::int64_t hh = heads + kv_heads;
#pragma omp parallel for schedule(static) if (tokens * hh * head_dim >= parallel_min)
  for (std::int64_t th = 0; th < tokens * hh; ++th) {
    const std::int64_t t = th / hh, h = th % hh;
    float* x = h < heads ? q + (t * heads + h) * head_dim : k + (t * kv_heads + (h - heads)) * head_dim;
    const float* c = cos + t * half;
    const float* s = sin + t * half;
#pragma omp simd
    for (std::int64_t i = 0; i < half; ++i) {
      const float x0 = x[i], x1 = x[i + half];
      x[i] = x0 * c[i] - x1 * s[i];
      x[i + half] = x1 * c[i] + x0 * s[i];
    }
  }
}

void embedding_kernel(const float* __restrict table, const std::int32_t* __restrict ids, float* __restrict out,
                      std::int64_t rows, std::int64_t cols) {
#pragma omp parallel for schedule(static) if (rows * cols >= parallel_min)
  for (std::int64_t r = 0; r < rows; ++r) std::copy_n(table + static_cast<std::int64_t>(ids[r]) * cols, cols, out + r * cols);
}

void gemm_kernel(const float* a, const float* b, float* c, std::int64_t m, std::int64_t n, std::int64_t k) {
#ifdef ROOFLINE_HAVE_OPENBLAS
  if (m == 1) {
    // One row (decode at batch 1): c = a·B is a matrix-vector product, c = Bᵀ·a. OpenBLAS's sgemm
    // takes no GEMV path at M = 1 before 0.3.27 and streams B at about half the DRAM roof there;
    // its sgemv reads B once at the streaming rate.
    cblas_sgemv(CblasRowMajor, CblasTrans, static_cast<int>(k), static_cast<int>(n), 1.0f, b, static_cast<int>(n), a, 1,
                0.0f, c, 1);
    return;
  }
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, static_cast<int>(m), static_cast<int>(n), static_cast<int>(k),
              1.0f, a, static_cast<int>(k), b, static_cast<int>(n), 0.0f, c, static_cast<int>(n));
#else
  (void)a, (void)b, (void)c, (void)m, (void)n, (void)k;
  throw probe_error("built without OpenBLAS");
#endif
}

}  // namespace roofline::cpu
