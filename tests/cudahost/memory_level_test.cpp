// Memory-level labels and the working-set sweep, for the H200's 60 MiB L2 (cudaDeviceProp::l2CacheSize
// 62914560 as PyTorch reports "60 MB") and a T4's 4 MiB L2.
#include <gtest/gtest.h>

#include <algorithm>

#include "backends/cuda/memory_level.hpp"
#include "backends/cuda/stream_kernels.hpp"

using namespace roofline::cuda;

namespace {
constexpr std::int64_t KiB = 1024, MiB = 1024 * KiB, GiB = 1024 * MiB;
constexpr std::int64_t h200_l2 = 60 * MiB;
}  // namespace

TEST(MemoryLevel, LabelsAgainstL2) {
  const auto near = label_memory_level(30 * MiB, h200_l2, true);  // L2/2: one copy in each partition
  EXPECT_EQ(near.level, "l2");
  EXPECT_EQ(near.flag.rfind("L2 near", 0), 0u) << near.flag;
  const auto far = label_memory_level(45 * MiB, h200_l2, true);  // 3/4 L2
  EXPECT_EQ(far.level, "l2");
  EXPECT_EQ(far.flag.rfind("L2 far", 0), 0u) << far.flag;
  const auto mid = label_memory_level(64 * MiB, h200_l2, true);
  EXPECT_EQ(mid.level, "l2+dram");
  EXPECT_EQ(mid.flag, "transition: working set is 1.07× L2");
  EXPECT_EQ(label_memory_level(46 * MiB, h200_l2, true).level, "l2+dram");  // over 3/4 L2
  EXPECT_EQ(label_memory_level(180 * MiB, h200_l2, true).level, "l2+dram");
  const auto hbm = label_memory_level(240 * MiB, h200_l2, true);  // 4 × L2
  EXPECT_EQ(hbm.level, "dram");
  EXPECT_EQ(hbm.flag, "hbm: working set is 4.00× L2 (>= 4×, at most a quarter can hit in L2)");
  EXPECT_EQ(label_memory_level(4 * GiB, h200_l2, false).flag.rfind("device memory", 0), 0u);
  EXPECT_EQ(label_memory_level(1 * KiB, 0, false).level, "dram");
}

TEST(MemoryLevel, L1CapacityFromSharedMemory) {
  // cudaDeviceProp::sharedMemPerMultiprocessor: H100/H200 233472 B (228 KiB), A100 167936 B
  // (164 KiB), RTX 4090 102400 B (100 KiB); unified L1/shared 256, 192 and 128 KiB.
  EXPECT_EQ(l1_bytes_per_sm(233472), 256 * KiB);
  EXPECT_EQ(l1_bytes_per_sm(167936), 192 * KiB);
  EXPECT_EQ(l1_bytes_per_sm(102400), 128 * KiB);
  EXPECT_EQ(l1_bytes_per_sm(0), 0);
  EXPECT_EQ(l1_sweep_sizes(256 * KiB, false), (std::vector<std::int64_t>{16 * KiB, 32 * KiB, 64 * KiB, 128 * KiB}));
  EXPECT_EQ(l1_sweep_sizes(256 * KiB, true), (std::vector<std::int64_t>{16 * KiB, 128 * KiB}));
  EXPECT_EQ(l1_sweep_sizes(192 * KiB, false), (std::vector<std::int64_t>{16 * KiB, 32 * KiB, 64 * KiB}));
  EXPECT_EQ(label_l1_level(128 * KiB, 256 * KiB).level, "l1");
  EXPECT_EQ(label_l1_level(160 * KiB, 256 * KiB).level, "l1+l2");
}

