// Bandwidth kernels: level labelling on fixed cache sizes, the sweep, the closed form, and a small
// verified run of every pattern.
#include <gtest/gtest.h>

#include "backends/cpu/stream_kernels.hpp"

using namespace roofline::cpu;

namespace {
// This CI machine's caches (AMD EPYC Zen 3 KVM guest): 32 KiB L1d, 512 KiB L2 per core, 32 MiB L3.
const cache_sizes zen3{32 * 1024, 512 * 1024, 32 * 1024 * 1024};
constexpr std::int64_t KiB = 1024, MiB = 1024 * 1024;
}  // namespace

TEST(CpuBandwidth, LevelLabelsOnFixedCaches) {
  EXPECT_EQ(memory_level(48 * KiB, 2, zen3), "l1");    // 24 KiB per thread
  EXPECT_EQ(memory_level(64 * KiB, 2, zen3), "l1");    // exactly L1 per thread
  EXPECT_EQ(memory_level(65 * KiB, 2, zen3), "l2");
  EXPECT_EQ(memory_level(1 * MiB, 2, zen3), "l2");     // 512 KiB per thread
  EXPECT_EQ(memory_level(16 * MiB, 2, zen3), "llc");
  EXPECT_EQ(memory_level(32 * MiB, 2, zen3), "llc");
  EXPECT_EQ(memory_level(64 * MiB, 2, zen3), "mixed");  // between LLC and 4x LLC
  EXPECT_EQ(memory_level(128 * MiB, 2, zen3), "dram");  // 4x LLC
  EXPECT_EQ(memory_level(128 * MiB, 1, zen3), "dram");
  EXPECT_EQ(memory_level(1 * MiB, 1, cache_sizes{}), "unknown");
}

TEST(CpuBandwidth, SweepSpansL1ToFourTimesLlc) {
  const auto s = sweep_sizes(zen3, 2, 16);
  ASSERT_GE(s.size(), 10u);
  EXPECT_LE(s.front(), 64 * KiB);
  EXPECT_GE(s.back(), 128 * MiB);
  for (std::size_t i = 1; i < s.size(); ++i) EXPECT_GT(s[i], s[i - 1]);
  EXPECT_EQ(memory_level(s.front(), 2, zen3), "l1");
  EXPECT_EQ(memory_level(s.back(), 2, zen3), "dram");
  EXPECT_EQ(sweep_sizes(zen3, 2, 5).size(), 5u);
}

TEST(CpuBandwidth, ReadClosedForm) {
  EXPECT_DOUBLE_EQ(read_closed_form(1), 0.5);
  EXPECT_DOUBLE_EQ(read_closed_form(3), 0.5 + 1.5 + 2.5);
  EXPECT_DOUBLE_EQ(read_closed_form(1024), 1024.0 * 1023.0 / 2.0 + 512.0);
  EXPECT_DOUBLE_EQ(read_closed_form(2048), 2.0 * (1024.0 * 1023.0 / 2.0 + 512.0));
}

TEST(CpuBandwidth, EveryPatternVerifiedAndPositiveAtSmallSize) {
  stream_arrays a(3 * MiB, 2);
  for (auto p : {stream_pattern::read, stream_pattern::write, stream_pattern::copy, stream_pattern::triad, stream_pattern::read}) {
    const std::int64_t n = 1000 + 8 * 37;  // not a multiple of the unroll
    const double s = a.run(p, n, 3);
    EXPECT_GT(s, 0) << to_string(p);
  }
}
