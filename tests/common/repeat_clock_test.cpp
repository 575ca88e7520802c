// Each timed repeat paired with the clock of its own window (roofline/repeat_clock.hpp). The numbers
// are the worked examples of its header: a Hopper SM clock under the 700 W cap moves in 15 MHz steps
// and, sampled every 20 ms, read 1095–1485 MHz over one fp16 GEMM's timed runs on the H200
// (bench/results/h200/2026-12-04-9a7aff7: 13 samples over 0.26 s).
#include <gtest/gtest.h>

#include <stdexcept>

#include "roofline/repeat_clock.hpp"

using namespace roofline;

namespace {
constexpr double period = 0.020;
constexpr double gemm_8192 = 2.0 * 8192.0 * 8192.0 * 8192.0;  // 1,099,511,627,776 FLOP
}  // namespace

TEST(RepeatClock, AWindowBetweenTwoCloseSamplesIsTimeWeighted) {
  // (0 ms, 1410), (20 ms, 1425), window [5, 8] ms: the line through them averaged over the window,
  // 1410 + 15 × 6.5 ÷ 20 = 1414.875 MHz; 15 MHz apart is 1.06 % of it, within 2 %: resolved.
  const window_clock c = clock_over({{0.0, 1410}, {0.020, 1425}}, 0.005, 0.008, period);
  ASSERT_TRUE(c.mhz) << c.why;
  EXPECT_NEAR(*c.mhz, 1414.875, 1e-9);
  EXPECT_EQ(c.samples, 2);
  EXPECT_DOUBLE_EQ(c.low_mhz, 1410);
  EXPECT_DOUBLE_EQ(c.high_mhz, 1425);
  EXPECT_TRUE(c.why.empty());
}

TEST(RepeatClock, AClockThatMovedBetweenTheSamplesIsUncertain) {
  // (0 ms, 1335), (20 ms, 1485): the same window's time-weighted estimate is 1335 + 150 × 6.5 ÷ 20 =
  // 1383.75 MHz, but 150 MHz apart is 10.8 % of it: during 3 ms the clock may have been anywhere
  // between (or beyond), so no clock is given.
  const window_clock c = clock_over({{0.020, 1485}, {0.0, 1335}}, 0.005, 0.008, period);  // any order
  EXPECT_FALSE(c.mhz);
  EXPECT_NEAR(c.estimate_mhz, 1383.75, 1e-9);
  EXPECT_NE(c.why.find("1335–1485 MHz, 10.8% apart"), std::string::npos) << c.why;
}

TEST(RepeatClock, SamplesInsideALongWindowCountAndAreWeightedByTime) {
  // A 50 ms repeat from 10 to 60 ms over samples every 20 ms: 1500 at 0 and 20 ms, 1485 at 40 ms, 1500 at
  // 60 ms. The line: 1500 over [10, 20], 1500 → 1485 over [20, 40], 1485 → 1500 over [40, 60]; mean =
  // (1500 × 10 + 1492.5 × 20 + 1492.5 × 20) ÷ 50 = 1494 MHz. The samples used are the one at 0 ms (the last
  // before), 20 and 40 ms (inside) and 60 ms (at the end).
  const window_clock c = clock_over({{0.0, 1500}, {0.020, 1500}, {0.040, 1485}, {0.060, 1500}, {0.080, 1200}}, 0.010, 0.060, period);
  ASSERT_TRUE(c.mhz) << c.why;
  EXPECT_NEAR(*c.mhz, 1494.0, 1e-9);
  EXPECT_EQ(c.samples, 4);
  EXPECT_DOUBLE_EQ(c.low_mhz, 1485);  // the 1200 MHz sample at 80 ms is after the first sample at the end
}

