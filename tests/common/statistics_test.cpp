#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "roofline/error.hpp"
#include "roofline/measure.hpp"

using namespace roofline;

TEST(Statistics, MedianOfEvenCountIsMeanOfMiddlePair) { EXPECT_DOUBLE_EQ(median({1, 2, 3, 4}), 2.5); }
TEST(Statistics, MedianOfOddCountIsMiddle) { EXPECT_DOUBLE_EQ(median({5, 1, 3}), 3.0); }
TEST(Statistics, MedianOfEmptyThrows) { EXPECT_THROW(median({}), std::invalid_argument); }

TEST(Statistics, SummaryGivesSpreadRelativeToMedian) {
  const auto s = summarize({2.0, 4.0, 3.0, 1.0});
  EXPECT_EQ(s.n, 4);
  EXPECT_DOUBLE_EQ(s.min, 1.0);
  EXPECT_DOUBLE_EQ(s.max, 4.0);
  EXPECT_DOUBLE_EQ(s.median, 2.5);
  EXPECT_DOUBLE_EQ(s.mean, 2.5);
  EXPECT_DOUBLE_EQ(s.spread, (3.25 - 1.75) / 2.5);  // IQR (type-7 quartiles 1.75, 3.25) / median
  EXPECT_DOUBLE_EQ(s.range, 3.0 / 2.5);
}

TEST(Statistics, QuantilesInterpolateLikeNumpy) {
  // numpy.quantile([1, 2, 3, 4], [0, .25, .5, .75, 1]) == [1, 1.75, 2.5, 3.25, 4]
  EXPECT_DOUBLE_EQ(quantile({4, 1, 3, 2}, 0.0), 1.0);
  EXPECT_DOUBLE_EQ(quantile({4, 1, 3, 2}, 0.25), 1.75);
  EXPECT_DOUBLE_EQ(quantile({4, 1, 3, 2}, 0.5), 2.5);
  EXPECT_DOUBLE_EQ(quantile({4, 1, 3, 2}, 0.75), 3.25);
  EXPECT_DOUBLE_EQ(quantile({4, 1, 3, 2}, 1.0), 4.0);
  EXPECT_DOUBLE_EQ(quantile({7}, 0.25), 7.0);
  EXPECT_THROW(quantile({}, 0.5), std::invalid_argument);
  EXPECT_THROW(quantile({1, 2}, 1.5), std::invalid_argument);
}

TEST(Statistics, OneOutlierMovesTheRangeNotTheRobustSpread) {
  // Nine repeats at 1.00–1.02 ms and one preempted at 5 ms: the range says 400 %, the IQR 1 %.
  const auto s = summarize({1.00, 1.01, 1.02, 1.00, 1.01, 1.02, 1.00, 1.01, 1.02, 5.0});
  EXPECT_GT(s.range, 3.9);
  EXPECT_LT(s.spread, 0.03);
}

TEST(Statistics, RatesUseMinTimeForBestAndMedianTimeForMedian) {
  const auto r = rates(100.0, {1.0, 2.0, 4.0});
  EXPECT_DOUBLE_EQ(r.best, 100.0);
  EXPECT_DOUBLE_EQ(r.median, 50.0);
  EXPECT_EQ(r.repeats, 3);
}

TEST(Timing, RepeatsAtLeastMinRepeatsAfterWarmups) {
  int calls = 0;
  timing_options o{2, 5, 10, 0.0, 10.0};
  const auto xs = time_repeated([&] { ++calls; return 1e-3; }, o);
  EXPECT_EQ(xs.size(), 5u);
  EXPECT_EQ(calls, 7);
}

TEST(Timing, BudgetCountsElapsedSecondsNotTheReturnedUnit) {
  // Each run takes >= 5 ms but reports 1 µs (the time per call of a batch): a 20 ms budget ends
  // after about 4 runs (at least min_repeats = 3), not at max_repeats = 50.
  timing_options o{0, 3, 50, 0.02, 10.0};
  const auto xs = time_repeated([] { std::this_thread::sleep_for(std::chrono::milliseconds(5)); return 1e-6; }, o);
  EXPECT_GE(xs.size(), 3u);
  EXPECT_LE(xs.size(), 5u);
}

TEST(Timing, NonPositiveTimeIsAProbeError) {
  EXPECT_THROW(time_repeated([] { return 0.0; }, timing_options{0, 1, 1, 0, 1}), probe_error);
}
