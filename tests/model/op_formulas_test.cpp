// The worked numbers of issue 5: intensities of single ops under the documented conventions
// (docs/formulas-model.md §2-§3).
#include <gtest/gtest.h>

#include "roofline/model.hpp"

using namespace roofline;

TEST(OpFormulas, Gemm4096CubedFp16Is4096Over3) {
  const auto g = gemm_op("g", 4096, 4096, 4096, 2);
  EXPECT_DOUBLE_EQ(g.flops, 2.0 * 4096 * 4096 * 4096);
  EXPECT_DOUBLE_EQ(g.bytes(), 3.0 * 4096 * 4096 * 2);
  EXPECT_NEAR(g.intensity(), 1365.33, 0.01);
}

TEST(OpFormulas, DecodeLinear2048AtBatch1And32) {
  EXPECT_NEAR(gemm_op("q", 1, 2048, 2048, 2).intensity(), 1.0, 0.002);  // 2048/(2048+2) = 0.999
  EXPECT_NEAR(gemm_op("q", 32, 2048, 2048, 2).intensity(), 31.03, 0.01);  // 32·2048/(2048+64)
}

TEST(OpFormulas, ElementwiseIntensitiesFp16) {
  EXPECT_DOUBLE_EQ(elementwise_op(op_kind::add, "a", 8192, 8192, 2).intensity(), 1.0 / 6);
  EXPECT_DOUBLE_EQ(elementwise_op(op_kind::silu, "s", 8192, 8192, 2).intensity(), 1.0);  // 4 FLOP / 4 B
  // RMSNorm: 4 FLOP per element over two reads and one write of x (+ the weight row): 4/6 ≈ 0.67
  EXPECT_NEAR(elementwise_op(op_kind::rmsnorm, "n", 8192, 8192, 2).intensity(), 0.7, 0.05);
  // softmax: 5 FLOP per element over three reads and one write: 5/8 ≈ 0.6
  EXPECT_NEAR(elementwise_op(op_kind::softmax, "p", 8192, 8192, 2).intensity(), 0.6, 0.05);
  EXPECT_DOUBLE_EQ(embedding_op("e", 32, 2048, 2).intensity(), 0.0);
}

TEST(OpFormulas, MhaDecodeAttentionIsAboutOneAtAnyContext) {
  for (std::int64_t ctx : {128, 2048, 32768})
    for (std::int64_t batch : {1, 32}) {
      const auto a = attention_op(op_kind::attention_decode, batch, 32, 32, 128, 1, ctx, 2, 2, true);
      EXPECT_NEAR(a.intensity(), 1.0, 0.03) << "context " << ctx << " batch " << batch;
    }
}

TEST(OpFormulas, GqaTinyLlamaDecodeAttentionIsAboutEight) {
  const auto a = attention_op(op_kind::attention_decode, 1, 32, 4, 64, 1, 2048, 2, 2, true);
  EXPECT_NEAR(a.intensity(), 8.0, 0.25);
  // the cache is read with the 4 KV heads: 2 · 2048 · 4 · 64 · 2 B
  EXPECT_GE(a.bytes_read, 2.0 * 2048 * 4 * 64 * 2);
  EXPECT_LT(a.bytes_read, 2.0 * 2048 * 4 * 64 * 2 * 1.01);
  // an fp8 cache doubles it
  EXPECT_NEAR(attention_op(op_kind::attention_decode, 1, 32, 4, 64, 1, 2048, 2, 1, true).intensity(), 16.0, 0.5);
}

TEST(OpFormulas, PrefillFusedMovesOnlyQkvAndOutput) {
  const std::int64_t n = 2048;
  const auto f = attention_op(op_kind::attention_fused, 1, 32, 4, 64, n, n, 2, 2, true);
  const double q = n * 32.0 * 64 * 2, kv = 2.0 * n * 4 * 64 * 2;
  EXPECT_DOUBLE_EQ(f.bytes(), 2 * q + kv);
  const auto naive = attention_op(op_kind::attention_naive, 1, 32, 4, 64, n, n, 2, 2, true);
  EXPECT_DOUBLE_EQ(naive.bytes() - f.bytes(), 6.0 * 32 * n * n * 2);  // S written, 3+1 softmax, P read
  EXPECT_DOUBLE_EQ(naive.flops, f.flops);
  // causal convention: the triangle n(n+1)/2 vs the full square
  const auto full = attention_op(op_kind::attention_fused, 1, 32, 4, 64, n, n, 2, 2, false);
  EXPECT_NEAR(f.flops / full.flops, (n + 1.0) / (2.0 * n), 1e-12);
}

TEST(OpFormulas, KneeBatchCrossesTheRidge) {
  // I(B) = 2048·B / (2B + 2048) for K = N = 2048 fp16: reaches 100 FLOP/B at B = 204800/1848 → 111
  const auto knee = knee_batch(2048, 2048, 2, 100.0);
  ASSERT_TRUE(knee.has_value());
  EXPECT_EQ(*knee, 111);
  EXPECT_GE(gemm_op("q", 111, 2048, 2048, 2).intensity(), 100.0);
  EXPECT_LT(gemm_op("q", 110, 2048, 2048, 2).intensity(), 100.0);
  EXPECT_FALSE(knee_batch(2048, 2048, 2, 1024.0).has_value());  // the B → ∞ limit is 1024
}

TEST(OpFormulas, SoftmaxOfNaivePrefillScores) {
  const auto a = attention_op(op_kind::attention_naive, 1, 32, 4, 64, 2048, 2048, 2, 2, true);
  const auto s = attention_softmax_op(a);
  EXPECT_EQ(s.rows, 32 * 2048);
  EXPECT_EQ(s.cols, 2048);
  EXPECT_NEAR(s.intensity(), 0.625, 1e-9);
  // naive attention carries those softmax bytes (3 reads + 1 write of the scores)
  const auto f = attention_op(op_kind::attention_fused, 1, 32, 4, 64, 2048, 2048, 2, 2, true);
  EXPECT_GE(a.bytes() - f.bytes(), s.bytes());
}
