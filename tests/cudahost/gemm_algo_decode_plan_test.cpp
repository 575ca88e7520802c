// Host logic of the CUDA backend's GEMM and decode-attention choices: the names of cuBLASLt's
// configuration enums (values from cublasLt.h, CUDA 13.0) and the split-KV plan of the decode kernel
// at TinyLlama-1.1B's shapes on an H200 (132 SMs; 4 resident blocks per SM at head_dim 64).
#include <gtest/gtest.h>

#include "backends/cuda/cublaslt_names.hpp"
#include "backends/cuda/ops_host.hpp"

using namespace roofline::cuda;

TEST(CublasLtNames, TileClusterAndStagesByEnumValue) {
  EXPECT_EQ(tile_name(CUBLASLT_MATMUL_TILE_128x256), "128x256");
  EXPECT_EQ(tile_dims(CUBLASLT_MATMUL_TILE_256x128), (std::array<int, 3>{256, 128, 0}));
  EXPECT_EQ(tile_dims(CUBLASLT_MATMUL_TILE_UNDEFINED), (std::array<int, 3>{0, 0, 0}));
  EXPECT_EQ(tile_name(100000), "id 100000");  // a value from a newer library
  EXPECT_EQ(cluster_name(CUBLASLT_CLUSTER_SHAPE_2x1x1), "2x1x1");
  EXPECT_EQ(cluster_dims(CUBLASLT_CLUSTER_SHAPE_4x2x1), (std::array<int, 3>{4, 2, 1}));
  EXPECT_EQ(cluster_name(CUBLASLT_CLUSTER_SHAPE_AUTO), "auto");
  EXPECT_EQ(stages_name(CUBLASLT_MATMUL_STAGES_64x3), "64x3");
}

TEST(DecodeSplitPlan, TinyLlamaBatch1And32AtContext2048) {
  const long long resident = 4 * 132;
  // Batch 1: 4 KV heads; 128 tiles of 16 keys. 32 splits of 64 keys (one iteration per warp, one
  // wave of 128 blocks): cost 1 × (1 + 2) + 0.05 × 32 = 4.6, below 16 splits (2 + 2 + 0.8 = 4.8).
  const auto b1 = detail::plan_decode_splits(4, 2048, resident);
  EXPECT_EQ(b1.splits, 32);
  EXPECT_EQ(b1.chunk, 64);
  EXPECT_NEAR(b1.cost, 4.6, 1e-9);
  // Batch 32: 128 (sequence, KV head) pairs; 4 splits of 512 keys = 512 blocks, one wave of 528.
  const auto b32 = detail::plan_decode_splits(128, 2048, resident);
  EXPECT_EQ(b32.splits, 4);
  EXPECT_EQ(b32.chunk, 512);
  // Every key is covered and no split is empty.
  for (const long long len : {1LL, 17LL, 300LL, 1000LL, 32768LL}) {
    const auto p = detail::plan_decode_splits(8, len, resident);
    EXPECT_EQ(p.chunk % 16, 0);
    EXPECT_GE(p.splits * p.chunk, len);
    EXPECT_LT((p.splits - 1) * p.chunk, len);
  }
}
