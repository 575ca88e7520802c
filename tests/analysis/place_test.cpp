#include <gtest/gtest.h>

#include <cmath>

#include "fixtures.hpp"
#include "roofline/analysis.hpp"
#include "roofline/error.hpp"
#include "roofline/json.hpp"

using namespace roofline;

namespace {
roofline_summary h200_roofs() {
  const results r = test::h200_results();
  return summarize_roofline(r.nominal, r.measured, "fp16");  // measured: 760 TFLOP/s, 4.3 TB/s
}
}  // namespace

TEST(PlaceOp, ADecodeLinearIsBandwidthBoundAndShouldRaiseTheBatch) {
  // TinyLlama q_proj at batch 1, fp16: [1×2048]·[2048×2048].
  op_desc op;
  op.name = "q_proj";
  op.kind = op_kind::gemm;
  op.ph = phase::decode;
  op.m = 1, op.k = 2048, op.n = 2048;
  op.flops = 2.0 * 1 * 2048 * 2048;
  op.bytes_read = 2048.0 * 2048 * 2 + 2048 * 2;
  op.bytes_written = 2048 * 2;
  const op_result r = place_op(op, h200_roofs(), 1e-6);
  // 1.95 µs of bytes at the roof + a 1 µs floor: the roof term is more than half the time
  EXPECT_EQ(r.bound, "bandwidth");
  EXPECT_NEAR(r.intensity, 8388608.0 / 8396800.0, 1e-12);
  EXPECT_NEAR(r.predicted_s, 8396800.0 / 4.3e12 + 1e-6, 1e-15);  // bytes ÷ measured bw + launch floor
  ASSERT_TRUE(r.launch_floor_s);
  EXPECT_EQ(r.advice.rfind("raise the batch", 0), 0u);
}

TEST(PlaceOp, ElementwiseOpsShouldFuseAndLargeGemmsAreComputeBound) {
  op_desc add;
  add.name = "residual_add";
  add.kind = op_kind::add;
  add.rows = 32, add.cols = 2048;
  add.flops = 32 * 2048;
  add.bytes_read = 2 * 32 * 2048 * 2;
  add.bytes_written = 32 * 2048 * 2;
  EXPECT_EQ(place_op(add, h200_roofs(), 0).advice.rfind("fuse", 0), 0u);

  op_desc g;
  g.name = "up_proj";
  g.kind = op_kind::gemm;
  g.ph = phase::prefill;
  g.flops = 2.0 * 2048 * 2048 * 5632;
  g.bytes_read = (2048.0 * 2048 + 2048.0 * 5632) * 2;
  g.bytes_written = 2048.0 * 5632 * 2;
  const op_result r = place_op(g, h200_roofs(), 0);
  EXPECT_EQ(r.bound, "compute");
  EXPECT_NEAR(r.predicted_s, g.flops / 760e12, 1e-15);
  EXPECT_EQ(r.advice.rfind("compute-bound", 0), 0u);
}

TEST(PlaceOp, AnOpWithin10PercentOfTheRoofIsToldToStop) {
  op_desc add;
  add.name = "residual_add";
  add.kind = op_kind::add;
  add.flops = 1e6;
  add.bytes_read = 2e6 * 2 * 2;
  add.bytes_written = 2e6 * 2;
  op_result r = place_op(add, h200_roofs(), 0);
  const double roof = 12e6 / 4.3e12;
  r.measured_s = roof / 0.95;
  refresh_advice(r, h200_roofs());
  EXPECT_EQ(r.advice.rfind("stop: at the roof", 0), 0u);
  r.measured_s = roof / 0.5;
  r.advice = "fuse";
  refresh_advice(r, h200_roofs());
  EXPECT_EQ(r.advice, "fuse");
}

TEST(PlaceOp, LatencyAdviceNamesNoCudaGraphOnTheCpu) {
  // A latency-bound 64 KB add measured at 20 µs against a 0.01 µs roof: on a GPU the advice offers
  // a CUDA graph, on a CPU (whose floor is the parallel region's fork and join) it does not.
  op_desc add;
  add.name = "residual_add";
  add.kind = op_kind::add;
  add.flops = 16384;
  add.bytes_read = 2 * 16384 * 2;
  add.bytes_written = 16384 * 2;
  for (const char* kind : {"cuda", "cpu"}) {
    op_result r = place_op(add, h200_roofs(), 0);
    r.bound = "latency";
    r.predicted_s = 2e-6;
    r.measured_s = 20e-6;
    refresh_advice(r, h200_roofs(), kind);
    EXPECT_EQ(r.advice.rfind("latency-bound: the ", 0), 0u) << r.advice;
    EXPECT_EQ(r.advice.find("µs"), std::string::npos) << "the class's words, no per-op number: " << r.advice;
    EXPECT_EQ(r.advice.find("CUDA graph") != std::string::npos, std::string(kind) == "cuda") << kind << ": " << r.advice;
    EXPECT_NE(r.advice.find(std::string(kind) == "cpu" ? "parallel-region floor" : "per-kernel floor"), std::string::npos) << r.advice;
    EXPECT_NE(r.advice.find("or raise the batch"), std::string::npos) << r.advice;
  }
}

