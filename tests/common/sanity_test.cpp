#include <gtest/gtest.h>

#include "roofline/sanity.hpp"

using namespace roofline;

namespace {
results gpu_like() {
  results r;
  r.device.kind = "cuda";
  r.device.properties = {{"l2_bytes", 72.0 * 1024 * 1024}};  // a 72 MB-L2 GPU
  r.nominal.memory_bandwidth_bytes_per_s = 4.8e12;
  r.nominal.peaks.push_back({"bf16", "fp32", "tensor", 989e12, "", {}, std::nullopt, ""});
  return r;
}
bool has_flag(const std::vector<std::string>& flags, const std::string& needle) {
  for (const auto& f : flags)
    if (f.find(needle) != std::string::npos) return true;
  return false;
}
}  // namespace

TEST(Sanity, L2SizedDramWorkingSetIsFlagged) {
  results r = gpu_like();
  bandwidth_result b;
  b.pattern = "copy";
  b.level = "dram";
  b.working_set_bytes = 32ll * 1024 * 1024;  // 32 MiB "beating" HBM on a 72 MB-L2 GPU
  b.bytes_per_s = 9e12;
  r.measured.bandwidth.push_back(b);
  EXPECT_GE(flag_results(r), 2);
  EXPECT_TRUE(has_flag(r.measured.bandwidth[0].flags, "fits in the last-level cache"));
  EXPECT_TRUE(has_flag(r.measured.bandwidth[0].flags, "above the nominal memory bandwidth"));
}

TEST(Sanity, HonestNumbersAreNotFlagged) {
  results r = gpu_like();
  bandwidth_result b;
  b.pattern = "read";
  b.level = "dram";
  b.working_set_bytes = 4ll << 30;
  b.bytes_per_s = 4.4e12;
  b.spread = 0.02;
  r.measured.bandwidth.push_back(b);
  compute_result c;
  c.precision = "bf16";
  c.engine = "gemm";
  c.flops_per_s = 700e12;
  c.spread = 0.03;
  r.measured.compute.push_back(c);
  EXPECT_EQ(flag_results(r), 0);
}

TEST(Sanity, UnsynchronisedGemmAboveNominalIsFlagged) {
  results r = gpu_like();
  compute_result c;
  c.precision = "bf16";
  c.engine = "gemm";
  c.flops_per_s = 1.2e15;  // "967 TFLOP/s"-style timing without synchronisation, worse
  r.measured.compute.push_back(c);
  EXPECT_EQ(flag_results(r), 1);
  EXPECT_TRUE(has_flag(r.measured.compute[0].flags, "above the nominal bf16 peak"));
}

TEST(Sanity, ThrottledSamplesCarryTheReason) {
  results r = gpu_like();
  compute_result c;
  c.precision = "bf16";
  c.flops_per_s = 650e12;
  telemetry_summary t;
  t.throttled_fraction = 0.9;
  t.throttle_reasons = {"sw_power_cap"};
  c.telemetry = t;
  r.measured.compute.push_back(c);
  EXPECT_EQ(flag_results(r), 1);
  EXPECT_TRUE(has_flag(r.measured.compute[0].flags, "sw_power_cap"));
}

TEST(Sanity, FlaggingTwiceAddsNothing) {
  results r = gpu_like();
  compute_result c;
  c.precision = "bf16";
  c.flops_per_s = 1.2e15;
  r.measured.compute.push_back(c);
  EXPECT_EQ(flag_results(r), 1);
  EXPECT_EQ(flag_results(r), 0);
}
