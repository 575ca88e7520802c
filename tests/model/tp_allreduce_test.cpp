// The tensor-parallel all-reduce model (Megatron-LM, Shoeybi et al. 2019, arXiv:1909.08053, §3 and
// Fig. 4) on TinyLlama-1.1B from its shipped config (hidden 2048, 22 layers).
#include <gtest/gtest.h>

#include "roofline/error.hpp"
#include "roofline/model.hpp"

using namespace roofline;

namespace {

model_config tinyllama() { return load_model_config(resolve_model_path("tinyllama-1.1b")); }

}  // namespace

TEST(TpAllReduce, TinyLlamaPrefillTwoPerLayer) {
  // Megatron-LM §3: 2 all-reduces per layer, each of batch × seq × hidden × 2 B (fp16):
  // 1 × 2048 × 2048 × 2 = 8,388,608 B; at tp = 2 and 100 GB/s busbw: 8388608 × 1 / 100e9 = 83.886 µs.
  const auto p = tp_allreduce_ops(tinyllama(), phase::prefill, 1, 2048, 2, 100e9);
  ASSERT_EQ(p.ops.size(), 2u);
  EXPECT_EQ(p.ops[0].name, "attention_allreduce");
  EXPECT_EQ(p.ops[1].name, "mlp_allreduce");
  EXPECT_DOUBLE_EQ(p.ops[0].bytes, 8388608.0);
  EXPECT_EQ(p.ops[0].count, 22);
  EXPECT_DOUBLE_EQ(p.bytes_per_layer, 16777216.0);
  EXPECT_NEAR(p.ops[0].predicted_s, 83.88608e-6, 1e-12);
  EXPECT_NEAR(p.seconds_per_layer, 167.77216e-6, 1e-12);
  EXPECT_NEAR(p.seconds_per_step, 22 * 167.77216e-6, 1e-12);
}

TEST(TpAllReduce, DecodeMovesOneTokenPerSequence) {
  // decode, batch 32: 32 × 1 × 2048 × 2 = 131,072 B; tp = 8 at 360 GB/s: 131072 × 1.75 / 360e9.
  const auto p = tp_allreduce_ops(tinyllama(), phase::decode, 32, 2048, 8, 360e9);
  EXPECT_EQ(p.tokens, 32);
  EXPECT_DOUBLE_EQ(p.ops[0].bytes, 131072.0);
  EXPECT_NEAR(p.ops[0].predicted_s, 131072.0 * 1.75 / 360e9, 1e-15);
}

TEST(TpAllReduce, TrainingAddsTheBackwardAllReduces) {
  // Megatron-LM Fig. 4: 4 communication operations per layer in forward + backward.
  const auto p = tp_allreduce_ops(tinyllama(), phase::train, 1, 2048, 4, 100e9);
  EXPECT_EQ(p.ops.size(), 4u);
  EXPECT_DOUBLE_EQ(p.bytes_per_layer, 4 * 8388608.0);
}

TEST(TpAllReduce, TpOneHasNoAllReduceAndBadInputThrows) {
  const auto p = tp_allreduce_ops(tinyllama(), phase::prefill, 1, 2048, 1, 0);
  EXPECT_TRUE(p.ops.empty());
  EXPECT_EQ(p.note, "tp = 1: no all-reduce");
  EXPECT_THROW(tp_allreduce_ops(tinyllama(), phase::prefill, 1, 2048, 0, 100e9), input_error);
  EXPECT_THROW(tp_allreduce_ops(tinyllama(), phase::prefill, 1, 2048, 2, 0), input_error);
  EXPECT_THROW(tp_allreduce_ops(tinyllama(), phase::prefill, 0, 2048, 2, 100e9), input_error);
}
