// The CPU probes' sizing over a table of cache geometries, none of them the host's: every buffer,
// pool and working set the probes derive from the cache sizes keeps the probe's own preconditions
// (probe_sizing.hpp). A 2-vCPU Zen 5 guest (32 MiB L3, 2 MiB L2) once failed `run --quick` because
// the small-work pool was 3 × LLC = 96 MiB and its 64 MiB copy needed two slots.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "backends/cpu/cpu_buffers.hpp"
#include "backends/cpu/probe_latency.hpp"
#include "backends/cpu/probe_sizing.hpp"
#include "backends/cpu/stream_kernels.hpp"
#include "roofline/measure.hpp"

using namespace roofline;
using namespace roofline::cpu;

namespace {

constexpr std::int64_t KiB = 1024, MiB = 1024 * KiB, GiB = 1024 * MiB;

std::vector<cache_sizes> geometries() {
  std::vector<cache_sizes> g;
  const std::int64_t llcs[] = {0, 8 * MiB, 16 * MiB, 32 * MiB, 96 * MiB, 260 * MiB, 508 * MiB, 1 * GiB};
  const std::int64_t l2s[] = {0, 256 * KiB, 1 * MiB, 2 * MiB, 64 * MiB};
  const std::int64_t l1s[] = {0, 32 * KiB, 48 * KiB};
  for (auto llc : llcs)
    for (auto l2 : l2s)
      for (auto l1 : l1s) g.push_back({l1, l2, llc});
  return g;
}

std::string name(const cache_sizes& c, int threads, bool quick) {
  return fmt::format("L1d {} KiB, L2 {} KiB, LLC {} MiB, {} threads{}", c.l1d / KiB, c.l2 / KiB, c.l3_total / MiB, threads,
                     quick ? ", quick" : "");
}

}  // namespace

TEST(CpuSizing, SmallWorkPreconditionsHoldForEveryGeometry) {
  for (const auto& c : geometries())
    for (int threads : {1, 2, 16, 256})
      for (bool quick : {true, false}) {
        const small_work_plan p = plan_small_work(c, threads, quick);
        const auto bad = small_work_violations(p);
        EXPECT_TRUE(bad.empty()) << name(c, threads, quick) << ": " << (bad.empty() ? "" : bad.front());
      }
}

TEST(CpuSizing, TheZen5GuestThatFailedGetsTwoCopySlots) {
  // 32 MiB L3, 2 MiB L2, 2 threads, --quick: the pool was max(64 MiB, 3 × 32 MiB) = 96 MiB < 2 × 64 MiB.
  const small_work_plan p = plan_small_work({48 * KiB, 2 * MiB, 32 * MiB}, 2, true);
  EXPECT_EQ(p.copy_bytes, 64 * MiB);
  EXPECT_EQ(p.pool_bytes, 128 * MiB);  // max(64 MiB, 2 × 64 MiB, 3 × 32 MiB)
  EXPECT_EQ(p.ramp.back(), 64 * MiB);
  // a 508 MiB L3 (as a Zen 5 guest reported a whole socket's) and two 1 MiB L2s: 3 × 510 MiB dominates
  EXPECT_EQ(plan_small_work({48 * KiB, 1 * MiB, 508 * MiB}, 2, true).pool_bytes, 3 * 510 * MiB);
  // none reported: the assumed 64 MiB LLC
  EXPECT_EQ(plan_small_work({0, 0, 0}, 2, false).llc_bytes, assumed_llc_bytes);
  EXPECT_EQ(plan_small_work({0, 0, 0}, 2, false).pool_bytes, 1 * GiB);
}

TEST(CpuSizing, ViolationsAreFoundWhenAPreconditionBreaks) {
  // The check itself can fail: the old sizing on the 32 MiB guest is named.
  small_work_plan p = plan_small_work({48 * KiB, 2 * MiB, 32 * MiB}, 2, true);
  p.pool_bytes = 96 * MiB;
  const auto bad = small_work_violations(p);
  ASSERT_FALSE(bad.empty());
  EXPECT_NE(bad.front().find("two slots"), std::string::npos) << bad.front();
  p = plan_small_work({48 * KiB, 2 * MiB, 508 * MiB}, 2, true);
  p.pool_bytes = 1 * GiB;  // under 3 × LLC
  EXPECT_FALSE(small_work_violations(p).empty());
  EXPECT_FALSE(sweep_violations({4096, 2048}, {32 * KiB, 1 * MiB, 32 * MiB}, 1, 1).empty());  // not increasing, too small for DRAM
}

TEST(CpuSizing, BandwidthSweepPreconditionsHoldForEveryGeometry) {
  for (const auto& c : geometries())
    for (int threads : {1, 2, 16, 256})
      for (int arrays : {1, 2, 3})
        for (bool quick : {true, false}) {
          const auto sizes = sweep_sizes(c, threads, arrays, quick);
          const auto bad = sweep_violations(sizes, c, threads, arrays);
          EXPECT_TRUE(bad.empty()) << name(c, threads, quick) << ", " << arrays << " arrays: " << (bad.empty() ? "" : bad.front());
        }
}

