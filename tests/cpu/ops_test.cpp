// Op kernels against straightforward references on small random inputs, and run_op end to end.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <vector>

#include "backends/cpu/cpu_buffers.hpp"
#include "backends/cpu/fast_exp.hpp"
#include "backends/cpu/op_kernels.hpp"
#include "backends/cpu/op_runner.hpp"
#include "roofline/backend.hpp"
#include "roofline/error.hpp"

using namespace roofline;
using namespace roofline::cpu;

namespace {
std::vector<float> rnd(std::size_t n, std::uint64_t seed) {
  std::vector<float> v(n);
  fill_uniform(v.data(), n, seed);
  return v;
}
}  // namespace

TEST(CpuOps, ElementwiseMatchReference) {
  const std::int64_t n = 40000;  // above the parallel threshold
  const auto x = rnd(n, 1), y = rnd(n, 2);
  std::vector<float> z(n);
  add_kernel(x.data(), y.data(), z.data(), n);
  for (std::int64_t i = 0; i < n; i += 97) EXPECT_FLOAT_EQ(z[i], x[i] + y[i]);
  mul_kernel(x.data(), y.data(), z.data(), n);
  for (std::int64_t i = 0; i < n; i += 97) EXPECT_FLOAT_EQ(z[i], x[i] * y[i]);
  silu_kernel(x.data(), z.data(), n);
  for (std::int64_t i = 0; i < n; i += 97) EXPECT_NEAR(z[i], x[i] / (1 + std::exp(-double(x[i]))), 1e-6);
  silu_mul_kernel(x.data(), y.data(), z.data(), n);
  for (std::int64_t i = 0; i < n; i += 97) EXPECT_NEAR(z[i], x[i] / (1 + std::exp(-double(x[i]))) * y[i], 1e-6);
  gelu_kernel(x.data(), z.data(), n);
  // GELU(1) = 0.8411919906 (tanh form); here against the formula at every sample
  for (std::int64_t i = 0; i < n; i += 97) {
    const double a = x[i];
    EXPECT_NEAR(z[i], 0.5 * a * (1 + std::tanh(std::sqrt(2 / M_PI) * (a + 0.044715 * a * a * a))), 1e-6);
  }
  const float one = 1.0f;
  float g = 0;
  gelu_kernel(&one, &g, 1);
  EXPECT_NEAR(g, 0.8411919906, 1e-6);
}

TEST(CpuOps, NormsAndSoftmaxMatchReference) {
  const std::int64_t rows = 5, cols = 300;
  const auto x = rnd(rows * cols, 3), w = rnd(cols, 4), b = rnd(cols, 5);
  std::vector<float> y(rows * cols);
  for (int which = 0; which < 3; ++which) {
    if (which == 0) rmsnorm_kernel(x.data(), w.data(), y.data(), rows, cols, 1e-5f);
    if (which == 1) layernorm_kernel(x.data(), w.data(), b.data(), y.data(), rows, cols, 1e-5f);
    if (which == 2) softmax_kernel(x.data(), y.data(), rows, cols);
    for (std::int64_t r = 0; r < rows; ++r) {
      const float* xr = x.data() + r * cols;
      double s = 0, ss = 0, m = -1e30, se = 0, var = 0;
      for (int c = 0; c < cols; ++c) s += xr[c], ss += double(xr[c]) * xr[c], m = std::max<double>(m, xr[c]);
      for (int c = 0; c < cols; ++c) var += (xr[c] - s / cols) * (xr[c] - s / cols), se += std::exp(xr[c] - m);
      double total = 0;
      for (int c = 0; c < cols; ++c) {
        double ref = which == 0   ? xr[c] / std::sqrt(ss / cols + 1e-5) * w[c]
                     : which == 1 ? (xr[c] - s / cols) / std::sqrt(var / cols + 1e-5) * w[c] + b[c]
                                  : std::exp(xr[c] - m) / se;
        EXPECT_NEAR(y[r * cols + c], ref, 1e-5) << which << " row " << r << " col " << c;
        total += y[r * cols + c];
      }
      if (which == 2) EXPECT_NEAR(total, 1.0, 1e-5);
    }
  }
}

TEST(CpuOps, SoftmaxInPlaceEqualsOutOfPlace) {
  const std::int64_t rows = 4, cols = 2048;
  const auto x = rnd(rows * cols, 11);
  std::vector<float> y(rows * cols), z = x;
  softmax_kernel(x.data(), y.data(), rows, cols);
  softmax_kernel(z.data(), z.data(), rows, cols);  // the naive attention kernel's in-place call
  for (std::size_t i = 0; i < y.size(); ++i) ASSERT_EQ(y[i], z[i]) << i;
}