TEST(MemoryLevel, SweepCoversL2TransitionsAndDram) {
  // H200: 60 MiB L2. L2 points 7.5 … 45 MiB, transitions 60 … 180 MiB, DRAM 240 and 512 MiB.
  const auto h200 = sweep_sizes(h200_l2, 12 * GiB, false);
  const std::vector<std::int64_t> expect{7680 * KiB, 11520 * KiB, 15 * MiB,  45 * MiB / 2, 30 * MiB, 75 * MiB / 2, 45 * MiB,
                                         60 * MiB,   90 * MiB,    120 * MiB, 180 * MiB,  240 * MiB, 512 * MiB};
  EXPECT_EQ(h200, expect);
  std::vector<std::string> levels;
  for (auto s : h200) levels.push_back(label_memory_level(s, h200_l2, true).level);
  EXPECT_EQ(std::count(levels.begin(), levels.end(), "l2"), 7);
  EXPECT_EQ(std::count(levels.begin(), levels.end(), "l2+dram"), 4);
  EXPECT_EQ(std::count(levels.begin(), levels.end(), "dram"), 2);
  const auto big_l2 = sweep_sizes(96 * MiB, 12 * GiB, false);  // 8 × 96 MiB = 768 MiB -> 1 GiB
  EXPECT_EQ(big_l2.back(), 1 * GiB);
  const auto quick = sweep_sizes(h200_l2, 12 * GiB, true);
  EXPECT_EQ(quick, (std::vector<std::int64_t>{15 * MiB, 30 * MiB, 120 * MiB, 240 * MiB}));
  const auto capped = sweep_sizes(h200_l2, 100 * MiB, false);  // small free memory
  EXPECT_EQ(capped.back(), 90 * MiB);
}

TEST(StreamVariants, CachedRereadsNeverUseStreamingLoads) {
  // With reps > 1 a .cs load could be served by L1 (the fault behind a 22.8 TB/s "L2" roof on an H200).
  for (int v = 0; v < stream_variant_count; ++v) {
    const bool cs = stream_variants[v].load == load_hint::cs;
    EXPECT_EQ(variant_allowed(stream_op::read, v, 64) && cs, false) << v;
    EXPECT_EQ(variant_allowed(stream_op::copy, v, 64) && cs, false) << v;
    EXPECT_EQ(variant_allowed(stream_op::triad, v, 64) && cs, false) << v;
  }
  EXPECT_TRUE(variant_allowed(stream_op::read, 5, 1));    // streaming loads once per launch: fine
  EXPECT_FALSE(variant_allowed(stream_op::read, 2, 1));   // same loads as row 0 for a read
  EXPECT_TRUE(variant_allowed(stream_op::write, 4, 64));  // stores never hit L1
  EXPECT_FALSE(variant_allowed(stream_op::copy, stream_memcpy_variant, 8));
  EXPECT_TRUE(variant_allowed(stream_op::copy, stream_memcpy_variant, 1));
  EXPECT_FALSE(variant_allowed(stream_op::read, stream_memcpy_variant, 1));
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

TEST(StreamVariants, RotatedPassesTouchEveryElementOnceAndMoveAcrossSms) {
  // H200: 132 SMs × 8 resident blocks of 256 threads.
  const std::size_t grid = 1056, block = 256, stride = grid * block;
  const std::size_t shift = rotate_shift(grid, block);
  EXPECT_EQ(shift, 653u * 256u);  // round(0.618 × 1056) blocks
  std::vector<char> seen(stride);
  for (std::size_t r : {std::size_t{0}, std::size_t{1}, std::size_t{7}}) {  // each pass is a permutation
    std::fill(seen.begin(), seen.end(), 0);
    for (std::size_t t = 0; t < stride; t += 97) seen[rotate_start(t, r, shift, stride)]++;
    for (std::size_t t = 0; t < stride; t += 97) EXPECT_EQ(seen[rotate_start(t, r, shift, stride)], 1);
  }
  std::size_t s = 12345;
  for (std::size_t r = 1; r < 300; ++r) {
    s = rotate_next(s, shift, stride);
    ASSERT_EQ(s, rotate_start(12345, r, shift, stride)) << r;
  }
  // The blocks of one SM (round-robin or contiguous placement) read, in the next 32 passes, none of
  // the slices they read in this one: no pass is an L1 hit of an earlier one on the same SM.
  auto vblock = [&](std::size_t b, std::size_t r) { return rotate_start(b * block, r, shift, stride) / block; };
  for (int placement = 0; placement < 2; ++placement)
    for (std::size_t sm = 0; sm < 132; sm += 13) {
      std::vector<std::size_t> mine;
      for (std::size_t b = 0; b < grid; ++b)
        if ((placement == 0 ? b % 132 : b / 8) == sm) mine.push_back(b);
      for (std::size_t d = 1; d <= 32; ++d)
        for (std::size_t b1 : mine)
          for (std::size_t b2 : mine) ASSERT_NE(vblock(b1, 0), vblock(b2, d)) << placement << " " << sm << " " << d;
    }
  EXPECT_TRUE(variant_allowed(stream_op::read, 7, 64));   // .ca, rotated: allowed for re-reads
  EXPECT_FALSE(variant_allowed(stream_op::write, 7, 64));  // repeats row 0's stores
}
