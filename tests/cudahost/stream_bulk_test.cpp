// The bulk-store (TMA, cp.async.bulk) variants of the stream kernels: which patterns and devices may
// run them, their tile and shared-memory sizes, and the names the results carry. cp.async.bulk is
// PTX ISA 8.0, sm_90 and later: H100/H200 are compute capability 9.0, B200 10.0, A100 8.0, L40S 8.9,
// T4 7.5 (CUDA C++ Programming Guide, "Compute Capabilities").
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "backends/cuda/stream_kernels.hpp"

using namespace roofline::cuda;

namespace {
std::vector<int> bulk_rows() {
  std::vector<int> out;
  for (int v = 0; v < stream_variant_count; ++v)
    if (stream_variants[v].store == store_hint::bulk) out.push_back(v);
  return out;
}
}  // namespace

TEST(StreamBulk, TilesOf4To16KiBWithFourPerBlock) {
  const auto rows = bulk_rows();
  ASSERT_EQ(rows.size(), 3u);
  // Tiles of 4, 8 and 16 KiB (256 threads × 1, 2, 4 elements of 16 B); 4 tiles per block in
  // dynamic shared memory: 16, 32 and 64 KiB (the last over the 48 KiB default, hence
  // prepare_bulk_kernels). On an H200 (228 KiB of shared memory per SM) that is 8, 6 and 3 blocks.
  EXPECT_EQ(bulk_tile_bytes(stream_variants[rows[0]]), 4096);
  EXPECT_EQ(bulk_tile_bytes(stream_variants[rows[1]]), 8192);
  EXPECT_EQ(bulk_tile_bytes(stream_variants[rows[2]]), 16384);
  EXPECT_EQ(variant_shared_bytes(rows[0]), 16 * 1024);
  EXPECT_EQ(variant_shared_bytes(rows[1]), 32 * 1024);
  EXPECT_EQ(variant_shared_bytes(rows[2]), 64 * 1024);
  // Every bulk row's loads (a copy's) bypass L1, so a re-read is never an L1 hit.
  for (const int v : rows) EXPECT_EQ(stream_variants[v].load, load_hint::cg) << v;
  // The st.global rows and the driver's memcpy use no dynamic shared memory.
  for (int v = 0; v <= stream_memcpy_variant; ++v)
    if (v == stream_memcpy_variant || stream_variants[v].store != store_hint::bulk) {
      EXPECT_EQ(variant_shared_bytes(v), 0) << v;
      if (v < stream_variant_count) EXPECT_EQ(bulk_tile_bytes(stream_variants[v]), 0) << v;
    }
  EXPECT_EQ(variant_shared_bytes(-1), 0);
}

TEST(StreamBulk, WriteAndCopyOnlyAtEveryReps) {
  for (const int v : bulk_rows()) {
    for (const int reps : {1, 64}) {  // device memory (one pass) and an L2 working set (re-written)
      EXPECT_TRUE(variant_allowed(stream_op::write, v, reps)) << v << " " << reps;
      EXPECT_TRUE(variant_allowed(stream_op::copy, v, reps)) << v << " " << reps;
      EXPECT_FALSE(variant_allowed(stream_op::read, v, reps)) << v << " " << reps;  // no stores to move
      EXPECT_FALSE(variant_allowed(stream_op::triad, v, reps)) << v << " " << reps;  // no bulk triad kernel
    }
  }
}

TEST(StreamBulk, OnlyOnComputeCapability9AndLater) {
  for (const int v : bulk_rows()) {
    EXPECT_TRUE(variant_runs_on(v, 9, 0)) << v;    // H100, H200
    EXPECT_TRUE(variant_runs_on(v, 10, 0)) << v;   // B200
    EXPECT_FALSE(variant_runs_on(v, 8, 0)) << v;   // A100: the sm_80 build has the kernel empty
    EXPECT_FALSE(variant_runs_on(v, 8, 9)) << v;   // L40S
    EXPECT_FALSE(variant_runs_on(v, 7, 5)) << v;   // T4
  }
  // The st.global rows and the driver's memcpy run everywhere; indices outside the table nowhere.
  for (int v = 0; v <= stream_memcpy_variant; ++v)
    if (v == stream_memcpy_variant || stream_variants[v].store != store_hint::bulk) EXPECT_TRUE(variant_runs_on(v, 7, 5)) << v;
  EXPECT_FALSE(variant_runs_on(-1, 9, 0));
  EXPECT_FALSE(variant_runs_on(stream_memcpy_variant + 1, 9, 0));
}

TEST(StreamBulk, ResultFlagNamesTheTmaAndItsTile) {
  for (const int v : bulk_rows()) {
    const std::string hint = variant_hints(v);
    EXPECT_EQ(hint.rfind("stores: TMA bulk (cp.async.bulk), tile ", 0), 0u) << hint;
    const std::string tile = "tile " + std::to_string(bulk_tile_bytes(stream_variants[v]) / 1024) + " KiB, " +
                             std::to_string(bulk_stages) + " tiles per block";
    EXPECT_NE(hint.find(tile), std::string::npos) << hint;
  }
  EXPECT_EQ(std::string(variant_hints(0)), "4 × 16 B in flight per thread, loads .cg, stores .wb");
  EXPECT_EQ(std::string(variant_hints(stream_memcpy_variant)), "the driver's cudaMemcpyAsync device-to-device");
}
