// MFU and HFU from the one FLOPs-per-token model (model_flops_per_token), pinned to published values.
#include <gtest/gtest.h>

#include "roofline/error.hpp"
#include "roofline/mfu.hpp"
#include "roofline/decode_utilization.hpp"
#include "roofline/model.hpp"
#include "roofline/model.hpp"

using namespace roofline;

namespace {

/// PaLM 540B (Chowdhery et al. 2022, Table 1): 118 layers, d_model 18432, 48 heads of 256, SwiGLU
/// MLP 4·d_model, multi-query attention (one K/V head), vocabulary 256k shared with the output.
model_config palm_540b() {
  model_config c;
  c.name = "PaLM-540B";
  c.family = "llama";
  c.hidden = 18432, c.intermediate = 4 * 18432, c.layers = 118, c.heads = 48, c.kv_heads = 1, c.head_dim = 256;
  c.vocab = 256000, c.tied_embeddings = true;
  return c;
}

}  // namespace

TEST(Mfu, Palm540BIs46_2PercentFromItsPublishedThroughput) {
  // N = 118 × (2·18432·12288 + 2·18432·256 + 3·18432·73728) + 256000·18432 = 540,354,281,472: PaLM's
  // 540.35B (the tied embedding multiplies once, as the output layer). Appendix B: 238.3K tokens/s on
  // 6144 TPU v4 chips at 275 TFLOP/s bf16, T = 2048, full attention → 46.2% MFU.
  const model_config c = palm_540b();
  EXPECT_EQ(matmul_parameters(c), 540'354'281'472);
  const token_flops f = model_flops_per_token(c, phase::train, 2048, {flops_convention::params::matmul, false});
  EXPECT_DOUBLE_EQ(f.total, 6 * 540'354'281'472.0 + 12.0 * 118 * 48 * 256 * 2048);
  EXPECT_EQ(f.formula, "6N + 12·L·H·Q·T");
  EXPECT_NEAR(100 * model_flops_utilization(f.total, 238.3e3, 275e12, 6144), 46.2, 0.05);
  // the default convention halves the attention term: 45.98%
  const token_flops h = model_flops_per_token(c, phase::train, 2048);
  EXPECT_DOUBLE_EQ(f.total - h.total, 6.0 * 118 * 48 * 256 * 2048);
  EXPECT_NEAR(100 * model_flops_utilization(h.total, 238.3e3, 275e12, 6144), 45.98, 0.01);
}

TEST(Mfu, HfuAddsOneLayerForwardWhenRecomputing) {
  // PaLM appendix B reports 46.2% MFU and 57.8% HFU for 540B (selective rematerialization); full
  // recompute re-runs each layer's forward (not the logits): 2·(N − V·h) + 4·L·H·Q·T → 61.6%, an
  // upper bound on PaLM's 57.8%.
  const model_config c = palm_540b();
  const token_flops f = model_flops_per_token(c, phase::train, 2048, {flops_convention::params::matmul, false});
  EXPECT_DOUBLE_EQ(f.recompute, 2 * (540'354'281'472.0 - 256000.0 * 18432) + 4.0 * 118 * 48 * 256 * 2048);
  EXPECT_NEAR(100 * model_flops_utilization(f.total + f.recompute, 238.3e3, 275e12, 6144), 61.6, 0.1);
}

TEST(Mfu, RefusesASparsePeakAndBadInput) {
  EXPECT_THROW(model_flops_utilization(1e9, 1, 1979e12, 1, true), input_error);
  EXPECT_THROW(model_flops_utilization(1e9, 1, 989e12, 0), input_error);
  EXPECT_THROW(model_flops_utilization(1e9, -1, 989e12, 1), input_error);
}

// MBU of a decode TPOT (roofline/decode_utilization.hpp): TinyLlama-1.1B fp16, batch 1, context
// 2048 on a T4 (320 GB/s, 65.1 TFLOP/s: NVIDIA T4 datasheet): the catalogue's 2.12 GB step in 25 ms
// is 84.8 GB/s = 26.5% of the bandwidth roof; in 0.1 ms it would be 66× the roof: impossible.
TEST(DecodeUtilization, TinyLlamaOnAT4) {
  const auto cfg = roofline::load_model_config(roofline::resolve_model_path("tinyllama-1.1b"));
  roofline::catalogue_options o;
  o.ph = roofline::phase::decode, o.batch = 1, o.context = 2048;
  const auto step = roofline::decode_cost(roofline::build_catalogue(cfg, o));
  EXPECT_NEAR(step.bytes / 1e9, 2.12, 0.005);
  EXPECT_FALSE(step.attainable_tpot_s);  // no roofs, no prediction
  roofline::decode_roofs r;
  r.peak_nominal = 65.1e12, r.bandwidth_nominal = 320e9;
  auto u = roofline::judge_decode(step, 0.025, r);
  EXPECT_NEAR(*u.mbu, 0.265, 0.0005);
  EXPECT_TRUE(u.plausible);
  EXPECT_FALSE(u.times_attainable);
  u = roofline::judge_decode(step, 1e-4, r);
  EXPECT_NEAR(*u.mbu, 66.2, 0.05);
  EXPECT_FALSE(u.plausible);
  EXPECT_FALSE(u.causes.empty());
  // 4% above the roof is within the noise (roof_noise = 5%)
  u = roofline::judge_decode(step, step.bytes / (320e9 * 1.04), r);
  EXPECT_TRUE(u.plausible);
  EXPECT_THROW(roofline::judge_decode(step, 0, r), roofline::input_error);
}