TEST(CpuSizing, RotationCoversTwiceTheCachesUnlessTheMemoryCapBinds) {
  for (const auto& c : geometries())
    for (int threads : {1, 2, 16}) {
      const std::int64_t caches = sizing_cache_bytes(c, threads);
      for (double bytes : {64.0, 4096.0, 1.0 * MiB, 16.0 * MiB, 1.0 * GiB, 4.0 * GiB})
        for (int cap : {64, 4096}) {
          const int copies = rotation_copies(bytes, caches, cap);
          EXPECT_GE(copies, 1);
          EXPECT_LE(copies, cap);
          if (copies < cap)
            EXPECT_GE(copies * bytes, 2.0 * static_cast<double>(caches)) << name(c, threads, false) << ", " << bytes << " B per copy";
        }
    }
  EXPECT_EQ(rotation_copies(16.0 * MiB, 260 * MiB, 64), 33);  // ceil(520 / 16)
  // the cap bounds a tiny op's copies (a whole step keeps every op's at once)
  EXPECT_EQ(rotation_copies(64.0, 264 * MiB, 4096), 4096);
}

TEST(CpuSizing, QuickSmallWorkProbeRunsSizedForA32MiBLlc) {
  // The probe itself, sized for the guest that failed (not for this host): pool 128 MiB, copy 64 MiB.
  const small_work_result r = measure_small_work(quick_timing(), true, {48 * KiB, 2 * MiB, 32 * MiB});
  EXPECT_TRUE(r.verified);
  ASSERT_TRUE(r.write_copy.has_value());
  EXPECT_EQ(r.write_copy->bytes, 64.0 * MiB);
  EXPECT_NE(r.method.find("128 MiB pool"), std::string::npos) << r.method;
}

namespace roofline::cpu {
namespace {

// /sys/kernel/mm/transparent_hugepage/defrag as the kernel prints it (Linux
// Documentation/admin-guide/mm/transhuge.rst): the policy in brackets. Debian 12's default is
// "madvise", under which MADV_HUGEPAGE regions compact memory at fault time.
TEST(HugePages, AdviceOnlyWhereTheKernelWillNotCompactAtFaultTime) {
  EXPECT_TRUE(huge_page_advice_stalls("always defer defer+madvise [madvise] never\n"));
  EXPECT_TRUE(huge_page_advice_stalls("[always] defer defer+madvise madvise never\n"));
  EXPECT_TRUE(huge_page_advice_stalls("always defer [defer+madvise] madvise never\n"));
  EXPECT_FALSE(huge_page_advice_stalls("always [defer] defer+madvise madvise never\n"));
  EXPECT_FALSE(huge_page_advice_stalls("always defer defer+madvise madvise [never]\n"));
  EXPECT_FALSE(huge_page_advice_stalls(""));  // unreadable: advise as before
}

}  // namespace
}  // namespace roofline::cpu

namespace roofline::cpu {
namespace {

// The square GEMM sweep stops once a size took ≥ 0.1 s a call and was no faster than the best before
// it. The 2-vCPU Xeon guest's fp32 rates (2026-12-03): 256 → 55, 512 → 63.1, 1024 → 58, 2048 → 52 GFLOP/s.
TEST(GemmSweep, StopsWhereTheRateHasLevelledAndACallIsLong) {
  std::vector<gemm_size_point> p = {{256, 55e9}, {512, 63.1e9}};
  EXPECT_EQ(gemm_sweep_stop(p), "");  // 512 improved on 256
  p.push_back({1024, 58e9});          // 2·1024³ ÷ 58e9 = 0.037 s: too short a call to judge by
  EXPECT_EQ(gemm_sweep_stop(p), "");
  p.push_back({2048, 52e9});          // 0.33 s a call, slower than n = 512
  EXPECT_EQ(gemm_sweep_stop(p),
            "larger sizes not run: n = 2048 (52 GFLOP/s, 0.33 s a call) was no faster than n = 512 "
            "(63.1 GFLOP/s); the next size is 8× the work");
  // a machine whose rate still climbs runs every size
  EXPECT_EQ(gemm_sweep_stop({{256, 100e9}, {512, 400e9}, {1024, 900e9}, {2048, 1.5e12}}), "");
  // the best of repeats decides (the roof's statistic), the median only the call's time: a noisy guest
  // (2026-12-03) timed fp32 n = 512 at 36.6 median / 61.8 best and n = 2048 at 49.9 / 53.3 GFLOP/s
  EXPECT_NE(gemm_sweep_stop({{256, 36.4e9, 62.4e9}, {512, 36.6e9, 61.8e9}, {1024, 35.7e9, 45.9e9}, {2048, 49.9e9, 53.3e9}}), "");
  // within the 2 % gain the rate has levelled
  EXPECT_NE(gemm_sweep_stop({{1024, 100e9}, {2048, 101e9}}), "");
  EXPECT_EQ(gemm_sweep_stop({{1024, 100e9}, {2048, 103e9}}), "");
}

}  // namespace
}  // namespace roofline::cpu