TEST(PlaceKernel, BandwidthBoundKernel) {
  // 1 GFLOP over 10 GB in 5 ms: 0.1 FLOP/B, 2 TB/s; the roof (4.3 TB/s) would take 2.33 ms → 46.5%.
  const kernel_placement k = place_kernel(1e9, 1e10, 5e-3, h200_roofs());
  EXPECT_DOUBLE_EQ(k.intensity, 0.1);
  EXPECT_DOUBLE_EQ(k.achieved_bytes_per_s, 2e12);
  EXPECT_EQ(k.bound, "bandwidth");
  ASSERT_TRUE(k.fraction_measured && k.fraction_nominal && k.attainable_measured);
  EXPECT_NEAR(*k.fraction_measured, (1e10 / 4.3e12) / 5e-3, 1e-12);
  EXPECT_NEAR(*k.fraction_nominal, (1e10 / 4.8e12) / 5e-3, 1e-12);
  EXPECT_DOUBLE_EQ(*k.attainable_measured, 0.1 * 4.3e12);
  EXPECT_EQ(k.advice.rfind("bandwidth-bound: move fewer bytes", 0), 0u);
}

TEST(PlaceKernel, ComputeBoundKernelAndOneAtTheRoof) {
  // A 4096³ fp16 GEMM: 2·4096³ = 1.374e11 FLOP, 3 × 4096² × 2 B = 1.007e8 B → 1365 FLOP/B.
  const double f = 2.0 * 4096 * 4096 * 4096, b = 3.0 * 4096 * 4096 * 2;
  const kernel_placement slow = place_kernel(f, b, 4e-4, h200_roofs());
  EXPECT_EQ(slow.bound, "compute");
  EXPECT_NEAR(*slow.fraction_measured, (f / 760e12) / 4e-4, 1e-12);  // 45%
  EXPECT_EQ(slow.advice.rfind("compute-bound", 0), 0u);
  const kernel_placement fast = place_kernel(f, b, 1.9e-4, h200_roofs());  // 95% of the measured roof
  EXPECT_EQ(fast.advice.rfind("stop: at the roof", 0), 0u);
}

TEST(PlaceKernel, BadValuesNameTheFlag) {
  const auto roofs = h200_roofs();
  auto field = [&](double f, double b, double t) {
    try {
      place_kernel(f, b, t, roofs);
    } catch (const input_error& e) {
      return e.field();
    }
    return std::string("none");
  };
  EXPECT_EQ(field(std::nan(""), 1, 1), "--flops");
  EXPECT_EQ(field(-1, 1, 1), "--flops");
  EXPECT_EQ(field(1, -5, 1), "--bytes");
  EXPECT_EQ(field(1, 1, 0), "--time");
  EXPECT_EQ(field(1, 1, INFINITY), "--time");
}

TEST(Plausibility, AboveTheNominalPeakIsImpossibleAboveDramAloneIsNot) {
  const roofline_summary roofs = h200_roofs();  // nominal fp16 peak 989 TFLOP/s (the H200 fixture, dense)
  op_desc g;
  g.name = "up_proj";
  g.kind = op_kind::gemm;
  g.ph = phase::prefill;
  g.flops = 2.0 * 2048 * 2048 * 5632;  // 47.2 GFLOP
  g.bytes_read = (2048.0 * 2048 + 2048.0 * 5632) * 2;
  g.bytes_written = 2048.0 * 5632 * 2;
  op_result r = place_op(g, roofs, 0);
  r.measured_s = g.flops / 1.5e15;  // 1.5 PFLOP/s: 152% of the nominal peak
  judge_plausibility(r, roofs, 30e12);
  EXPECT_FALSE(r.plausible);
  ASSERT_GE(r.causes.size(), 2u);
  EXPECT_EQ(r.causes[0], "impossible: 152% of the nominal fp16 peak");
  EXPECT_EQ(r.advice.rfind("none: a physically impossible measurement", 0), 0u);
  refresh_advice(r, roofs);  // keeps the verdict
  EXPECT_EQ(r.advice.rfind("none:", 0), 0u);

  // A 12 MB add at 8 TB/s: above the 4.3 TB/s HBM roof (served from the 60 MiB L2) but below a
  // 30 TB/s L1: plausible, and the JSON says so.
  op_desc add;
  add.name = "residual_add";
  add.kind = op_kind::add;
  add.flops = 1e6;
  add.bytes_read = 8e6;
  add.bytes_written = 4e6;
  op_result a = place_op(add, roofs, 0);
  a.measured_s = 12e6 / 8e12;
  judge_plausibility(a, roofs, 30e12);
  EXPECT_TRUE(a.plausible);
  EXPECT_TRUE(a.causes.empty());
  a.measured_s = 12e6 / 40e12;  // 40 TB/s: faster than any level measured
  judge_plausibility(a, roofs, 30e12);
  EXPECT_FALSE(a.plausible);
  EXPECT_EQ(a.causes[0], "impossible: 133% of the fastest memory level measured");
  EXPECT_EQ(json(a)["plausible"], false);
}
