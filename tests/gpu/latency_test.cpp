// The GPU small-work probe and the whole step as one CUDA graph, on cuda:0 (quick sizes): outputs
// verified and numbers inside physical bounds on any datacenter GPU.
#include <gtest/gtest.h>

#include <cmath>

#include "gpu_fixture.hpp"
#include "roofline/error.hpp"
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
