// Telemetry summaries of fixed sample series.
#include <gtest/gtest.h>

#include "backends/cuda/telemetry_summary.hpp"

using namespace roofline::cuda;

namespace {
std::vector<telemetry_sample> series() {
  // 10 samples 20 ms apart from t = 1.0 s: SM clock 1980 MHz falling to 1440 MHz under a power cap.
  std::vector<telemetry_sample> xs;
  for (int i = 0; i < 10; ++i) {
    telemetry_sample s;
    s.t_s = 1.0 + 0.02 * i;
    s.sm_clock_mhz = i < 5 ? 1980.0 : 1440.0;
    s.mem_clock_mhz = 3201.0;
    s.power_w = i < 5 ? 500.0 : 700.0;
    s.temperature_c = 40.0 + i;
    s.reasons = i < 5 ? 0x0ull : 0x4ull;
    xs.push_back(s);
  }
  return xs;
}
}  // namespace

TEST(TelemetrySummary, WholeWindow) {
  const auto s = summarize_telemetry(series(), 0.0, 10.0);
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->samples, 10);
  EXPECT_NEAR(s->sample_hz, 50.0, 1e-9);
  ASSERT_TRUE(s->sm_clock_mhz.has_value());
  EXPECT_DOUBLE_EQ(s->sm_clock_mhz->min, 1440.0);
  EXPECT_DOUBLE_EQ(s->sm_clock_mhz->max, 1980.0);
  EXPECT_DOUBLE_EQ(s->sm_clock_mhz->median, 1710.0);  // mean of the two middle values
  EXPECT_DOUBLE_EQ(s->power_w->mean, 600.0);
  EXPECT_DOUBLE_EQ(s->temperature_c->median, 44.5);
  EXPECT_EQ(s->throttle_reasons, (std::vector<std::string>{"sw_power_cap"}));
  EXPECT_DOUBLE_EQ(s->throttled_fraction, 0.5);
}

TEST(TelemetrySummary, WindowSelectsSamples) {
  // [1.1, 1.2] holds samples 5..10 -> i = 5..9 (t = 1.10 … 1.18).
  const auto s = summarize_telemetry(series(), 1.0999, 1.2);
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->samples, 5);
  EXPECT_DOUBLE_EQ(s->sm_clock_mhz->median, 1440.0);
  EXPECT_DOUBLE_EQ(s->throttled_fraction, 1.0);
}

TEST(TelemetrySummary, ShortWindowTakesNearestSample) {
  const auto s = summarize_telemetry(series(), 1.031, 1.032);  // between samples 1 (1.02) and 2 (1.04)
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->samples, 1);
  EXPECT_DOUBLE_EQ(s->temperature_c->median, 42.0);  // sample 2 at 1.04 is nearest to 1.0315
}

TEST(TelemetrySummary, MissingQuantitiesStayUnknown) {
  std::vector<telemetry_sample> xs(3);
  for (int i = 0; i < 3; ++i) xs[i].t_s = i, xs[i].sm_clock_mhz = 1000.0 + i;
  const auto s = summarize_telemetry(xs, 0, 2);
  ASSERT_TRUE(s.has_value());
  EXPECT_FALSE(s->power_w.has_value());
  EXPECT_FALSE(s->temperature_c.has_value());
  EXPECT_TRUE(s->throttle_reasons.empty());
  EXPECT_DOUBLE_EQ(s->throttled_fraction, 0.0);
  EXPECT_FALSE(summarize_telemetry({}, 0, 1).has_value());
}
