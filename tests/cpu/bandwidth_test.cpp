// Bandwidth kernels: level labelling on fixed cache sizes, the sweep, the closed form, and a small
// verified run of every pattern.
#include <gtest/gtest.h>

#include "backends/cpu/stream_kernels.hpp"
#include "roofline/error.hpp"

using namespace roofline::cpu;

namespace {
// AMD EPYC Zen 3 caches: 32 KiB L1d, 512 KiB L2 per core, 32 MiB L3.
const cache_sizes zen3{32 * 1024, 512 * 1024, 32 * 1024 * 1024};
constexpr std::int64_t KiB = 1024, MiB = 1024 * 1024;
}  // namespace

TEST(CpuBandwidth, LevelLabelsOnFixedCaches) {
  auto level = [](std::int64_t ws, int t, const cache_sizes& c) { return memory_level(ws, t, c).level; };
  EXPECT_EQ(level(48 * KiB, 2, zen3), "l1");        // 24 KiB per thread = 3/4 L1d
  EXPECT_EQ(level(64 * KiB, 2, zen3), "l1+l2");     // 32 KiB per thread: the whole L1d, partly cached
  EXPECT_EQ(level(128 * KiB, 2, zen3), "l2");       // 2 × L1d per thread
  EXPECT_EQ(level(768 * KiB, 2, zen3), "l2");       // 3/4 L2 per thread
  EXPECT_EQ(level(1 * MiB, 2, zen3), "l2+llc");     // 512 KiB per thread: the whole L2
  EXPECT_EQ(level(2 * MiB, 2, zen3), "llc");        // 2 × L2 per thread
  EXPECT_EQ(level(24 * MiB, 2, zen3), "llc");       // 3/4 LLC
  EXPECT_EQ(level(32 * MiB, 2, zen3), "llc+dram");  // the whole LLC
  EXPECT_EQ(level(64 * MiB, 2, zen3), "llc+dram");
  // device memory from 4 × (L3 + every thread's L2), STREAM's "sum of all the caches": 4 × 33 MiB on 2 threads
  EXPECT_EQ(level(128 * MiB, 2, zen3), "llc+dram");  // 4 × the L3 alone is not enough
  EXPECT_EQ(level(132 * MiB, 2, zen3), "dram");
  EXPECT_EQ(level(130 * MiB, 1, zen3), "dram");      // 4 × 32.5 MiB
  EXPECT_EQ(level(129 * MiB, 1, zen3), "llc+dram");
  EXPECT_EQ(level(1 * MiB, 1, cache_sizes{}), "unknown");
  EXPECT_EQ(memory_level(48 * KiB, 2, zen3).why, "L1: 24 KiB per thread <= 3/4 of the 32 KiB L1d");
  EXPECT_EQ(memory_level(132 * MiB, 2, zen3).why, "DRAM: 132 MiB in total >= 4× the 33 MiB of L3 and L2 caches");
  // none reported: beyond 4 × the assumed 64 MiB, device memory; below it, unknown
  EXPECT_EQ(level(256 * MiB, 2, cache_sizes{}), "dram");
}

TEST(CpuBandwidth, SweepHasPointsInsideEveryLevel) {
  const auto s = sweep_sizes(zen3, 2, 1, false);
  std::vector<std::string> levels;
  for (auto x : s) levels.push_back(memory_level(x, 2, zen3).level);
  EXPECT_EQ(levels, (std::vector<std::string>{"l1", "l1", "l1", "l1+l2", "l2", "l2", "l2", "l2+llc", "llc", "llc",
                                              "llc", "llc+dram", "dram"}));
  for (std::size_t i = 1; i < s.size(); ++i) EXPECT_GT(s[i], s[i - 1]);
  for (auto x : s) EXPECT_EQ(x % (384 * 2), 0);
  // Device memory: every array of a triad at 4 × (L3 + 2 × L2) = 132 MiB (STREAM's rule), 396 MiB in all.
  EXPECT_EQ(sweep_sizes(zen3, 2, 3, false).back(), 396 * MiB);
  const auto quick = sweep_sizes(zen3, 2, 1, true);
  levels.clear();
  for (auto x : quick) levels.push_back(memory_level(x, 2, zen3).level);
  EXPECT_EQ(levels, (std::vector<std::string>{"l1", "l2", "llc", "dram"}));
}

TEST(CpuBandwidth, NonTemporalStoresOnlyBeyondTheCaches) {
  EXPECT_EQ(kernels_for(stream_pattern::copy, false), (std::vector<stream_kernel>{stream_kernel::plain}));
  EXPECT_EQ(kernels_for(stream_pattern::copy, true),
            (std::vector<stream_kernel>{stream_kernel::plain, stream_kernel::nontemporal, stream_kernel::memcpy}));
  EXPECT_EQ(kernels_for(stream_pattern::read, true), (std::vector<stream_kernel>{stream_kernel::plain, stream_kernel::read4}));
  EXPECT_EQ(kernels_for(stream_pattern::triad, true),
            (std::vector<stream_kernel>{stream_kernel::plain, stream_kernel::nontemporal}));
}

TEST(CpuBandwidth, ReadClosedForm) {
  EXPECT_DOUBLE_EQ(read_closed_form(1), 0.5);
  EXPECT_DOUBLE_EQ(read_closed_form(3), 0.5 + 1.5 + 2.5);
  EXPECT_DOUBLE_EQ(read_closed_form(1024), 1024.0 * 1023.0 / 2.0 + 512.0);
  EXPECT_DOUBLE_EQ(read_closed_form(2048), 2.0 * (1024.0 * 1023.0 / 2.0 + 512.0));
}

TEST(CpuBandwidth, EveryPatternAndKernelVerifiedAndPositiveAtSmallSize) {
  stream_arrays a(3 * MiB / 8, 2);
  for (auto p : {stream_pattern::read, stream_pattern::write, stream_pattern::copy, stream_pattern::triad, stream_pattern::read})
    for (auto k : kernels_for(p, true)) {
      const std::int64_t n = 1000 + 8 * 37;  // not a multiple of the unroll
      const double s = a.run(p, n, 3, k);
      EXPECT_GT(s, 0) << to_string(p) << " " << to_string(k);
    }
  EXPECT_THROW(a.run(stream_pattern::read, 1000, 1, stream_kernel::nontemporal), roofline::probe_error);
}
