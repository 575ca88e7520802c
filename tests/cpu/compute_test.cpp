// FMA peak against the nominal arithmetic from the detected factors, and a small verified GEMM.
#include <gtest/gtest.h>

#include "backends/cpu/cpu_buffers.hpp"
#include "backends/cpu/cpu_detect.hpp"
#include "backends/cpu/fma_kernels.hpp"
#include "backends/cpu/probes.hpp"
#include "roofline/error.hpp"
#include "roofline/interference.hpp"

using namespace roofline;
using namespace roofline::cpu;

TEST(CpuCompute, ChainSumIsTheClosedForm) {
  const fma_kernel k = fma_kernel_for(detect_cpu().desc.isa);
  const std::int64_t it = 1 << 22;  // the longest exact chain
  EXPECT_EQ(fma_chain_fp32(k, it, 1.0f, 0x1.0p-23f), double(k.accumulators * k.lanes_fp32 * it));
  EXPECT_EQ(fma_chain_fp64(k, it, 1.0, 0x1.0p-52), double(k.accumulators * k.lanes_fp64 * it));
}

TEST(CpuCompute, FmaPeakWithinNominalBand) {
  const auto& d = detect_cpu().desc;
  if (d.fma_units <= 0 || d.clock_hz <= 0 || d.simd_bits <= 0) GTEST_SKIP() << "detection lacks a factor: " << d.fma_units_source;
#ifdef ROOFLINE_SANITIZED
  const bool sanitized = true;  // instrumented code: the rate is checked for being positive and verified only
#else
  const bool sanitized = false;
#endif
  for (const char* prec : {"fp32", "fp64"}) {
    const int lanes = d.simd_bits / (std::string(prec) == "fp32" ? 32 : 64);
    // cores × FMA units × lanes × 2 FLOP × clock (spec.hpp cpu_nominal)
    const double nominal = static_cast<double>(worker_threads()) * d.fma_units * lanes * 2.0 * d.clock_hz;
    // Judged like a probe (roofline/interference.hpp): what other processes took of the machine while it ran.
    const cpu_accounting a = read_cpu_accounting();
    const compute_result r = measure_fma_peak(prec, timing_options{1, 10, 100, 0.3, 1.0}, false);
    const interference_sample load = interference_between(a, read_cpu_accounting());
    EXPECT_TRUE(r.verified);
    EXPECT_GT(r.flops_per_s, 0);
    if (sanitized) continue;
    // True under any load: no chain outruns the cores' FMA units (a busy machine only lowers the rate).
    EXPECT_LT(r.flops_per_s, 1.2 * nominal) << prec << ": " << r.flops_per_s / 1e9 << " vs nominal " << nominal / 1e9;
    // The floor holds on a machine that was quiet while it measured; beside other work the rate is the
    // share the chain got, not a peak, and only the bounds above are asserted.
    if (!disturbed(load) && a.valid)
      EXPECT_GT(r.flops_per_s, 0.3 * nominal) << prec << ": " << r.flops_per_s / 1e9 << " vs nominal " << nominal / 1e9
                                              << " on a machine quiet while it ran (" << describe_interference(load) << ")";
  }
}

TEST(CpuCompute, GemmVerifiedAndPositive) {
#ifndef ROOFLINE_HAVE_OPENBLAS
  EXPECT_THROW(measure_gemm("fp32", 128, quick_timing()), probe_error);
#else
  for (const char* prec : {"fp32", "fp64"}) {
    const compute_result r = measure_gemm(prec, 128, quick_timing());
    EXPECT_TRUE(r.verified);
    EXPECT_EQ(r.size, 128);
    EXPECT_GT(r.flops_per_s, 0);
    EXPECT_GE(r.flops_per_s, r.median_flops_per_s);
  }
#endif
}

TEST(CpuCompute, AttentionTileGemmsVerifiedForBothShapes) {
#ifndef ROOFLINE_HAVE_OPENBLAS
  EXPECT_THROW(measure_gemm_attention({16}, 32, 128, quick_timing()), probe_error);
#else
  const auto rs = measure_gemm_attention({16, 32}, 32, 128, quick_timing());
  ASSERT_EQ(rs.size(), 6u);  // qk, the softmax between, and pv for each head_dim, in that order
  for (std::size_t i = 0; i < rs.size(); ++i) {
    const gemm_attention_result& g = rs[i];
    EXPECT_EQ(g.gemm, i % 3 == 0 ? "qk" : i % 3 == 1 ? "softmax" : "pv");
    EXPECT_EQ(g.head_dim, i < 3 ? 16 : 32);
    EXPECT_EQ(g.tile_rows, 32);
    EXPECT_EQ(g.keys, 128);
    EXPECT_TRUE(g.verified);
    EXPECT_GT(g.median_flops_per_s, 0);
    EXPECT_GE(g.flops_per_s, g.median_flops_per_s);
    EXPECT_NE(g.method.find(g.gemm == "qk" ? "S = Q·Kᵀ" : g.gemm == "pv" ? "O = P·V" : "softmax_tile"), std::string::npos)
        << g.method;
  }
#endif
}
