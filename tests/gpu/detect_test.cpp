// Live detection on the GPU in the machine. H200 facts: 132 SMs, 141 GB HBM3e (NVIDIA H200 datasheet).
#include <gtest/gtest.h>

#include <string>

#include "backends/cuda/cuda_detect.hpp"
#include "gpu_fixture.hpp"

using namespace roofline;

TEST(GpuDetect, DescribesCuda0) {
  ROOFLINE_REQUIRE_GPU();
  const live_gpu g = cuda::detect_cuda_gpu_detailed(0).gpu;
  EXPECT_FALSE(g.name.empty());
  EXPECT_GT(g.sms, 0);
  EXPECT_GE(g.cc_major, 7);
  ASSERT_TRUE(g.l2_bytes.has_value());
  EXPECT_GT(*g.l2_bytes, 1e6);
  ASSERT_TRUE(g.memory_bytes.has_value());
  ASSERT_TRUE(g.max_sm_clock_mhz.has_value());
  EXPECT_GT(*g.max_sm_clock_mhz, 500.0);
  EXPECT_LT(*g.max_sm_clock_mhz, 4000.0);
  if (g.name.find("H200") != std::string::npos) {
    EXPECT_EQ(g.sms, 132);
    EXPECT_EQ(g.cc_major, 9);
    EXPECT_EQ(g.cc_minor, 0);
    EXPECT_GT(*g.memory_bytes, 140e9);  // 141 GB; the runtime reports ~150.1e9 (143771 MiB)
    ASSERT_TRUE(g.bus_width_bits.has_value());
    // The H200 (SXM) runtime reports a 6016-bit bus, not the 6 × 1024 = 6144 of six full HBM3e
    // stacks: seen on the device tool's H200, 2026-11-29 (driver 580.159.04). 6016 / 8 B × 2 ×
    // 3201 MHz = 4.81 TB/s, the datasheet's 4.8 TB/s.
    EXPECT_EQ(*g.bus_width_bits, 6016);
    ASSERT_TRUE(g.power_limit_w.has_value()) << "NVML enforced power limit not read";
    EXPECT_GT(*g.power_limit_w, 300.0);
  }
}

TEST(GpuDetect, BackendDescribesItself) {
  ROOFLINE_REQUIRE_GPU();
  auto be = make_cuda_backend(0);
  const device_info d = be->describe();
  EXPECT_EQ(d.kind, "cuda");
  EXPECT_EQ(d.id, "cuda:0");
  for (const char* key : {"sms", "cc", "l2_bytes", "memory_bytes", "bus_width_bits", "max_sm_clock_mhz",
                          "max_mem_clock_mhz", "ecc", "power_limit_w", "driver_version", "runtime_version"})
    EXPECT_TRUE(d.properties->contains(key)) << key;
  EXPECT_EQ(make_backend("auto")->describe().kind, "cuda");
}
