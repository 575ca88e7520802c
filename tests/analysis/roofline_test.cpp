#include <gtest/gtest.h>

#include "fixtures.hpp"
#include "roofline/analysis.hpp"
#include "roofline/json.hpp"

using namespace roofline;

TEST(Roofline, RidgeOfTheH200IsAbout206FlopPerByte) {
  // 989 TFLOP/s dense fp16 ÷ 4.8 TB/s (NVIDIA H200 datasheet).
  EXPECT_NEAR(ridge_point(989e12, 4.8e12), 206.04, 0.01);
}

TEST(Roofline, AttainableIsTheLowerOfTheTwoRoofs) {
  EXPECT_DOUBLE_EQ(attainable_flops(1.0, 989e12, 4.8e12), 4.8e12);      // decode-like: bandwidth × 1 FLOP/B
  EXPECT_DOUBLE_EQ(attainable_flops(1000.0, 989e12, 4.8e12), 989e12);   // large GEMM: the compute roof
  EXPECT_NEAR(attainable_flops(206.04, 989e12, 4.8e12), 989e12, 1e11);  // at the ridge both agree
}

TEST(Roofline, SummaryTakesBestGemmAndBestDeviceMemoryPattern) {
  const results r = test::h200_results();
  const roofline_summary s = summarize_roofline(r.nominal, r.measured, "fp16");
  EXPECT_DOUBLE_EQ(s.peak_nominal, 989e12);
  EXPECT_DOUBLE_EQ(s.peak_measured, 760e12);      // the n=8192 GEMM
  EXPECT_DOUBLE_EQ(s.bandwidth_measured, 4.3e12);  // write is the best HBM pattern
  ASSERT_TRUE(s.bandwidth_nominal);
  EXPECT_DOUBLE_EQ(*s.bandwidth_nominal, 4.8e12);
  ASSERT_TRUE(s.l2_bandwidth_measured);
  EXPECT_DOUBLE_EQ(*s.l2_bandwidth_measured, 10e12);
  ASSERT_TRUE(s.ridge_nominal);
  EXPECT_NEAR(*s.ridge_nominal, 206.04, 0.01);
  EXPECT_NEAR(s.ridge_measured, 760e12 / 4.3e12, 1e-9);
  // fp16 and fp32 both have a nominal peak and a measured GEMM.
  ASSERT_EQ(s.per_precision->size(), 2u);
  EXPECT_EQ((*s.per_precision)[0]["precision"], "fp16");
  EXPECT_EQ((*s.per_precision)[1]["precision"], "fp32");
  EXPECT_NEAR((*s.per_precision)[1]["ridge_nominal"].get<double>(), 67e12 / 4.8e12, 1e-9);
  EXPECT_TRUE(roofline_gaps(s).empty());
}

TEST(Roofline, CpuFallsBackToTheVectorResultAndSaysWhatIsMissing) {
  nominal_roofs nom;
  nom.peaks = {{"fp32", "", "vector", 1.2e12, "", {}, std::nullopt, ""}};
  nom.memory_bandwidth_reason = "memory channels unknown";
  measured_roofs m;
  compute_result v;
  v.precision = "fp32";
  v.engine = "vector";
  v.flops_per_s = 1.0e12;
  m.compute = {v};
  const roofline_summary s = summarize_roofline(nom, m, "fp32");
  EXPECT_DOUBLE_EQ(s.peak_nominal, 1.2e12);
  EXPECT_DOUBLE_EQ(s.peak_measured, 1.0e12);
  EXPECT_FALSE(s.bandwidth_nominal);
  EXPECT_FALSE(s.ridge_nominal);
  EXPECT_EQ(s.ridge_measured, 0.0);
  EXPECT_EQ(roofline_gaps(s).size(), 5u);  // bw nominal, bw measured, l2, both ridges
}

TEST(Roofline, NoDataGivesZerosNeverADefault) {
  const roofline_summary s = summarize_roofline(nominal_roofs{}, measured_roofs{}, "fp16");
  EXPECT_EQ(s.peak_nominal, 0.0);
  EXPECT_EQ(s.peak_measured, 0.0);
  EXPECT_EQ(s.bandwidth_measured, 0.0);
  EXPECT_TRUE(s.per_precision->empty());
  EXPECT_EQ(roofline_gaps(s).size(), 7u);
}
