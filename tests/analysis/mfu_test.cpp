#include <gtest/gtest.h>

#include "roofline/error.hpp"
#include "roofline/mfu.hpp"

using namespace roofline;

TEST(Mfu, TinyLlamaDecodeAt25msOnAT4Is0_14Percent) {
  // Issue 7: 2 × 1.1e9 FLOP ÷ 0.025 s ÷ 65e12 (T4 fp16 tensor, dense) ≈ 0.14%.
  // TinyLlama-1.1B has 1,100,048,384 parameters; decode without the attention term = 2N per token.
  const transformer_dims d{1100048384.0, 22, 32, 64};
  const double fpt = forward_flops_per_token(d, 0, attention_convention::full);
  EXPECT_DOUBLE_EQ(fpt, 2.0 * 1100048384.0);
  const double mfu = model_flops_utilization(fpt, 1.0 / 0.025, 65e12, 1);
  EXPECT_NEAR(100 * mfu, 0.1354, 0.0001);
}

TEST(Mfu, Palm540BIs46_2PercentFromItsPublishedThroughput) {
  // PaLM (Chowdhery et al. 2022): Table 1, 540.35B parameters, 118 layers, 48 heads of 256; sequence
  // 2048; appendix B: 238.3K tokens/s on 6144 TPU v4 chips at 275 TFLOP/s bf16 → 46.2% MFU.
  const transformer_dims d{540.35e9, 118, 48, 256};
  const double fpt = training_flops_per_token(d, 2048, attention_convention::full);
  EXPECT_NEAR(fpt, 6 * 540.35e9 + 12.0 * 118 * 48 * 256 * 2048, 1.0);
  const double mfu = model_flops_utilization(fpt, 238.3e3, 275e12, 6144);
  EXPECT_NEAR(100 * mfu, 46.2, 0.05);
}

TEST(Mfu, NanoGptGpt2FlopsPerIteration) {
  // nanoGPT model.py estimate_mfu: N = get_num_params() = 123,653,376 (GPT-2 124M minus the 1024×768
  // position table), L=12, H=12, Q=64, T=1024; config/train_gpt2.py: batch 12 × 1024 tokens × 40
  // gradient-accumulation steps (5 × 8 GPUs) per iteration.
  const transformer_dims d{123653376.0, 12, 12, 64};
  const double fpt = training_flops_per_token(d, 1024, attention_convention::full);
  EXPECT_DOUBLE_EQ(fpt, 855166464.0);                       // 6N + 12·L·H·Q·T
  EXPECT_DOUBLE_EQ(fpt * 1024 * 12 * 40, 420331420385280.0);  // ≈ 4.20e14 FLOP per iteration
}

TEST(Mfu, CausalHalvingHalvesOnlyTheAttentionTerm) {
  const transformer_dims d{1e9, 10, 8, 128};
  const double full = training_flops_per_token(d, 4096, attention_convention::full);
  const double half = training_flops_per_token(d, 4096, attention_convention::causal_halved);
  EXPECT_DOUBLE_EQ(full - 6e9, 12.0 * 10 * 8 * 128 * 4096);
  EXPECT_DOUBLE_EQ(half - 6e9, 6.0 * 10 * 8 * 128 * 4096);
}

TEST(Mfu, HfuAddsOneForwardWhenRecomputing) {
  // PaLM appendix B reports 46.2% MFU and 57.8% HFU for 540B (rematerialization): HFU ≥ MFU.
  const transformer_dims d{540.35e9, 118, 48, 256};
  const double fpt = training_flops_per_token(d, 2048, attention_convention::full);
  const double rec = recompute_flops_per_token(d, 2048, attention_convention::full);
  EXPECT_DOUBLE_EQ(rec * 3, fpt);
  const double hfu = model_flops_utilization(fpt + rec, 238.3e3, 275e12, 6144);
  EXPECT_NEAR(100 * hfu, 61.6, 0.1);  // full recompute is an upper bound on PaLM's selective 57.8%
}

TEST(Mfu, RefusesASparsePeakAndBadInput) {
  EXPECT_THROW(model_flops_utilization(1e9, 1, 1979e12, 1, true), input_error);
  EXPECT_THROW(model_flops_utilization(1e9, 1, 989e12, 0), input_error);
  EXPECT_THROW(model_flops_utilization(1e9, -1, 989e12, 1), input_error);
  EXPECT_THROW(parse_attention_convention("quarter"), input_error);
  EXPECT_EQ(parse_attention_convention("halved"), attention_convention::causal_halved);
}