TEST(RepeatClock, ARepeatWithoutASampleOnBothSidesOrWithAGapIsUncertain) {
  const window_clock last = clock_over({{0.0, 1410}, {0.020, 1410}}, 0.025, 0.028, period);
  EXPECT_FALSE(last.mhz);
  EXPECT_NE(last.why.find("no telemetry sample after"), std::string::npos) << last.why;
  const window_clock first = clock_over({{0.030, 1410}}, 0.025, 0.028, period);
  EXPECT_FALSE(first.mhz);
  EXPECT_NE(first.why.find("no telemetry sample before"), std::string::npos) << first.why;
  // 80 ms between the samples (a thread that fell behind): 4 periods, more than 2.5
  const window_clock gap = clock_over({{0.0, 1410}, {0.080, 1410}}, 0.025, 0.028, period);
  EXPECT_FALSE(gap.mhz);
  EXPECT_NE(gap.why.find("80.0 ms apart (sampling every 20.0 ms)"), std::string::npos) << gap.why;
  EXPECT_FALSE(clock_over({}, 0, 1, period).mhz);
}

TEST(RepeatClock, TheFastestRepeatAndTheFastestResolvedOne) {
  // Three repeats of an n = 8192 GEMM: 1.60 ms in [1, 4] ms, 1.50 ms in [25, 28] ms, 1.55 ms in [45, 48] ms;
  // samples 1410, 1425, 1335, 1470, 1470 MHz at 0, 20, 30, 40, 60 ms. The fastest (2·8192³ ÷ 1.5 ms =
  // 733.0 TFLOP/s) lies between 1425 and 1335 MHz: uncertain. The fastest resolved (1.55 ms = 709.4 TFLOP/s)
  // lies between 1470 and 1470 MHz.
  const std::vector<clock_point> samples = {{0.000, 1410}, {0.020, 1425}, {0.030, 1335}, {0.040, 1470}, {0.060, 1470}};
  const repeat_clocks r = pair_repeat_clocks(gemm_8192, {1.60e-3, 1.50e-3, 1.55e-3},
                                             {{0.001, 0.004}, {0.025, 0.028}, {0.045, 0.048}}, samples, period);
  EXPECT_EQ(r.repeats, 3);
  EXPECT_EQ(r.resolved, 2);  // [1, 4] ms between 1410 and 1425 (1.06 %), and [45, 48] ms
  EXPECT_FALSE(r.fastest_mhz);
  EXPECT_DOUBLE_EQ(r.fastest_low_mhz, 1335);
  EXPECT_DOUBLE_EQ(r.fastest_high_mhz, 1425);
  EXPECT_NEAR(r.fastest_window_s, 0.003, 1e-15);
  EXPECT_NE(r.fastest_why.find("1335–1425 MHz"), std::string::npos) << r.fastest_why;
  ASSERT_TRUE(r.resolved_flops_per_s && r.resolved_mhz);
  EXPECT_NEAR(*r.resolved_flops_per_s, 709.362e12, 0.001e12);
  EXPECT_NEAR(*r.resolved_mhz, 1470, 1e-9);
  EXPECT_DOUBLE_EQ(r.period_s, period);
  EXPECT_THROW(pair_repeat_clocks(gemm_8192, {1e-3}, {}, samples, period), std::invalid_argument);
}

TEST(RepeatClock, AResolvedFastestRepeatCarriesItsClock) {
  const repeat_clocks r = pair_repeat_clocks(gemm_8192, {1.50e-3, 1.60e-3}, {{0.005, 0.008}, {0.025, 0.028}},
                                             {{0.0, 1410}, {0.020, 1425}, {0.040, 1200}}, period);
  ASSERT_TRUE(r.fastest_mhz) << r.fastest_why;
  EXPECT_NEAR(*r.fastest_mhz, 1414.875, 1e-9);
  EXPECT_TRUE(r.fastest_why.empty());
  EXPECT_EQ(r.resolved, 1);
  EXPECT_NEAR(*r.resolved_flops_per_s, gemm_8192 / 1.5e-3, 1);
}
