// The GPU small-work probe and the whole step as one CUDA graph, on cuda:0 (quick sizes): outputs
// verified and numbers inside physical bounds on any datacenter GPU.
#include <gtest/gtest.h>

#include <cmath>

#include "gpu_fixture.hpp"
#include "roofline/error.hpp"
#include "roofline/latency.hpp"
#include "roofline/model.hpp"
#include "roofline/whole_step.hpp"

using namespace roofline;
using roofline::test::run_group;

TEST(GpuSmallWork, FloorAndRampVerifiedAndPlausible) {
  ROOFLINE_REQUIRE_GPU();
  auto be = make_cuda_backend(0);
  const measured_roofs m = run_group(*be, "latency");
  ASSERT_TRUE(m.small_work.has_value());
  const small_work_result& s = *m.small_work;
  EXPECT_TRUE(s.verified);
  // a kernel in a graph costs between 0.1 µs and 20 µs on any CUDA GPU (the H200: ~0.5 µs)
  EXPECT_GT(s.floor_s, 0.1e-6);
  EXPECT_LT(s.floor_s, 20e-6);
  ASSERT_TRUE(s.floor_one_block_s);
  EXPECT_GT(*s.floor_one_block_s, 0);
  // the chain alternating two different kernels: a kernel's order too
  ASSERT_TRUE(s.floor_switch_s);
  EXPECT_GT(*s.floor_switch_s, 0.5 * s.floor_s);
  EXPECT_LT(*s.floor_switch_s, 20e-6);
  ASSERT_EQ(s.ramp.size(), 8u);  // 4 KiB … 64 MiB
  EXPECT_DOUBLE_EQ(s.ramp.front().bytes, 4096);
  // a cold read costs at least the floor's order and its bytes at no more than 10 TB/s
  for (const auto& p : s.ramp) {
    EXPECT_GT(p.seconds, 0.5 * s.floor_s) << p.bytes;
    EXPECT_GT(p.seconds, p.bytes / 10e12) << p.bytes;
  }
  EXPECT_GT(s.ramp.back().seconds, 2 * s.ramp.front().seconds);
  // 64 MiB from HBM/GDDR reaches at least 100 GB/s
  EXPECT_LT(s.ramp.back().seconds, s.ramp.back().bytes / 100e9);
}

namespace {
model_config small_llama() {
  model_config cfg;
  cfg.name = "small";
  cfg.family = "llama";
  cfg.hidden = 512, cfg.intermediate = 1408, cfg.layers = 3, cfg.heads = 8, cfg.kv_heads = 2, cfg.head_dim = 64;
  cfg.vocab = 4096;
  return cfg;
}
}  // namespace

TEST(GpuWholeStep, DecodeAndPrefillRunAsOneGraph) {
  ROOFLINE_REQUIRE_GPU();
  auto be = make_cuda_backend(0);
  for (const phase ph : {phase::decode, phase::prefill}) {
    catalogue_options o;
    o.ph = ph;
    o.batch = ph == phase::decode ? 4 : 1;
    o.context = 256;
    o.seq = 256;
    o.dtype = "fp16";
    o.one_pass_norms = true;
    o.fused_attention = true;
    const auto step = build_catalogue(small_llama(), o);
    const op_timing t = be->run_step(step, quick_timing());
    EXPECT_TRUE(std::isfinite(t.seconds));
    // 48 dependent kernels cannot finish in under 48 × 0.1 µs, nor take 100 ms at these sizes
    EXPECT_GT(t.seconds, 48 * 0.1e-6) << to_string(ph);
    EXPECT_LT(t.seconds, 0.1) << to_string(ph);
    EXPECT_NE(t.note.find("one CUDA graph of 48 launches"), std::string::npos) << t.note;
  }
}

TEST(GpuWholeStep, TinyLlamaDecodeBatch1IsNotFasterThanItsWeightsAtPeakBandwidth) {
  ROOFLINE_REQUIRE_GPU();
  auto be = make_cuda_backend(0);
  const model_config cfg = load_model_config(resolve_model_path("tinyllama-1.1b"));
  catalogue_options o;
  o.ph = phase::decode;
  o.batch = 1;
  o.context = 2048;
  o.dtype = "fp16";
  o.one_pass_norms = true;
  const auto step = build_catalogue(cfg, o);
  double bytes = 0;
  for (const auto& op : step) bytes += op.bytes() * static_cast<double>(op.count);
  const op_timing t = be->run_step(step, quick_timing());
  // 2.2 GB of weights + KV cache: no GPU moves it at more than 10 TB/s (H200: 4.8 TB/s nominal)
  EXPECT_GT(t.seconds, bytes / 10e12);
  EXPECT_NE(t.note.find("one CUDA graph of 333 launches"), std::string::npos) << t.note;
}

// The model's own linears and decode attention at two batches (gemm/rows, gemm/decode-attention):
// every shape at every batch verified, named and read back by the latency model at its own time.
TEST(GpuProbes, TheModelsDecodeOpsGiveRowsAndDecodeAttentionRates) {
  ROOFLINE_REQUIRE_GPU();
  auto be = make_cuda_backend(0);
  catalogue_options base;
  base.context = 256;
  probe_options o = test::quick_options();
  o.model_decode_ops = decode_probe_ops(small_llama(), base, {1, 4});
  measured_roofs m;
  for (const auto& p : be->probes(o))
    if (p.name == "gemm/rows" || p.name == "gemm/decode-attention" || p.name == "latency/small-work") p.run(m);
  // q/o 512 × 512, k/v 128 × 512, gate/up 1408 × 512, down 512 × 1408, lm_head 4096 × 512; two batches each
  ASSERT_EQ(m.gemm_rows.size(), 10u);
  for (const auto& g : m.gemm_rows) {
    EXPECT_TRUE(g.verified);
    ASSERT_TRUE(g.linears.has_value());
    EXPECT_GT(g.median_flops_per_s, 0) << *g.linears;
    EXPECT_TRUE(g.m == 1 || g.m == 4);
  }
  EXPECT_EQ(*m.gemm_rows[2].linears, "k_proj, v_proj");
  std::size_t decode = 0;
  for (const auto& g : m.gemm_attention)
    if (g.gemm == "decode") {
      ++decode;
      EXPECT_EQ(g.heads.value_or(0), 8);
      EXPECT_EQ(g.kv_heads.value_or(0), 2);
      EXPECT_EQ(g.keys, 256);
      EXPECT_GT(g.median_flops_per_s, 0);
    }
  EXPECT_EQ(decode, 2u);
  // read back: k_proj at M = 1 is predicted at the probe's own time
  const latency_model lat = latency_model_from(m, "gpu", "fp16");
  const gemm_rows_result& k1 = m.gemm_rows[2];
  const op_desc k = gemm_op("k_proj", 1, 128, 512, 2);
  const double probe_s = k.flops / k1.median_flops_per_s;
  const double predicted = lat.predict(k, 989e12, 4.8e12).total_s;
  EXPECT_GE(predicted, 0.999 * probe_s);  // never below the probe: max(ramp, probe − floor) + floor
  EXPECT_LT(predicted, 1.5 * probe_s);
}