TEST(CpuOps, SoftmaxTileMasksAndLeavesTheScaleForLater) {
  // 3 rows × 5 keys, row i sees its first 2 + i keys: exp(s − max) there, 0 beyond, inv = 1 / sum
  const std::int64_t rows = 3, cols = 5;
  const auto s0 = rnd(rows * cols, 12);
  std::vector<float> s = s0, inv(rows);
  softmax_tile(s.data(), rows, cols, 2, inv.data());
  for (std::int64_t i = 0; i < rows; ++i) {
    const std::int64_t vis = 2 + i;
    double m = -1e30, sum = 0;
    for (std::int64_t j = 0; j < vis; ++j) m = std::max<double>(m, s0[i * cols + j]);
    for (std::int64_t j = 0; j < vis; ++j) sum += std::exp(s0[i * cols + j] - m);
    for (std::int64_t j = 0; j < cols; ++j)
      EXPECT_NEAR(s[i * cols + j], j < vis ? std::exp(s0[i * cols + j] - m) : 0.0, 1e-6) << i << " " << j;
    EXPECT_NEAR(inv[i], 1.0 / sum, 1e-6);
  }
  // first_visible ≥ cols: no mask
  s = s0;
  softmax_tile(s.data(), rows, cols, cols, inv.data());
  for (std::int64_t j = 0; j < cols; ++j) EXPECT_GT(s[2 * cols + j], 0.0f);
}

TEST(CpuOps, RopeRotatesPairs) {
  const std::int64_t tokens = 3, heads = 4, kvh = 2, d = 8, half = d / 2;
  auto q = rnd(tokens * heads * d, 6), k = rnd(tokens * kvh * d, 7);
  const auto q0 = q, k0 = k;
  std::vector<float> c(tokens * half), s(tokens * half);
  rope_tables(c.data(), s.data(), tokens, d, 5);
  // position 5, i = 0: angle 5 rad
  EXPECT_NEAR(c[0], std::cos(5.0), 1e-6);
  EXPECT_NEAR(s[0], std::sin(5.0), 1e-6);
  rope_kernel(q.data(), k.data(), c.data(), s.data(), tokens, heads, kvh, d);
  for (std::int64_t t = 0; t < tokens; ++t)
    for (std::int64_t i = 0; i < half; ++i) {
      const double a = (5.0 + t) * std::pow(10000.0, -2.0 * i / d);
      const float* x = q0.data() + (t * heads + 1) * d;
      EXPECT_NEAR(q[(t * heads + 1) * d + i], x[i] * std::cos(a) - x[i + half] * std::sin(a), 1e-5);
      const float* y = k0.data() + (t * kvh + 1) * d;
      EXPECT_NEAR(k[(t * kvh + 1) * d + i + half], y[i + half] * std::cos(a) + y[i] * std::sin(a), 1e-5);
    }
}

TEST(CpuOps, EmbeddingGathersRows) {
  const std::int64_t vocab = 50, cols = 16;
  const auto table = rnd(vocab * cols, 8);
  const std::vector<std::int32_t> ids{7, 0, 49, 7};
  std::vector<float> out(ids.size() * cols);
  embedding_kernel(table.data(), ids.data(), out.data(), 4, cols);
  for (std::size_t r = 0; r < ids.size(); ++r)
    for (std::int64_t c = 0; c < cols; ++c) EXPECT_EQ(out[r * cols + c], table[ids[r] * cols + c]);
}

TEST(CpuOps, GemmMatchesNaive) {
#ifdef ROOFLINE_HAVE_OPENBLAS
  // m = 7 takes sgemm, m = 1 (decode at batch 1) sgemv on the transposed weights: both c = a·B.
  for (const std::int64_t m : {7, 1}) {
    const std::int64_t n = 33, k = 65;
    const auto a = rnd(m * k, 9), b = rnd(k * n, 10);
    std::vector<float> c(m * n, std::nanf(""));
    gemm_kernel(a.data(), b.data(), c.data(), m, n, k);
    for (std::int64_t i = 0; i < m; ++i)
      for (std::int64_t j = 0; j < n; ++j) {
        double ref = 0;
        for (std::int64_t l = 0; l < k; ++l) ref += double(a[i * k + l]) * b[l * n + j];
        EXPECT_NEAR(c[i * n + j], ref, 1e-4) << "m = " << m << ", C[" << i << "," << j << "]";
      }
  }
#else
  GTEST_SKIP() << "built without OpenBLAS";
#endif
}

