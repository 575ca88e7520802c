// The NVML sampler on the real GPU: >= 10 samples in 0.5 s (it samples every 20 ms).
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "backends/cuda/telemetry_sampler.hpp"
#include "gpu_fixture.hpp"
#include "roofline/json.hpp"
#include "roofline/measure.hpp"

using namespace roofline;

TEST(GpuTelemetry, SamplerCollectsAtLeastTwentyHertz) {
  ROOFLINE_REQUIRE_GPU();
  char bus[32] = {0};
  ASSERT_EQ(cudaDeviceGetPCIBusId(bus, sizeof bus, 0), cudaSuccess);
  cuda::telemetry_sampler s(bus);
  ASSERT_TRUE(s.available()) << "NVML unavailable: " << s.why();
  const double t0 = now_s();
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  const double t1 = now_s();
  const auto xs = s.samples(t0, t1);
  EXPECT_GE(xs.size(), 10u);
  const auto sum = s.summary(t0, t1);
  ASSERT_TRUE(sum.has_value());
  EXPECT_GE(sum->sample_hz, 20.0);
  ASSERT_TRUE(sum->sm_clock_mhz.has_value());
  EXPECT_GT(sum->sm_clock_mhz->median, 0.0);
  ASSERT_TRUE(sum->mem_clock_mhz.has_value());
  const json dj = s.device_json();
  EXPECT_EQ(dj.at("nvml"), "available");
  EXPECT_TRUE(dj.contains("ecc"));
  EXPECT_TRUE(dj.contains("power_limit_w"));
  for (const auto& e : s.query_errors()) ADD_FAILURE() << "NVML query failed: " << e;
}
