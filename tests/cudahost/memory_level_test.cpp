// Memory-level labels and the working-set sweep, for the H200's 60 MiB L2 (cudaDeviceProp::l2CacheSize
// 62914560 as PyTorch reports "60 MB") and a T4's 4 MiB L2.
#include <gtest/gtest.h>

#include "backends/cuda/memory_level.hpp"
#include "backends/cuda/stream_kernels.hpp"

using namespace roofline::cuda;

namespace {
constexpr std::int64_t KiB = 1024, MiB = 1024 * KiB, GiB = 1024 * MiB;
constexpr std::int64_t h200_l2 = 60 * MiB;
}  // namespace

TEST(MemoryLevel, LabelsAgainstL2) {
  EXPECT_EQ(label_memory_level(256 * KiB, h200_l2, true).level, "l2");
  EXPECT_EQ(label_memory_level(30 * MiB, h200_l2, true).level, "l2");
  const auto mid = label_memory_level(64 * MiB, h200_l2, true);
  EXPECT_EQ(mid.level, "l2+dram");
  EXPECT_EQ(mid.flag, "transition: working set is 1.07× L2");
  EXPECT_EQ(label_memory_level(128 * MiB, h200_l2, true).level, "l2+dram");
  const auto hbm = label_memory_level(240 * MiB, h200_l2, true);
  EXPECT_EQ(hbm.level, "dram");
  EXPECT_EQ(hbm.flag, "hbm");
  EXPECT_EQ(label_memory_level(4 * GiB, h200_l2, false).flag, "");
  EXPECT_EQ(label_memory_level(1 * KiB, 0, false).level, "dram");
}

TEST(MemoryLevel, SweepReachesEightTimesL2) {
  const auto h200 = sweep_sizes(h200_l2, 12 * GiB, false);
  ASSERT_EQ(h200.size(), 12u);  // 256 KiB … 512 MiB (8 × 60 MiB = 480 MiB <= 512 MiB)
  EXPECT_EQ(h200.front(), 256 * KiB);
  EXPECT_EQ(h200.back(), 512 * MiB);
  const auto big_l2 = sweep_sizes(96 * MiB, 12 * GiB, false);  // 8 × 96 MiB = 768 MiB -> 1 GiB
  EXPECT_EQ(big_l2.back(), 1 * GiB);
  const auto quick = sweep_sizes(h200_l2, 12 * GiB, true);
  EXPECT_EQ(quick, (std::vector<std::int64_t>{256 * KiB, 4 * MiB, 64 * MiB, 512 * MiB}));
  const auto capped = sweep_sizes(h200_l2, 100 * MiB, false);  // small free memory
  EXPECT_EQ(capped.back(), 64 * MiB);
}

TEST(StreamPattern, ClosedFormSum) {
  // Σ_{j<4} (j·3 + 1) = 3·6 + 4 = 22.
  EXPECT_EQ(pattern_sum(4, 3, 1), 22u);
  // Wraps mod 2^32 as the kernel's uint32 sum does: Σ_{j<2^16} j = 2^31 − 2^15.
  EXPECT_EQ(pattern_sum(65536, 1, 0), 2147450880u);
  EXPECT_EQ(pattern_sum(65536, 2, 0), 4294901760u);
  EXPECT_EQ(pattern_sum(65536, 4, 0), 4294836224u);  // (2^32 − 2^17) mod 2^32
  // Large counts (4 GiB of uint32 = 2^30 lanes) do not overflow the intermediate.
  std::uint32_t brute = 0;
  for (std::uint32_t j = 0; j < 1000; ++j) brute += j * 2654435761u + 12345u;
  EXPECT_EQ(pattern_sum(1000, 2654435761u, 12345u), brute);
}