TEST(CpuOps, FusedAttentionEqualsNaive) {
  // One query tile (70 rows), and 600 causal rows: three BLAS tiles of 256, 256 and 88 rows.
  for (const auto& [causal, q_len, kv_len] : {std::array<std::int64_t, 3>{1, 70, 130}, std::array<std::int64_t, 3>{0, 70, 130},
                                              std::array<std::int64_t, 3>{1, 600, 600}}) {
    attention_shape s;
    s.batch = 2, s.heads = 4, s.kv_heads = 2, s.head_dim = 16, s.q_len = q_len, s.kv_len = kv_len, s.causal = causal != 0;
    const auto q = rnd(s.batch * s.heads * s.q_len * s.head_dim, 11);
    const auto k = rnd(s.batch * s.kv_heads * s.kv_len * s.head_dim, 12);
    const auto v = rnd(s.batch * s.kv_heads * s.kv_len * s.head_dim, 13);
    std::vector<float> scores(s.batch * s.heads * s.q_len * s.kv_len), o1(q.size()), o2(q.size()), o3(q.size());
    attention_naive_kernel(q.data(), k.data(), v.data(), scores.data(), o1.data(), s);
    attention_fused_kernel(q.data(), k.data(), v.data(), o2.data(), s);         // BLAS tiles (with OpenBLAS)
    attention_fused_tiles_kernel(q.data(), k.data(), v.data(), o3.data(), s);   // online-softmax tiles
    double worst = 0, worst_tiles = 0;
    for (std::size_t i = 0; i < o1.size(); ++i) {
      worst = std::max(worst, double(std::abs(o1[i] - o2[i])));
      worst_tiles = std::max(worst_tiles, double(std::abs(o1[i] - o3[i])));
    }
    EXPECT_LT(worst, 1e-4) << "causal " << causal;
    EXPECT_LT(worst_tiles, 1e-4) << "causal " << causal;
  }
}

TEST(CpuOps, DecodeAttentionEqualsFusedWithOneQuery) {
  // GQA groups of 4 heads (one partial block of 8 lanes), and of 12 heads with head_dim 20 (a full
  // and a partial head block, two full and one partial block of 8 columns).
  for (const auto& [heads, kv_heads, head_dim] :
       {std::array<std::int64_t, 3>{8, 2, 32}, std::array<std::int64_t, 3>{12, 1, 20}}) {
    attention_shape s;
    s.batch = 3, s.heads = heads, s.kv_heads = kv_heads, s.head_dim = head_dim, s.q_len = 1, s.kv_len = 200,
    s.causal = false;
    const auto q = rnd(s.batch * s.heads * s.head_dim, 14);
    const auto k = rnd(s.batch * s.kv_heads * s.kv_len * s.head_dim, 15);
    const auto v = rnd(s.batch * s.kv_heads * s.kv_len * s.head_dim, 16);
    std::vector<float> o2(q.size());
    attention_fused_kernel(q.data(), k.data(), v.data(), o2.data(), s);
    // Automatic split count, one range, and ranges of 67 and 29 keys (partial 64-key tiles).
    for (const std::int64_t splits : {0, 1, 3, 7}) {
      std::vector<float> o1(q.size(), std::nanf(""));
      attention_decode_kernel(q.data(), k.data(), v.data(), o1.data(), s, splits);
      for (std::size_t i = 0; i < o1.size(); ++i)
        ASSERT_NEAR(o1[i], o2[i], 1e-5) << "heads " << heads << ", splits " << splits << ", element " << i;
    }
  }
}

