// The classic worked numbers, multiplied out from the table's factors.
#include <gtest/gtest.h>

#include "roofline/spec.hpp"
#include "roofline/vocabulary.hpp"

using namespace roofline;

TEST(SpecWorked, T4) {
  const auto n = gpu_nominal("t4");
  EXPECT_EQ(n.device_name, "NVIDIA T4");
  const auto* fp16 = peak_for(n, "fp16");
  ASSERT_NE(fp16, nullptr);
  EXPECT_EQ(fp16->engine, "tensor");
  EXPECT_EQ(fp16->accumulate, "fp32");
  EXPECT_NEAR(fp16->flops_per_s, 40.0 * 8 * 64 * 2 * 1.59e9, 1);  // 65.1 TFLOPS
  EXPECT_NEAR(fp16->flops_per_s / 1e12, 65.1, 0.05);
  EXPECT_EQ(fp16->formula, "40 SM × 8 TC × 64 FMA/clk × 2 FLOP/FMA × 1.59 GHz");
  const auto* fp32 = peak_for(n, "fp32");
  ASSERT_NE(fp32, nullptr);
  EXPECT_NEAR(fp32->flops_per_s / 1e12, 8.14, 0.01);  // 40 × 64 × 2 × 1.59 GHz
  EXPECT_EQ(fp32->formula, "40 SM × 64 FP32 lanes/SM × 2 FLOP/FMA × 1.59 GHz");
  ASSERT_TRUE(n.memory_bandwidth_bytes_per_s);
  EXPECT_DOUBLE_EQ(*n.memory_bandwidth_bytes_per_s, 320e9);  // 256 bit / 8 × 10 Gbit/s
  EXPECT_NEAR(fp16->flops_per_s / *n.memory_bandwidth_bytes_per_s, 203.5, 0.1);
}

TEST(SpecWorked, A100_80GB_SXM) {
  const auto n = gpu_nominal("a100-80gb-sxm");
  EXPECT_EQ(n.device_name, "NVIDIA A100 80GB SXM");
  const auto* bf16 = peak_for(n, "bf16");
  ASSERT_NE(bf16, nullptr);
  EXPECT_NEAR(bf16->flops_per_s, 108.0 * 4 * 256 * 2 * 1.41e9, 1);  // 311.9 TFLOPS
  EXPECT_NEAR(bf16->flops_per_s / 1e12, 312, 0.5);
  EXPECT_NEAR(*n.memory_bandwidth_bytes_per_s / 1e9, 2039, 0.5);  // 5120 / 8 × 3.186
  EXPECT_NEAR(bf16->flops_per_s / *n.memory_bandwidth_bytes_per_s, 153, 0.5);
}

TEST(SpecWorked, H200) {
  const auto n = gpu_nominal("H200");
  EXPECT_EQ(n.device_name, "NVIDIA H200");
  const auto* bf16 = peak_for(n, "bf16");
  ASSERT_NE(bf16, nullptr);
  EXPECT_NEAR(bf16->flops_per_s / 1e12, 989.4, 0.1);  // 132 × 4 × 512 × 2 × 1.83 GHz
  EXPECT_EQ(bf16->formula, "132 SM × 4 TC × 512 FMA/clk × 2 FLOP/FMA × 1.83 GHz");
  // Ridge against the datasheet's printed 4.8 TB/s ≈ 206; against bus × rate (6016 bit × 6.402
  // Gbit/s / 8 = 4.814 TB/s, see SpecInconsistency.H200BusIsNarrower...) ≈ 205.5.
  EXPECT_NEAR(bf16->flops_per_s / gpu_datasheet("H200").bandwidth_bytes_per_s, 206.1, 0.1);
  EXPECT_NEAR(bf16->flops_per_s / *n.memory_bandwidth_bytes_per_s, 205.5, 0.1);
  bool mem141 = false, tdp700 = false;
  for (const auto& f : n.factors) {
    if (f.name == "memory size") mem141 = f.value == 141;
    if (f.name == "TDP") tdp700 = f.value == 700;
  }
  EXPECT_TRUE(mem141);
  EXPECT_TRUE(tdp700);
}

TEST(SpecWorked, CpuNominal) {
  cpu_description c;
  c.model = "test CPU";
  c.cores = 2;
  c.fma_units = 2;
  c.fma_units_source = "table: Zen 3 (2 FMA pipes)";
  c.isa = "avx2+fma";
  c.simd_bits = 256;
  c.clock_hz = 2.45e9;
  c.clock_source = "cpufreq max";
  c.memory_reason = "DMI not readable in this VM";
  const auto n = cpu_nominal(c);
  const auto* fp32 = peak_for(n, "fp32");
  ASSERT_NE(fp32, nullptr);
  EXPECT_EQ(fp32->engine, "vector");
  EXPECT_NEAR(fp32->flops_per_s, 156.8e9, 1e3);  // 2 × 2 × 8 × 2 × 2.45 GHz
  EXPECT_EQ(fp32->formula, "2 cores × 2 FMA/clk × 8 lanes × 2 FLOP/FMA × 2.45 GHz");
  EXPECT_NEAR(peak_for(n, "fp64")->flops_per_s, 78.4e9, 1e3);  // 4 lanes
  bool fma_src = false, clock_src = false;
  for (const auto& f : fp32->factors) {
    fma_src |= f.source == c.fma_units_source;
    clock_src |= f.source == c.clock_source;
  }
  EXPECT_TRUE(fma_src);
  EXPECT_TRUE(clock_src);
  EXPECT_FALSE(n.memory_bandwidth_bytes_per_s.has_value());  // never a default
  EXPECT_EQ(n.memory_bandwidth_reason, "DMI not readable in this VM");

  c.memory_channels = 2;
  c.memory_mt_per_s = 3200;
  EXPECT_DOUBLE_EQ(*cpu_nominal(c).memory_bandwidth_bytes_per_s, 51.2e9);  // 2 × 3200 MT/s × 8 B
}

TEST(SpecWorked, CpuWithoutClockHasNoPeakButSaysWhy) {
  cpu_description c;
  c.cores = 4;
  c.fma_units = 2;
  c.simd_bits = 512;
  const auto n = cpu_nominal(c);
  EXPECT_TRUE(n.peaks.empty());
  ASSERT_FALSE(n.notes.empty());
  EXPECT_NE(n.notes.front().find("unknown (clock"), std::string::npos);
}
