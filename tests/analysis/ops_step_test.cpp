// `roofline ops`' and `mfu`'s numbers computed in the analysis layer (roofline/ops_step.hpp,
// roofline/mfu.hpp): the two commands read the one decode step of the catalogue; the step's shares
// add up; the tensor-parallel link and the fleet file's all-reduce roof are read as documented.
#include "roofline/ops_step.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "roofline/error.hpp"
#include "roofline/fleet.hpp"
#include "roofline/mfu.hpp"
#include "roofline/model.hpp"

using namespace roofline;

namespace {

// Llama-3-8B decode, batch 64, context 2048, fp16. Its KV cache alone is 64 × 2048 tokens × 131072
// B per token (32 layers × 8 KV heads × 128 × 2 (K, V) × 2 B: the model's config.json) = 17.2 GB,
// and its weights ~15 GB (8.03 B parameters, Meta's model card, minus the 0.53 B embedding table,
// which decode gathers a row of): the step moves ~33 GB for ~1.03 TFLOP, 31.1 FLOP/B — the value
// both `roofline ops --phase decode --batch 64` and `roofline mfu --batch 64` print.
TEST(OpsStep, MfuReadsTheDecodeStepOpsPrints) {
  const model_config cfg = load_model_config(resolve_model_path("llama-3-8b"));
  catalogue_options opt;
  opt.ph = phase::decode, opt.batch = 64, opt.context = 2048, opt.dtype = "fp16";
  const ops_step s = compute_ops_step(cfg, opt, std::nullopt, false, {});
  EXPECT_NEAR(s.bytes / 1e9, 33.1, 0.05);
  EXPECT_NEAR(s.flops / 1e12, 1.03, 0.005);
  EXPECT_NEAR(s.kv_total, 64.0 * 2048 * 131072, 1);
  EXPECT_TRUE(s.placed.empty());  // no roofs: nothing placed, no time

  mfu_request q;
  q.model = "llama-3-8b", q.phase_name = "decode", q.batch = 64, q.tpot = 0.02, q.peak = 989e12, q.precision = "fp16";
  const mfu_result m = compute_mfu(q);
  ASSERT_TRUE(m.intensity);
  ASSERT_TRUE(m.decode);
  EXPECT_DOUBLE_EQ(m.decode->step.bytes, s.bytes);
  EXPECT_DOUBLE_EQ(m.decode->step.flops, s.flops);
  EXPECT_DOUBLE_EQ(*m.intensity, s.flops / s.bytes);
  EXPECT_NEAR(*m.intensity, 31.1, 0.05);
}

// With roofs, each op's share is its time × count over the step's time, and the shares of the ops
// plus the all-reduces' share make the whole step (tp = 2 on --tp-busbw 300 GB/s, latency 7 µs).
TEST(OpsStep, SharesAndAllReducesMakeTheStep) {
  const model_config cfg = load_model_config(resolve_model_path("llama-3-8b"));
  catalogue_options opt;
  opt.ph = phase::decode, opt.batch = 8, opt.context = 2048, opt.dtype = "fp16", opt.tp = 2;
  placement_roofs r;
  r.peak = 989e12, r.bandwidth = 3.35e12, r.source = "H100 SXM datasheet (989 TFLOP/s dense fp16, 3.35 TB/s)";
  r.precision = "fp16", r.lat = default_latency_model("gpu");
  const ops_step s = compute_ops_step(cfg, opt, r, true, {300, 7.0, "", ""});
  ASSERT_TRUE(s.tp);
  ASSERT_EQ(s.placed.size(), s.ops.size());
  double shares = 0;
  for (const auto& p : s.placed) shares += p.share;
  EXPECT_NEAR(shares + s.tp->seconds_per_step / s.total_s, 1.0, 1e-12);
  EXPECT_EQ(s.tp_source, "--tp-busbw 300 GB/s; latency --tp-latency 7 µs");
  ASSERT_EQ(s.fusion_times.size(), s.fusions.size());
  for (std::size_t i = 0; i < s.fusions.size(); ++i)
    EXPECT_NEAR(s.fusion_times[i].bytes_only_s, s.fusions[i].bytes_saved() * s.fusions[i].count / 3.35e12, 1e-18);
}

TEST(OpsStep, AllReduceLinkNeedsABandwidth) {
  const allreduce_link l = resolve_allreduce_link({300, std::nullopt, "", ""});
  EXPECT_DOUBLE_EQ(l.busbw_bytes_per_s, 300e9);
  EXPECT_DOUBLE_EQ(l.latency_s, default_allreduce_latency_s);
  try {
    resolve_allreduce_link({});
    FAIL() << "no busbw and no device must be refused";
  } catch (const input_error& e) {
    EXPECT_EQ(e.field(), "--tp-busbw");
  }
  EXPECT_THROW(resolve_allreduce_link({300, -1.0, "", ""}), input_error);
}

TEST(OpsStep, FleetFileAllReduceRoof) {
  const std::string path = ::testing::TempDir() + "roofline_fleet_allreduce.json";
  {
    std::ofstream f(path);
    f << R"({"interconnect": {"roofs": [{"collective": "all_gather", "latency_s": 1e-5, "busbw_bytes_per_s": 2e11},
                                        {"collective": "all_reduce", "latency_s": 1.2e-5, "busbw_bytes_per_s": 3.6e11}]}})";
  }
  const fleet::allreduce_roof a = fleet::read_allreduce_roof(path);
  EXPECT_DOUBLE_EQ(a.latency_s, 1.2e-5);
  EXPECT_DOUBLE_EQ(a.busbw_bytes_per_s, 3.6e11);
  {
    std::ofstream f(path);
    f << R"({"interconnect": {"roofs": []}})";
  }
  try {
    fleet::read_allreduce_roof(path);
    FAIL() << "a fleet file without an all_reduce roof must be refused";
  } catch (const input_error& e) {
    EXPECT_EQ(e.field(), "interconnect.roofs");
  }
  std::remove(path.c_str());
}

}  // namespace