TEST(CpuOps, RunOpEveryKindGivesPositiveVerifiedTime) {
  auto be = make_cpu_backend();
  const timing_options t{0, 2, 3, 0.0, 0.05};
  std::vector<op_desc> ops;
  auto add = [&](op_kind k) {
    op_desc o;
    o.name = "test";
    o.kind = k;
    o.dtype = "fp32";
    o.dtype_bytes = 4;
    o.rows = 4, o.cols = 256;
    o.m = 4, o.n = 96, o.k = 128;
    o.batch = 2, o.heads = 4, o.kv_heads = 2, o.head_dim = 32, o.seq = 48, o.q_len = 48, o.kv_len = 48, o.context = 64;
    o.ph = k == op_kind::attention_decode ? phase::decode : phase::prefill;
    ops.push_back(o);
  };
  for (op_kind k : {op_kind::gemm, op_kind::add, op_kind::mul, op_kind::silu, op_kind::silu_mul, op_kind::gelu,
                    op_kind::rmsnorm, op_kind::layernorm, op_kind::softmax, op_kind::rope, op_kind::embedding,
                    op_kind::attention_decode, op_kind::attention_naive, op_kind::attention_fused})
    add(k);
  ops[10].k = 1000;  // embedding: vocabulary
  for (const auto& o : ops) {
#ifndef ROOFLINE_HAVE_OPENBLAS
    if (o.kind == op_kind::gemm) {
      EXPECT_THROW(be->run_op(o, t), probe_error);
      continue;
    }
#endif
    const op_timing r = be->run_op(o, t);
    EXPECT_GT(r.seconds, 0) << static_cast<int>(o.kind);
    EXPECT_GT(r.best_seconds, 0);
    EXPECT_LE(r.best_seconds, r.seconds);
    EXPECT_NE(r.note.find("verified"), std::string::npos);
    // Every measured op names what ran.
    EXPECT_NE(r.implementation.find(o.kind == op_kind::gemm ? "OpenBLAS" : "roofline cpu"), std::string::npos)
        << r.implementation;
    EXPECT_NE(r.implementation.find("threads"), std::string::npos) << r.implementation;
  }
}

TEST(CpuOps, ImplementationNamesTheKernelVariant) {
  op_desc o;
  o.kind = op_kind::rmsnorm;
  o.name = "input_norm";
  EXPECT_EQ(cpu::cpu_implementation(o, 16), "roofline cpu rmsnorm (one pass per row; OpenMP, 16 threads, rows split)");
  o.name = "input_norm_two_pass";
  EXPECT_NE(cpu::cpu_implementation(o, 16).find("two passes"), std::string::npos);
  o.kind = op_kind::gemm;
  EXPECT_NE(cpu::cpu_implementation(o, 4).find("cblas_sgemm, row-major NN, 4 threads"), std::string::npos);
  o.m = 1;
  EXPECT_NE(cpu::cpu_implementation(o, 4).find("cblas_sgemv, row-major B transposed"), std::string::npos);
}

TEST(CpuOps, RunOpNotesFp16CatalogueRunAsFp32) {
  op_desc o;
  o.name = "residual";
  o.kind = op_kind::add;
  o.rows = 1, o.cols = 2048;
  o.dtype = "fp16";
  o.dtype_bytes = 2;
  const op_timing r = make_cpu_backend()->run_op(o, timing_options{0, 2, 3, 0.0, 0.05});
  EXPECT_NE(r.note.find("run in fp32"), std::string::npos) << r.note;
}

TEST(CpuOps, MissingShapeIsAProbeError) {
  op_desc o;
  o.name = "bad";
  o.kind = op_kind::rmsnorm;
  EXPECT_THROW(make_cpu_backend()->run_op(o, quick_timing()), probe_error);
}

TEST(CpuOps, FastExpMatchesStdExp) {
  double worst = 0;
  for (float x = -87.0f; x <= 88.0f; x += 0.0137f) {
    const double ref = std::exp(static_cast<double>(x));
    worst = std::max(worst, std::abs(fast_expf(x) - ref) / ref);
  }
  EXPECT_LT(worst, 3e-7);
  EXPECT_FLOAT_EQ(fast_expf(0.0f), 1.0f);
  EXPECT_NEAR(fast_expf(1.0f), 2.718281828f, 1e-6);
  EXPECT_EQ(fast_expf(-INFINITY), 0.0f);  // a masked score: exactly 0, never a subnormal
  EXPECT_EQ(fast_expf(-87.5f), 0.0f);
  EXPECT_GT(fast_expf(-87.0f), 1e-38f);
  EXPECT_FLOAT_EQ(fast_expf(100.0f), fast_expf(88.0f));
}

TEST(CpuOps, AWholeStepOnThePthreadsOpenBlasSaysItPaysForTwoThreadPools) {
  // openblas_get_parallel(): 0 sequential, 1 pthreads, 2 OpenMP. Only the pthreads build keeps a
  // second pool of spinning workers beside the OpenMP ops (2.1x the sum of isolated ops for the decode
  // step on a 2-vCPU Zen 4 guest, 9.2x on a 16-vCPU Xeon, 2026-12-02).
  EXPECT_EQ(openblas_pool_note(2), "");
  EXPECT_EQ(openblas_pool_note(0), "");
  const std::string n = openblas_pool_note(1);
  EXPECT_NE(n.find("pthreads build"), std::string::npos) << n;
  EXPECT_NE(n.find("libopenblas-openmp-dev"), std::string::npos) << n;
}
