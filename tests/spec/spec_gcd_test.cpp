// Multi-die modules and ECC: what the runtime counts as one device, and what ECC costs a GDDR part.
// Sources: AMD Instinct MI250X / MI250 datasheets (220 / 208 CUs at 1.7 GHz, FP16 383 / 362.1
// TFLOPS, 8192-bit HBM2e at 3.2 Gbit/s); AMD ROCm documentation, 'AMD Instinct MI250
// microarchitecture' (two GCDs per module, each its own device; MI250 GCD: 104 CUs, 1.6 TB/s);
// NVIDIA CUDA C++ Best Practices Guide, 'Theoretical Bandwidth Calculation' (GDDR with ECC on:
// about 20 % less bandwidth, 6.25 % less memory).
#include <gtest/gtest.h>

#include <string>

#include "roofline/error.hpp"
#include "roofline/spec.hpp"
#include "roofline/vocabulary.hpp"

using namespace roofline;

TEST(SpecGcd, Mi250IsItsOwnPartNotTheMi250x) {
  EXPECT_EQ(match_gpu_name("AMD Instinct MI250"), "AMD Instinct MI250");
  EXPECT_EQ(match_gpu_name("mi250"), "AMD Instinct MI250");
  EXPECT_EQ(match_gpu_name("AMD Instinct MI250X"), "AMD Instinct MI250X");
  // 208 CU × 4 Matrix Cores × 128 FMA × 2 × 1.7 GHz = 362.1 TFLOP/s (datasheet 362.1), not the MI250X's 383
  EXPECT_NEAR(peak_for(gpu_nominal("AMD Instinct MI250"), "fp16", peak_engine::tensor)->flops_per_s / 1e12, 362.1, 0.05);
  EXPECT_NEAR(peak_for(gpu_nominal("AMD Instinct MI250X"), "fp16", peak_engine::tensor)->flops_per_s / 1e12, 383.0, 0.05);
  // the old alias "AMD Instinct MI250X/MI250" named two parts: refused, never one of them
  EXPECT_THROW(match_gpu_name("AMD Instinct MI250X/MI250"), input_error);
}

TEST(SpecGcd, OneGcdIsOneDevice) {
  const auto gcd = gpu_nominal("AMD Instinct MI250X GCD");
  EXPECT_EQ(gcd.device_name, "AMD Instinct MI250X GCD");
  // 110 CU × 4 × 128 × 2 × 1.7 GHz = 191.5 TFLOP/s; 4096 bit / 8 × 3.2 Gbit/s = 1.638 TB/s
  EXPECT_DOUBLE_EQ(peak_for(gcd, "fp16", peak_engine::tensor)->flops_per_s, 110.0 * 4 * 128 * 2 * 1.7e9);
  EXPECT_DOUBLE_EQ(*gcd.memory_bandwidth_bytes_per_s, 4096.0 / 8 * 3.2e9);
  // MI250 GCD: 104 CUs (ROCm documentation), 173.1 TFLOP/s
  EXPECT_DOUBLE_EQ(peak_for(gpu_nominal("mi250 gcd"), "fp16", peak_engine::tensor)->flops_per_s, 104.0 * 4 * 128 * 2 * 1.7e9);
  // what ops, place and mfu use: the device as ROCm counts it
  EXPECT_EQ(gpu_device_nominal("mi250x", "--device").device_name, "AMD Instinct MI250X GCD");
  EXPECT_EQ(gpu_device_nominal("h200", "--device").device_name, "NVIDIA H200");  // one die: unchanged
  EXPECT_THROW(gpu_nominal("h200 gcd"), input_error);
}

TEST(SpecEcc, T4WithEccOnIsAStatedCeilingBesideTheNominal) {
  const auto n = gpu_nominal("t4");
  EXPECT_DOUBLE_EQ(*n.memory_bandwidth_bytes_per_s, 320e9);  // nominal stays the datasheet's
  const auto e = gpu_ecc_ceiling("Tesla T4");
  ASSERT_TRUE(e.has_value());
  ASSERT_TRUE(e->bandwidth_bytes_per_s.has_value());
  EXPECT_DOUBLE_EQ(*e->bandwidth_bytes_per_s, 256e9);  // 320 GB/s × 0.8
  EXPECT_TRUE(e->default_on);                          // datacenter T4s ship with ECC on (Colab: on)
  EXPECT_DOUBLE_EQ(e->memory_gb, 15);                 // 16 × 15/16
  EXPECT_NE(e->bandwidth_source.find("Best Practices Guide"), std::string::npos);
  bool noted = false;
  for (const auto& s : n.notes) noted = noted || s.find("256 GB/s") != std::string::npos;
  EXPECT_TRUE(noted);
  EXPECT_FALSE(gpu_ecc_ceiling("h200").has_value());  // HBM: the table states no ECC cost
}

// Rows added with their printed figures: RTX A6000 (GA102 whitepaper, Appendix A: 84 SM × 4 × 128 ×
// 2 × 1.8 GHz = 154.8 TFLOPS BF16, full rate on the workstation part; datasheet 768 GB/s) and MI325X
// (AMD Instinct MI325X datasheet: 1307.4 TFLOPS FP16 on the MI300X's 304 CUs, 6 TB/s).
TEST(SpecRows, RtxA6000AndMi325x) {
  EXPECT_EQ(match_gpu_name("NVIDIA RTX A6000"), "NVIDIA RTX A6000");
  const auto a = gpu_nominal("rtx a6000");
  EXPECT_NEAR(peak_for(a, "bf16", peak_engine::tensor)->flops_per_s / 1e12, 154.8, 0.05);
  EXPECT_DOUBLE_EQ(*a.memory_bandwidth_bytes_per_s, 768e9);
  const auto m = gpu_nominal("AMD Instinct MI325X");
  EXPECT_NEAR(peak_for(m, "fp16", peak_engine::tensor)->flops_per_s / 1e12, 1307.4, 0.05);
  EXPECT_NEAR(*m.memory_bandwidth_bytes_per_s / 1e12, 6.0, 0.01);
}
