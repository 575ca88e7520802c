// Decoding NVML clock-event reason masks. Bit values: NVML API Reference R550, 4.31
// "NvmlClocksEventReasons" (gpu_idle 0x1 … display_clock_setting 0x100).
#include <gtest/gtest.h>

#include "backends/cuda/throttle_reasons.hpp"

using namespace roofline::cuda;

TEST(ThrottleReasons, DocumentedBitValues) {
  const auto& t = throttle_reasons();
  ASSERT_EQ(t.size(), 9u);
  EXPECT_EQ(t[0].bit, 0x1u);   EXPECT_STREQ(t[0].name, "gpu_idle");
  EXPECT_EQ(t[2].bit, 0x4u);   EXPECT_STREQ(t[2].name, "sw_power_cap");
  EXPECT_EQ(t[3].bit, 0x8u);   EXPECT_STREQ(t[3].name, "hw_slowdown");
  EXPECT_EQ(t[5].bit, 0x20u);  EXPECT_STREQ(t[5].name, "sw_thermal_slowdown");
  EXPECT_EQ(t[6].bit, 0x40u);  EXPECT_STREQ(t[6].name, "hw_thermal_slowdown");
  EXPECT_EQ(t[7].bit, 0x80u);  EXPECT_STREQ(t[7].name, "hw_power_brake_slowdown");
  EXPECT_EQ(t[8].bit, 0x100u); EXPECT_STREQ(t[8].name, "display_clock_setting");
}

TEST(ThrottleReasons, DecodesMasks) {
  EXPECT_TRUE(decode_throttle_reasons(0).empty());
  EXPECT_EQ(decode_throttle_reasons(0x5), (std::vector<std::string>{"gpu_idle", "sw_power_cap"}));
  EXPECT_EQ(decode_throttle_reasons(0x44), (std::vector<std::string>{"sw_power_cap", "hw_thermal_slowdown"}));
  EXPECT_EQ(decode_throttle_reasons(0x1FF).size(), 9u);
  EXPECT_EQ(decode_throttle_reasons(0x1000), (std::vector<std::string>{"unknown_0x1000"}));
}

TEST(ThrottleReasons, OnlySlowdownsCountAsThrottled) {
  EXPECT_FALSE(is_throttled(0x0));
  EXPECT_FALSE(is_throttled(0x1));    // idle
  EXPECT_FALSE(is_throttled(0x2));    // applications clocks setting
  EXPECT_FALSE(is_throttled(0x10));   // sync boost
  EXPECT_FALSE(is_throttled(0x100));  // display clock setting
  EXPECT_TRUE(is_throttled(0x4));     // the 700 W software power cap seen on H200 GEMMs
  EXPECT_TRUE(is_throttled(0x8));
  EXPECT_TRUE(is_throttled(0x20));
  EXPECT_TRUE(is_throttled(0x40));
  EXPECT_TRUE(is_throttled(0x80));
  EXPECT_TRUE(is_throttled(0x1 | 0x4));
}
