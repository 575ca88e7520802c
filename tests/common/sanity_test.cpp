#include <gtest/gtest.h>

#include "roofline/analysis.hpp"
#include "roofline/json.hpp"
#include "roofline/sanity.hpp"

using namespace roofline;

namespace {
results gpu_like() {
  results r;
  r.device.kind = "cuda";
  r.device.properties = json{{"l2_bytes", 72.0 * 1024 * 1024}};  // a 72 MB-L2 GPU
  r.nominal.memory_bandwidth_bytes_per_s = 4.8e12;
  r.nominal.peaks.push_back({"bf16", "fp32", "tensor", 989e12, "", {}, std::nullopt, ""});
  return r;
}
bandwidth_result point(const std::string& pattern, const std::string& level, double gb_s, std::int64_t ws) {
  bandwidth_result b;
  b.pattern = pattern;
  b.level = level;
  b.bytes_per_s = gb_s * 1e9;
  b.median_bytes_per_s = b.bytes_per_s;
  b.working_set_bytes = ws;
  b.spread = 0.02;
  return b;
}
constexpr std::int64_t MiB = 1024 * 1024;

/// The H200's honest read hierarchy (2026-11-30: gpu-benches gpu-cache L1 25–29 TB/s, gpu-l2-cache
/// L2 10–12.8 TB/s, HBM 4.6 TB/s).
results h200_reads() {
  results r = gpu_like();
  r.measured.bandwidth = {point("read", "l1", 27000, 16 * MiB), point("read", "l1", 26500, 8 * MiB),
                          point("read", "l2", 11500, 15 * MiB), point("read", "l2", 9500, 45 * MiB),
                          point("read", "l2+dram", 6000, 120 * MiB), point("read", "dram", 4600, 4096 * MiB)};
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

TEST(SanityRules, HonestHierarchyIsKept) {
  results r = h200_reads();
  EXPECT_EQ(reject_impossible(r), 0);
  for (const auto& b : r.measured.bandwidth) EXPECT_FALSE(b.rejected) << b.level << " " << b.rejected_reason;
}

TEST(SanityRules, L1PointLabelledL2AndTransitionAboveL2AreRejected) {
  // The H200 fault of 2026-11-30: a read kernel re-reading each block's few kB hit L1 at 16 MiB and
  // was labelled L2 (22.8 TB/s), and "l2+dram" points of 32–128 MiB read 17–23 TB/s.
  results r = h200_reads();
  r.measured.bandwidth.push_back(point("read", "l2", 22800, 16 * MiB));       // an L1 rate labelled L2
  r.measured.bandwidth.push_back(point("read", "l2+dram", 17300, 128 * MiB));  // above the L2 best
  EXPECT_EQ(reject_impossible(r), 2);
  const auto& l1_as_l2 = r.measured.bandwidth[6];
  const auto& high_transition = r.measured.bandwidth[7];
  EXPECT_TRUE(l1_as_l2.rejected);
  EXPECT_EQ(l1_as_l2.rejected_reason,
            "L2 22800.0 GB/s is within 25% of the L1 best of 27000.0 GB/s: served by the L1, not the L2");
  EXPECT_TRUE(high_transition.rejected);
  EXPECT_EQ(high_transition.rejected_reason,
            "transition l2+dram at 17300.0 GB/s is faster than the L2 best of 11500.0 GB/s: it must lie between its "
            "neighbours");
  EXPECT_TRUE(has_flag(l1_as_l2.flags, "rejected: L2 22800.0 GB/s"));
  for (std::size_t i = 0; i < 6; ++i) EXPECT_FALSE(r.measured.bandwidth[i].rejected) << i;
  // Never a roof: the L2 roof is the honest 11.5 TB/s, not 22.8.
  const roofline_summary s = summarize_roofline(r.nominal, r.measured, "bf16");
  ASSERT_TRUE(s.l2_bandwidth_measured);
  EXPECT_DOUBLE_EQ(*s.l2_bandwidth_measured, 11500e9);
  EXPECT_DOUBLE_EQ(s.bandwidth_measured, 4600e9);
  EXPECT_EQ(reject_impossible(r), 0);  // idempotent
}

TEST(SanityRules, CacheLevelFasterThanTheLevelAboveIsRejected) {
  results r = h200_reads();
  r.measured.bandwidth.push_back(point("read", "l2", 30000, 20 * MiB));
  EXPECT_EQ(reject_impossible(r), 1);
  EXPECT_EQ(r.measured.bandwidth.back().rejected_reason,
            "L2 30000.0 GB/s is faster than the L1 best of 27000.0 GB/s: a level cannot exceed the level above it");
}

TEST(SanityRules, WritesToL2SlowerThanDeviceMemoryAreNotAnL2Roof) {
  // 2026-11-30 H200: "L2" writes of 4.3 TB/s beside HBM writes of 4.66 TB/s. Every HBM byte passes
  // through L2, so the L2 points were not measured at L2's rate; the HBM roof stays.
  results r = gpu_like();
  r.measured.bandwidth = {point("write", "l2", 4304, 16 * MiB), point("write", "dram", 4656, 4096 * MiB)};
  EXPECT_EQ(reject_impossible(r), 1);
  EXPECT_TRUE(r.measured.bandwidth[0].rejected);
  EXPECT_FALSE(r.measured.bandwidth[1].rejected);
  EXPECT_EQ(r.measured.bandwidth[0].rejected_reason,
            "L2 4304.0 GB/s is slower than device memory (4656.0 GB/s), whose every byte passes through the L2: not "
            "measured at the L2's rate");
}

TEST(SanityRules, TransitionBelowDeviceMemoryAndDramAboveNominalAreRejected) {
  results r = h200_reads();
  r.measured.bandwidth.push_back(point("read", "l2+dram", 3000, 90 * MiB));    // below HBM by 35%
  r.measured.bandwidth.push_back(point("read", "dram", 5400, 1024 * MiB));     // 12.5% above 4.8 TB/s nominal
  r.measured.bandwidth.push_back(point("copy", "dram", 9000, 32 * MiB));       // in the 72 MB L2
  EXPECT_EQ(reject_impossible(r), 3);
  EXPECT_EQ(r.measured.bandwidth[6].rejected_reason,
            "transition l2+dram at 3000.0 GB/s is slower than every device memory point (slowest 4600.0 GB/s): it "
            "must lie between its neighbours");
  EXPECT_EQ(r.measured.bandwidth[7].rejected_reason,
            "5400.0 GB/s is 12.5% above the nominal memory bandwidth 4800.0 GB/s");
  EXPECT_EQ(r.measured.bandwidth[8].rejected_reason,
            "working set (32 MiB) fits in the last-level cache (72 MiB): not a device-memory number");
}

TEST(SanityRules, CpuLlcComparedWithL2) {
  // A 2-thread CPU: L1 ~ 400, L2 ~ 200, LLC ~ 90, DRAM ~ 40 GB/s; an "llc" read at an L2 rate is rejected.
  results r;
  r.device.kind = "cpu";
  r.device.properties = json{{"l3_bytes", 32.0 * MiB}};
  r.measured.bandwidth = {point("read", "l1", 400, 64 * 1024), point("read", "l2", 200, 1 * MiB),
                          point("read", "llc", 90, 16 * MiB), point("read", "llc", 190, 8 * MiB),
                          point("read", "llc+dram", 60, 64 * MiB), point("read", "dram", 40, 384 * MiB),
                          // writes may be bound by the same path at two levels: close is not rejected
                          point("write", "l1", 100, 64 * 1024), point("write", "l2", 95, 1 * MiB)};
  EXPECT_EQ(reject_impossible(r), 1);
  EXPECT_TRUE(r.measured.bandwidth[3].rejected);
  EXPECT_FALSE(r.measured.bandwidth[7].rejected);
  EXPECT_EQ(r.measured.bandwidth[3].rejected_reason,
            "LLC 190.0 GB/s is within 25% of the L2 best of 200.0 GB/s: served by the L2, not the LLC");
}
