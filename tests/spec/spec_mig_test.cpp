// MIG instances are their own devices: the profile's SMs and its memory slices' share of the bus,
// capacity and L2 (NVIDIA Multi-Instance GPU User Guide, 'Supported MIG Profiles': A100-SXM4-40GB
// has 7 compute and 8 memory slices; nvidia-smi mig -lgip: 1g.5gb has 14 SMs, H100 80GB 3g.40gb 60).
#include <gtest/gtest.h>

#include <string>

#include "roofline/error.hpp"
#include "roofline/spec.hpp"
#include "roofline/vocabulary.hpp"

using namespace roofline;

namespace {
double factor_of(const nominal_roofs& n, const std::string& name) {
  for (const auto& f : n.factors)
    if (f.name.rfind(name, 0) == 0) return f.value;
  ADD_FAILURE() << "no factor " << name;
  return 0;
}
}  // namespace

TEST(SpecMig, A100OneSliceIsItsOwnDevice) {
  const auto full = gpu_nominal("NVIDIA A100-SXM4-40GB");
  const auto mig = gpu_nominal("NVIDIA A100-SXM4-40GB MIG 1g.5gb");  // cudaDeviceProp::name of the instance
  EXPECT_EQ(mig.device_name, "NVIDIA A100 40GB SXM MIG 1g.5gb");
  EXPECT_EQ(factor_of(mig, "SMs"), 14);
  // fp16 tensor: 14 SM × 4 TC × 256 FMA × 2 × 1.41 GHz = 40.43 TFLOP/s (full GPU: 108 SMs, 311.9)
  EXPECT_DOUBLE_EQ(peak_for(mig, "fp16", peak_engine::tensor)->flops_per_s, 14.0 * 4 * 256 * 2 * 1.41e9);
  EXPECT_DOUBLE_EQ(peak_for(full, "fp16", peak_engine::tensor)->flops_per_s / peak_for(mig, "fp16", peak_engine::tensor)->flops_per_s, 108.0 / 14);
  // an MFU of 5.12% on the whole A100 is 39.5% of the 1g.5gb slice it ran on
  EXPECT_NEAR(5.12 * 108.0 / 14, 39.5, 0.05);
  // memory: 1 of 8 slices: 640 of 5120 bit → 194.4 GB/s of 1555, 5 of 40 GB
  EXPECT_DOUBLE_EQ(*mig.memory_bandwidth_bytes_per_s, *full.memory_bandwidth_bytes_per_s / 8);
  EXPECT_NEAR(*mig.memory_bandwidth_bytes_per_s / 1e9, 194.4, 0.05);
  EXPECT_DOUBLE_EQ(factor_of(mig, "memory size"), 5);
}

TEST(SpecMig, H100ThreeSlices) {
  const auto mig = gpu_nominal("h100-sxm MIG 3g.40gb");
  EXPECT_EQ(factor_of(mig, "SMs"), 60);
  EXPECT_DOUBLE_EQ(*mig.memory_bandwidth_bytes_per_s, *gpu_nominal("h100-sxm").memory_bandwidth_bytes_per_s / 2);
  EXPECT_DOUBLE_EQ(factor_of(mig, "memory size"), 40);
}

TEST(SpecMig, AnUnknownProfileIsRefusedByName) {
  try {
    gpu_nominal("NVIDIA A100-SXM4-40GB MIG 9g.99gb", "--device");
    FAIL() << "no error";
  } catch (const input_error& e) {
    EXPECT_EQ(e.field(), "--device");
    EXPECT_NE(std::string(e.what()).find("1g.5gb"), std::string::npos) << e.what();
  }
  EXPECT_THROW(gpu_nominal("NVIDIA T4 MIG 1g.5gb"), input_error);  // no MIG on a T4
}
