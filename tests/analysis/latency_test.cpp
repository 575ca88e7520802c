// The small-work model: floor + latency-limited memory time, and the three classes.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "fixtures.hpp"
#include "roofline/analysis.hpp"
#include "roofline/error.hpp"
#include "roofline/json.hpp"
#include "roofline/latency.hpp"
#include "roofline/measure.hpp"

using namespace roofline;

namespace {

roofline_summary h200_roofs() {
  const results r = test::h200_results();
  return summarize_roofline(r.nominal, r.measured, "fp16");  // measured: 760 TFLOP/s, 4.3 TB/s
}

/// A CPU attention-tile rate point (measured.gemm_attention): 256 query rows against 2048 keys, fp32.
gemm_attention_result attention_tile(const char* gemm, std::int64_t d, double median) {
  gemm_attention_result g;
  g.precision = "fp32", g.gemm = gemm, g.head_dim = d, g.tile_rows = 256, g.keys = 2048;
  g.flops_per_s = median, g.median_flops_per_s = median, g.verified = true;
  return g;
}

op_desc residual_add_decode_b1() {  // TinyLlama attn_residual at decode batch 1: 3 × 2048 × 2 B
  op_desc add = elementwise_op(op_kind::add, "attn_residual", 1, 2048, 2);
  add.ph = phase::decode;
  return add;
}

}  // namespace

TEST(LatencyModel, DefaultGpuFloorMakesATinyOpLatencyBound) {
  const latency_model gpu = default_latency_model("gpu");
  EXPECT_DOUBLE_EQ(gpu.floor_s, 0.6e-6);
  EXPECT_DOUBLE_EQ(gpu.latency_s, 0.8e-6);
  const op_desc add = residual_add_decode_b1();
  ASSERT_DOUBLE_EQ(add.bytes(), 12288.0);
  const op_result r = place_op(add, h200_roofs(), gpu);
  // 0.6 µs floor + 0.8 µs latency + 12288 B ÷ 4.3 TB/s (2.9 ns) = 1.4029 µs — the H200 measured
  // 1.27 µs for this op (bench/results/h200/2026-11-29/results.json), bytes ÷ bandwidth alone 2.9 ns.
  EXPECT_NEAR(r.predicted_s, 0.6e-6 + 0.8e-6 + 12288.0 / 4.3e12, 1e-15);
  EXPECT_EQ(r.bound, "latency");
  ASSERT_TRUE(r.memory_s);
  EXPECT_NEAR(*r.memory_s, 0.8e-6 + 12288.0 / 4.3e12, 1e-15);
  EXPECT_EQ(r.advice.rfind("latency-bound", 0), 0u);
}

TEST(LatencyModel, LargeOpsKeepTheirRoofClass) {
  const latency_model gpu = default_latency_model("gpu");
  // lm_head at decode batch 1: 131 MB of weights: 30.5 µs at 4.3 TB/s ≫ the 1.4 µs of floor + latency
  op_desc lm = gemm_op("lm_head", 1, 32000, 2048, 2);
  lm.ph = phase::decode;
  const op_result r = place_op(lm, h200_roofs(), gpu);
  EXPECT_EQ(r.bound, "bandwidth");
  EXPECT_NEAR(r.predicted_s, 0.6e-6 + 0.8e-6 + lm.bytes() / 4.3e12, 1e-15);
  op_desc up = gemm_op("up_proj", 2048, 5632, 2048, 2);
  up.ph = phase::prefill;
  const op_result c = place_op(up, h200_roofs(), gpu);
  EXPECT_EQ(c.bound, "compute");
  EXPECT_NEAR(c.predicted_s, up.flops / 760e12 + 0.6e-6, 1e-15);
}

TEST(LatencyModel, RampIsInterpolatedLogLog) {
  latency_model m;
  m.ramp = {{4096, 1e-6}, {1048576, 1.5e-6}, {1073741824, 250e-6}};
  // 64 KiB sits halfway (in log) between 4 KiB and 1 MiB: √(1 µs × 1.5 µs)
  EXPECT_NEAR(m.memory_time(65536, 4.3e12), std::sqrt(1e-6 * 1.5e-6), 1e-15);
  EXPECT_DOUBLE_EQ(m.memory_time(100, 4.3e12), 1e-6);  // below the first point: its latency
  EXPECT_DOUBLE_EQ(m.memory_time(4096, 4.3e12), 1e-6);
  // beyond the last point: the last point's rate (4.295 TB/s here), never faster than bytes ÷ bw
  EXPECT_NEAR(m.memory_time(2147483648.0, 4.3e12), 500e-6, 1e-12);
  EXPECT_DOUBLE_EQ(m.memory_time(0, 4.3e12), 0);
  latency_model hockney;
  hockney.latency_s = 0.8e-6;
  EXPECT_NEAR(hockney.memory_time(1e6, 4e12), 0.8e-6 + 0.25e-6, 1e-18);  // L + bytes ÷ BW
}

TEST(LatencyModel, FromMeasurementSubtractsTheFloorAndKeepsTheRampMonotonic) {
  measured_roofs m;
  small_work_result sw;
  sw.floor_s = 0.5e-6;
  sw.ramp = {{16384, 1.3e-6}, {4096, 1.4e-6}, {65536, 1.6e-6}};  // unsorted; 4 KiB noisier than 16 KiB
  m.small_work = sw;
  compute_result g1, g2;
  g1.precision = g2.precision = "fp16";
  g1.engine = g2.engine = "gemm";
  g1.size = 1024, g1.flops_per_s = 400e12;
  g2.size = 4096, g2.flops_per_s = 700e12;
  m.compute = {g2, g1};
  const latency_model lat = latency_model_from(m, "cuda", "fp16");
  EXPECT_DOUBLE_EQ(lat.floor_s, 0.5e-6);
  ASSERT_EQ(lat.ramp.size(), 3u);
  EXPECT_DOUBLE_EQ(lat.ramp[0].bytes, 4096);
  EXPECT_NEAR(lat.ramp[0].seconds, 0.9e-6, 1e-18);
  EXPECT_NEAR(lat.ramp[1].seconds, 0.9e-6, 1e-18);  // 0.8 µs measured, kept at 0.9: more bytes are never cheaper
  EXPECT_NEAR(lat.ramp[2].seconds, 1.1e-6, 1e-18);
  EXPECT_EQ(lat.source.rfind("measured", 0), 0u);
  // P(shape): a 2048³ GEMM between the 1024 and 4096 points, log-log: √(400 × 700) TFLOP/s
  const op_desc g = gemm_op("q_proj", 2048, 2048, 2048, 2);
  EXPECT_NEAR(lat.compute_rate(g, 760e12), std::sqrt(400e12 * 700e12), 1e3);
  EXPECT_DOUBLE_EQ(lat.compute_rate(residual_add_decode_b1(), 760e12), 760e12);  // not a GEMM: the peak
}

TEST(LatencyModel, FromALaunchProbeOnlyUsesTheGraphFloorAndTheDefaultLatency) {
  measured_roofs m;
  launch_result l;
  l.kernel_s = 10e-6;
  l.graph_s = 0.53e-6;
  m.launch = l;
  const latency_model lat = latency_model_from(m, "cuda", "fp16");
  EXPECT_DOUBLE_EQ(lat.floor_s, 0.53e-6);
  EXPECT_DOUBLE_EQ(lat.latency_s, 0.8e-6);
  EXPECT_TRUE(lat.ramp.empty());
  const latency_model cpu = latency_model_from(measured_roofs{}, "cpu", "fp32");
  EXPECT_DOUBLE_EQ(cpu.floor_s, 2e-6);
  EXPECT_NE(cpu.source.find("default"), std::string::npos);
}

TEST(LatencyModel, Classes) {
  // bandwidth-bound: 10 µs of bytes + 1 µs floor; latency-bound: 0.2 µs of bytes + 1.4 µs
  EXPECT_EQ(predict_time(0, 43e6, 760e12, 4.3e12, 1e-6, 10e-6).bound, "bandwidth");
  EXPECT_EQ(predict_time(0, 0.86e6, 760e12, 4.3e12, 0.6e-6, 1.0e-6).bound, "latency");
  EXPECT_EQ(predict_time(760e6, 1e3, 760e12, 4.3e12, 0.1e-6, 0).bound, "compute");
  EXPECT_EQ(predict_time(1, 1, 0, 4.3e12, 0, 0).bound, "unknown");
  const time_terms t = predict_time(0, 0.86e6, 760e12, 4.3e12, 0.6e-6, 1.0e-6);
  EXPECT_NEAR(t.total_s, 1.6e-6, 1e-18);
  EXPECT_NEAR(t.bandwidth_s, 0.2e-6, 1e-18);
  EXPECT_THROW(default_latency_model("tpu"), input_error);
}

TEST(LatencyModel, FusingSiluAndMulAtDecodeSavesAWholeKernel) {
  // TinyLlama decode batch 1, fp16: silu 2 × 5632 × 2 B, mul 3 × 5632 × 2 B, fused 3 × 5632 × 2 B.
  model_config cfg;
  cfg.name = "TinyLlama-1.1B";
  cfg.family = "llama";
  cfg.hidden = 2048, cfg.intermediate = 5632, cfg.layers = 22, cfg.heads = 32, cfg.kv_heads = 4, cfg.head_dim = 64;
  cfg.vocab = 32000;
  catalogue_options o;
  o.ph = phase::decode;
  o.batch = 1;
  const auto ops = build_catalogue(cfg, o);
  const auto savings = fusion_savings(ops);
  ASSERT_FALSE(savings.empty());
  const fusion_saving& f = savings[0];
  ASSERT_EQ(f.name, "silu_mul");
  ASSERT_EQ(f.before_ops.size(), 2u);
  ASSERT_EQ(f.after_ops.size(), 1u);
  const latency_model gpu = default_latency_model("gpu");
  double before = 0, after = 0;
  for (const auto& op : f.before_ops) before += place_op(op, h200_roofs(), gpu).predicted_s;
  for (const auto& op : f.after_ops) after += place_op(op, h200_roofs(), gpu).predicted_s;
  // bytes alone save 2 × 5632 × 2 B = 22.5 kB ÷ 4.3 TB/s = 5.2 ns; with the model one kernel
  // (0.6 µs floor + 0.8 µs latency + its bytes) disappears
  EXPECT_NEAR(f.bytes_saved(), 22528.0, 1e-9);
  EXPECT_NEAR(before - after, 0.6e-6 + 0.8e-6 + 22528.0 / 4.3e12, 1e-15);
}

// Decode at batch 32 on a 2-vCPU Zen 4 guest (2026-12-02): q_proj (M = 32, N = K = 2048, fp32) ran
// 3215 µs; the square sweep's rate at (32·2048·2048)^(1/3) = 512 is 164 GFLOP/s, which predicts
// 1638 µs (0.51 of measured). The GEMM rate against rows at a 2048 x 2048 weight, 84 GFLOP/s at
// M = 32, predicts 3196 µs.
TEST(LatencyModel, FewRowsReadTheRowsSweepNotTheSquareRate) {
  measured_roofs m;
  compute_result sq;
  sq.precision = "fp32", sq.engine = "gemm", sq.size = 512, sq.flops_per_s = 164e9;
  compute_result sq2 = sq;
  sq2.size = 2048, sq2.flops_per_s = 180e9;
  m.compute = {sq, sq2};
  auto row = [](std::int64_t r, double rate, bool verified = true, const char* prec = "fp32") {
    gemm_rows_result g;
    g.precision = prec, g.m = r, g.n = g.k = 2048, g.median_flops_per_s = rate, g.flops_per_s = 1.1 * rate;
    g.verified = verified;
    return g;
  };
  m.gemm_rows = {row(32, 84e9), row(8, 40e9), row(128, 140e9), row(64, 1e9, false), row(16, 1e9, true, "fp64")};
  const latency_model lat = latency_model_from(m, "cpu", "fp32");
  ASSERT_EQ(lat.gemm_rows.size(), 1u);  // one fixed weight
  ASSERT_EQ(lat.gemm_rows[0].points.size(), 3u);  // the unverified point and the fp64 point are left out, the rest sorted
  EXPECT_DOUBLE_EQ(lat.gemm_rows[0].points.front().first, 8);
  EXPECT_EQ(lat.gemm_rows[0].linears, "");
  const double peak = 236e9;
  const op_desc q32 = gemm_op("q_proj", 32, 2048, 2048, 4);
  // the median less the default CPU floor of 2 µs: 268.4 MFLOP in 3196 − 2 µs
  EXPECT_NEAR(q32.flops / lat.compute_rate(q32, peak) * 1e6, 3196 - 2, 1);
  EXPECT_NEAR(lat.predict(q32, peak, 76.6e9).total_s * 1e6, 3196, 1);  // the floor added back: the probe's time
  const auto rate = [](double m, double median) {  // the rate less the floor at m rows
    const double f = 2 * m * 2048 * 2048;
    return f / (f / median - 2e-6);
  };
  EXPECT_NEAR(lat.compute_rate(gemm_op("q_proj", 16, 2048, 2048, 4), peak), std::sqrt(rate(8, 40e9) * rate(32, 84e9)), 1e4);
  // another weight shape reads the fixed weight's curve too (the CPU measures one)
  EXPECT_GT(lat.rows_rate(32, 256, 2048), 0);
  // Outside the rows range the square rule holds: M = 1 reads size (2048²)^(1/3) = 161 -> the 512 point;
  // M = 2048 (prefill) reads the 2048 point.
  EXPECT_DOUBLE_EQ(lat.compute_rate(gemm_op("q_proj", 1, 2048, 2048, 4), peak), 164e9);
  EXPECT_NEAR(lat.compute_rate(gemm_op("q_proj", 2048, 2048, 2048, 4), peak), 180e9, 1e3);
  EXPECT_DOUBLE_EQ(lat.compute_rate(q32, 50e9), 50e9);  // never above the peak
  // The JSON form names the rows points.
  const json j = json(lat);
  ASSERT_EQ(j.at("gemm_rows").size(), 3u);
  EXPECT_DOUBLE_EQ(j.at("gemm_rows")[1].at("m").get<double>(), 32);
}

// Decode attention on the same guest (TinyLlama, 32 query / 4 KV heads, head_dim 64, context 2048,
// fp32): QKᵀ and P·V of one KV head are GEMMs of 8 rows (the group's query heads). 17.1 MFLOP at
// the rows rate at M = 8, 33.9 GFLOP/s, is 505 µs; the op ran 550 µs (bytes ÷ the DRAM roof: 130 µs).
TEST(LatencyModel, DecodeAttentionReadsTheRowsRateAtItsGqaGroup) {
  latency_model lat;
  lat.gemm_rows = {{2048, 2048, "", {{4, 16.4e9}, {8, 33.9e9}, {16, 56.8e9}}}};
  const op_desc a = attention_op(op_kind::attention_decode, 1, 32, 4, 64, 1, 2048, 4, 4, false);
  EXPECT_NEAR(lat.compute_rate(a, 236e9), 33.9e9, 1e3);
  EXPECT_NEAR(a.flops / lat.compute_rate(a, 236e9) * 1e6, 505, 1);
  // Multi-head attention (one query head per KV head): 1 row is below the measured range: the peak.
  const op_desc mha = attention_op(op_kind::attention_decode, 1, 32, 32, 64, 1, 2048, 4, 4, false);
  EXPECT_DOUBLE_EQ(lat.compute_rate(mha, 236e9), 236e9);
  // Prefill attention is not read from the rows sweep.
  const op_desc pre = attention_op(op_kind::attention_fused, 1, 32, 4, 64, 2048, 2048, 4, 4, true);
  EXPECT_DOUBLE_EQ(lat.compute_rate(pre, 236e9), 236e9);
}

// The 2-vCPU Zen 4 guest (2026-12-02, bench/results/cpu-zen4/2026-12-02-1e9fccd/):
// floor 0.56 µs; a cold read streams at ~30 GB/s from 64 KiB to 1 GiB, below the best-pattern DRAM
// roof of 76.6 GB/s. gate_proj at decode batch 1 (46.2 MB of weights) is predicted 1.54 ms (measured
// 1.45): it streams at the ramp's rate, so it is bandwidth-bound, although 1.54 ms is more than twice
// 46.2 MB ÷ 76.6 GB/s = 0.60 ms. The residual add (24.6 kB, 2.0 µs) stays latency-bound.
TEST(LatencyModel, TheClassIsJudgedAgainstTheRampsStreamingRate) {
  measured_roofs m;
  small_work_result sw;
  sw.floor_s = 0.564e-6;
  sw.ramp = {{4096, 1.067e-6},       {16384, 1.7225e-6},    {65536, 2.729e-6},        {262144, 8.808e-6},
             {1048576, 40.8805e-6}, {4194304, 155.306e-6}, {16777216, 576.7875e-6},  {67108864, 2204.739e-6},
             {268435456, 8611.008e-6}, {1073741824, 36114.336e-6}};
  m.small_work = sw;
  const latency_model lat = latency_model_from(m, "cpu", "fp32");
  const double roof = 76.6e9;
  EXPECT_NEAR(lat.class_bandwidth(roof) / 1e9, 29.7, 0.1);
  EXPECT_DOUBLE_EQ(lat.class_bandwidth(10e9), 10e9);  // never above the roof
  const double gate_bytes = 46168064;
  const time_terms gate = predict_time(0, gate_bytes, 236e9, roof, lat.floor_s, lat.memory_time(gate_bytes, roof),
                                       lat.class_bandwidth(roof));
  EXPECT_NEAR(gate.total_s * 1e6, 1536, 5);
  EXPECT_EQ(gate.bound, "bandwidth");
  // judged against the roof alone it would read "latency"
  EXPECT_EQ(predict_time(0, gate_bytes, 236e9, roof, lat.floor_s, lat.memory_time(gate_bytes, roof)).bound, "latency");
  const time_terms add = predict_time(6144, 24576, 236e9, roof, lat.floor_s, lat.memory_time(24576, roof),
                                      lat.class_bandwidth(roof));
  EXPECT_EQ(add.bound, "latency");
}

// The one-thread regime: the 2-vCPU Zen 3 guest (2026-12-02): a chain of OpenMP regions whose `if`
// clause is false costs 0.395 µs each; one thread reads 16 KiB cold in 1.18 µs and 64 KiB in 3.77 µs.
// TinyLlama's residual add at decode batch 1 in fp32 (2048 elements, 24,576 B) runs on one thread:
// 0.395 + 1.18 · 1.5^(ln(3.77/1.18)/ln 4) = 2.05 µs; it ran 2.18 µs there. The all-thread model
// (floor 1.10 µs, ramp 1.60 µs at 4 KiB and 1.92 µs at 16 KiB) would not apply to it.
TEST(LatencyModel, SmallOpsRunOnOneThreadAndReadTheOneThreadRamp) {
  measured_roofs m;
  small_work_result sw;
  sw.floor_s = 1.097e-6;
  sw.ramp = {{4096, 1.60e-6}, {16384, 1.92e-6}, {65536, 3.54e-6}, {262144, 9.31e-6}, {1048576, 29.79e-6}};
  sw.serial_below_elements = 32768;
  sw.serial_floor_s = 0.395e-6;
  sw.serial_ramp = {{4096, 0.32e-6}, {16384, 1.18e-6}, {65536, 3.77e-6}, {262144, 13.92e-6}, {1048576, 50.70e-6}};
  m.small_work = sw;
  const latency_model lat = latency_model_from(m, "cpu", "fp32");
  EXPECT_EQ(lat.serial_below_elements, 32768);
  ASSERT_EQ(lat.serial_ramp.size(), 5u);
  EXPECT_DOUBLE_EQ(lat.serial_ramp[1].seconds, 1.18e-6);  // nothing subtracted: no region in these reads
  EXPECT_NE(lat.source.find("one thread"), std::string::npos) << lat.source;

  op_desc add = elementwise_op(op_kind::add, "attn_residual", 1, 2048, 4);
  add.ph = phase::decode;
  ASSERT_DOUBLE_EQ(add.bytes(), 24576);
  EXPECT_TRUE(lat.runs_serial(add));
  const double roof = 48.45e9;
  const time_terms t = lat.predict(add, 210e9, roof);
  EXPECT_NEAR(t.floor_s * 1e6, 0.395, 1e-9);
  EXPECT_NEAR(t.total_s * 1e6, 2.05, 0.01);
  EXPECT_EQ(t.bound, "latency");

  // batch 32 writes 65,536 elements: all threads, the all-thread floor and ramp
  op_desc add32 = elementwise_op(op_kind::add, "attn_residual", 32, 2048, 4);
  EXPECT_FALSE(lat.runs_serial(add32));
  EXPECT_NEAR(lat.predict(add32, 210e9, roof).floor_s * 1e6, 1.097, 1e-9);
  // the threshold counts elements, not bytes: the same op in 2-byte elements is as serial
  EXPECT_TRUE(lat.runs_serial(elementwise_op(op_kind::add, "attn_residual", 1, 2048, 2)));
  // GEMMs and attention are never predicted as one-thread ops, however small
  EXPECT_FALSE(lat.runs_serial(gemm_op("k_proj", 1, 256, 2048, 4)));
  EXPECT_FALSE(lat.runs_serial(attention_op(op_kind::attention_decode, 1, 4, 2, 64, 1, 16, 4, 4, false)));
  // the embedding gather of one token is a one-thread op
  EXPECT_TRUE(lat.runs_serial(embedding_op("embed_tokens", 1, 2048, 4, 32000)));

  // without the one-thread measurement (a GPU, an older file) every op keeps the all-thread terms
  measured_roofs old = m;
  old.small_work->serial_ramp.clear();
  const latency_model lat_old = latency_model_from(old, "cpu", "fp32");
  EXPECT_FALSE(lat_old.runs_serial(add));
  EXPECT_NEAR(lat_old.predict(add, 210e9, roof).floor_s * 1e6, 1.097, 1e-9);
  const json j = json(lat);
  EXPECT_EQ(j.at("serial_below_elements").get<std::int64_t>(), 32768);
  EXPECT_EQ(j.at("serial_ramp").size(), 5u);
}

// Write-allocate, measured on a 2-vCPU Intel Xeon (Sapphire Rapids class) KVM guest, 2026-12-02
// (bench/results/cpu-xeon-spr/2026-12-02-c94897b): one parallel region read 64 MiB cold in 2.0964 ms (floor
// 0.72 µs) and copied 64 MiB into a cold buffer with ordinary stores in 5.0243 ms, so a written byte
// costs (5.0243 − 0.0007) ÷ (2.0964 − 0.0007) − 1 = 1.397 read bytes. TinyLlama's prefill mul
// (2048 × 5632, fp32: 92.3 MB read, 46.1 MB written) is read on the ramp at 92.3 + 1.397 · 46.1 =
// 156.7 MB: 4.83 ms; it ran 4.73 ms (read + written alone: 4.27 ms, 0.90 of it). RoPE rotates q and k
// in place, so its writes pay the write-back only: 19.9 + 0.397 · 18.9 = 27.4 MB, 0.856 ms; it ran
// 0.938 ms (1.21 ms at read + written).
TEST(LatencyModel, WrittenBytesCostTheMeasuredWriteAllocate) {
  measured_roofs m;
  small_work_result sw;
  sw.floor_s = 0.7197e-6;
  sw.ramp = {{4096, 1.1075e-6},          {16384, 1.7415e-6},        {65536, 4.1215e-6},
             {262144, 11.8835e-6},       {1048576, 34.603e-6},      {4194304, 129.462e-6},
             {16777216, 523.5265e-6},    {67108864, 2096.413e-6},   {268435456, 8201.7555e-6},
             {1073741824, 32308.895e-6}};
  sw.write_copy = ramp_point{67108864, 5024.269e-6};
  sw.write_cost = (5024.269e-6 - sw.floor_s) / (2096.413e-6 - sw.floor_s) - 1.0;
  sw.write_in_place = {"rope"};
  m.small_work = sw;
  const latency_model lat = latency_model_from(m, "cpu", "fp32");
  ASSERT_TRUE(lat.write_cost.has_value());
  EXPECT_NEAR(*lat.write_cost, 1.397, 0.001);
  EXPECT_NE(lat.source.find("1.40 read bytes"), std::string::npos) << lat.source;
  const double peak = 424.16e9, roof = 48.625e9;

  op_desc mul = elementwise_op(op_kind::mul, "mul", 2048, 5632, 4);
  mul.ph = phase::prefill;
  EXPECT_NEAR(lat.traffic_bytes(mul) / 1e6, 92.27 + 1.397 * 46.14, 0.1);
  EXPECT_NEAR(mul.bytes(), 138.4e6, 0.1e6);  // the op's own bytes (and intensity) are unchanged
  EXPECT_NEAR(lat.predict(mul, peak, roof).total_s * 1e3, 4.830, 0.002);
  EXPECT_EQ(lat.predict(mul, peak, roof).bound, "bandwidth");

  const op_desc rope = rope_op(2048, 32, 4, 64, 4);
  EXPECT_NEAR(lat.traffic_bytes(rope) / 1e6, 19.92 + 0.397 * 18.87, 0.05);
  EXPECT_NEAR(lat.predict(rope, peak, roof).total_s * 1e6, 855.7, 0.5);

  // not measured (a GPU, an older file): a written byte counts as a read byte
  measured_roofs old = m;
  old.small_work->write_cost.reset();
  const latency_model lat_old = latency_model_from(old, "cpu", "fp32");
  EXPECT_FALSE(lat_old.write_cost.has_value());
  EXPECT_DOUBLE_EQ(lat_old.traffic_bytes(mul), mul.bytes());
  EXPECT_NEAR(lat_old.predict(mul, peak, roof).total_s * 1e3, 4.274, 0.002);
  EXPECT_NEAR(lat_old.predict(rope, peak, roof).total_s * 1e6, 1211.3, 1.0);
  const json j = json(lat);
  EXPECT_NEAR(j.at("write_cost").get<double>(), 1.397, 0.001);
  EXPECT_EQ(j.at("write_in_place").at(0), "rope");
}

// Fused attention's own rate (probe gemm/attention, the H200 of 2026-12-02, bench/results/h200/2026-12-02-a307b55):
// cuDNN's fused SDPA at 16 causal heads of head_dim 64 ran at a median 313.3 TFLOP/s over 1024 tokens
// and 399.5 over 4096 (head_dim 128: 388.9 and 498.7). TinyLlama's prefill attention (32 heads × 64,
// 2048 tokens, 17.52 GFLOP) reads it log-log at 2048 tokens: √(313.3 · 399.5) = 353.8 TFLOP/s,
// 49.53 µs + the 0.96 µs floor = 50.48 µs; it ran 57.3 µs. At the fp16 GEMM peak (683 TFLOP/s) the
// prediction was 25.6 µs + floor, 0.46 of measured.
TEST(LatencyModel, FusedAttentionReadsItsOwnMeasuredRate) {
  measured_roofs m;
  small_work_result sw;
  sw.floor_s = 0.95584e-6;
  sw.ramp = {{4096, 2.0e-6}, {1073741824, 240e-6}};
  m.small_work = sw;
  auto sdpa = [](const char* prec, std::int64_t d, std::int64_t tokens, double median) {
    gemm_attention_result g;
    g.precision = prec, g.gemm = "sdpa", g.head_dim = d, g.tile_rows = tokens, g.keys = tokens;
    g.flops_per_s = 1.1 * median, g.median_flops_per_s = median, g.verified = true;
    return g;
  };
  m.gemm_attention = {sdpa("fp16", 64, 1024, 313.343e12), sdpa("fp16", 64, 4096, 399.540e12),
                      sdpa("fp16", 128, 1024, 388.929e12), sdpa("fp16", 128, 4096, 498.712e12),
                      sdpa("bf16", 64, 1024, 326e12)};
  const latency_model lat = latency_model_from(m, "cuda", "fp16");
  ASSERT_EQ(lat.fused_rates.size(), 4u);  // the bf16 point belongs to another precision
  EXPECT_TRUE(lat.attention_rates.empty());  // sdpa points are not tile GEMM rates
  EXPECT_NE(lat.source.find("its own rate at 1024 to 4096 tokens"), std::string::npos) << lat.source;
  const double peak = 683.24e12, bw = 4687.4e9;

  op_desc attn = attention_op(op_kind::attention_fused, 1, 32, 4, 64, 2048, 2048, 2, 2, true);
  attn.ph = phase::prefill;
  EXPECT_NEAR(attn.flops / 1e9, 17.524, 0.001);
  EXPECT_NEAR(lat.compute_rate(attn, peak) / 1e12, std::sqrt(313.343 * 399.540), 0.01);
  const time_terms t = lat.predict(attn, peak, bw);
  EXPECT_NEAR(t.total_s * 1e6, 50.48, 0.02);
  EXPECT_EQ(t.bound, "compute");
  // head_dim 96 lies between the measured 64 and 128: log-log in head_dim at the op's length
  op_desc attn96 = attention_op(op_kind::attention_fused, 1, 32, 32, 96, 1024, 1024, 2, 2, true);
  EXPECT_NEAR(lat.compute_rate(attn96, peak) / 1e12, 313.343 * std::pow(388.929 / 313.343, std::log(1.5) / std::log(2.0)), 0.01);
  // beyond the measured lengths the nearest length's rate; outside the head dims, the peak
  op_desc attn_long = attention_op(op_kind::attention_fused, 1, 32, 4, 64, 16384, 16384, 2, 2, true);
  EXPECT_NEAR(lat.compute_rate(attn_long, peak) / 1e12, 399.540, 0.001);
  op_desc attn256 = attention_op(op_kind::attention_fused, 1, 8, 8, 256, 2048, 2048, 2, 2, true);
  EXPECT_DOUBLE_EQ(lat.compute_rate(attn256, peak), peak);
  const json j = json(lat);
  EXPECT_EQ(j.at("fused_attention_rates").size(), 4u);
}

// Fused prefill attention on the CPU from its tiles (the 2-vCPU Intel Xeon guest, 2026-12-02,
// bench/results/cpu-xeon-spr/2026-12-02-c94897b): 256-row tiles against 2048 keys at head_dim 64 ran S = Q·Kᵀ
// at 261.3 GFLOP/s, O = P·V at 252.3 and the softmax between them at 22.87 GFLOP/s (5 FLOPs per score).
// TinyLlama's prefill attention (32 heads, 2048 tokens, fp32: 17.524 GFLOP, of which 256/261 in the
// GEMMs) computes 2048 · (2048 + 256) / 2 pairs per head against the 2048 · 2049 / 2 counted (1.1245×):
// 1.1245 · (8.594 / 261.3 + 8.594 / 252.3) + 0.336 / 22.87 = 75.30 + 14.68 = 89.98 ms; it ran
// 92.97 ms. The two GEMM rates alone (the model before the softmax and the diagonal tiles) gave 67.0 ms.
TEST(LatencyModel, CpuFusedAttentionAddsItsSoftmaxAndDiagonalTiles) {
  measured_roofs m;
  m.gemm_attention = {attention_tile("qk", 64, 261.2757e9),  attention_tile("softmax", 64, 22.8688e9), attention_tile("pv", 64, 252.2528e9),
                      attention_tile("qk", 128, 302.8150e9), attention_tile("softmax", 128, 22.8001e9), attention_tile("pv", 128, 279.8521e9)};
  const latency_model lat = latency_model_from(m, "cpu", "fp32");
  ASSERT_EQ(lat.attention_rates.size(), 2u);
  EXPECT_DOUBLE_EQ(lat.attention_rates[0].tile_rows, 256);
  EXPECT_DOUBLE_EQ(lat.attention_rates[0].softmax, 22.8688e9);
  op_desc attn = attention_op(op_kind::attention_fused, 1, 32, 4, 64, 2048, 2048, 4, 4, true);
  attn.ph = phase::prefill;
  const double peak = 461.1e9;
  EXPECT_NEAR(attn.flops / lat.compute_rate(attn, peak) * 1e3, 89.976, 0.01);
  // without the softmax point (an older file): the GEMMs of the diagonal tiles alone
  measured_roofs old = m;
  std::erase_if(old.gemm_attention, [](const auto& g) { return g.gemm == "softmax"; });
  const latency_model lat_old = latency_model_from(old, "cpu", "fp32");
  EXPECT_NEAR(attn.flops / lat_old.compute_rate(attn, peak) * 1e3, 75.30, 0.01);
  // counted by the full convention (--causal full: n² pairs), the causal kernel still computes
  // n(n + T)/2 of them: the same time, so the rate against the larger count is higher
  op_desc full = attention_op(op_kind::attention_fused, 1, 32, 4, 64, 2048, 2048, 4, 4, false);
  const double gemm = full.flops * 256 / 261, computed = 2048.0 * (2048 + 256) / 2 / (2048.0 * 2048);
  EXPECT_NEAR(full.flops / lat.compute_rate(full, peak),
              computed * (gemm / 2 / 261.2757e9 + gemm / 2 / 252.2528e9) + (full.flops - gemm) / 22.8688e9, 1e-9);
  // one query row (decode-shaped, not causal-square): the counted pairs, no diagonal term
  op_desc one = attention_op(op_kind::attention_fused, 1, 32, 4, 64, 1, 2048, 4, 4, true);
  const double g1 = one.flops * 256 / 261;
  EXPECT_NEAR(one.flops / lat.compute_rate(one, peak),
              g1 / 2 / 261.2757e9 + g1 / 2 / 252.2528e9 + (one.flops - g1) / 22.8688e9, 1e-12);
}

// Naive prefill attention on the CPU (the 2-vCPU Intel Xeon guest, 2026-12-02, run 3 of
// bench/results/cpu-xeon-spr/2026-12-02-c94897b): QKᵀ and P·V over every pair of full rows (32 heads ×
// 2048 × 2048, 2 · 64 FLOPs each per GEMM: 17.18 GFLOP each) at the tile rates 270.8 and 249.7
// GFLOP/s, 63.43 + 68.81 ms, then the softmax over the 512 MiB of scores as that op is predicted
// (bandwidth-bound, 70.60 ms): 202.84 ms; it ran 246.2 ms. At the roofs alone: 70.6 ms, bandwidth.
TEST(LatencyModel, CpuNaiveAttentionIsItsGemmsThenItsSoftmax) {
  measured_roofs m;
  small_work_result sw;
  sw.floor_s = 0.70834e-6;
  sw.ramp = {{4096, 1.1825e-6},         {16384, 1.7355e-6},       {65536, 4.1655e-6},       {262144, 11.675e-6},
             {1048576, 35.009e-6},      {4194304, 131.783e-6},    {16777216, 508.8185e-6},  {67108864, 2003.755e-6},
             {268435456, 8058.584e-6},  {1073741824, 32122.366e-6}};
  sw.write_cost = 1.39576;
  m.small_work = sw;
  m.gemm_attention = {attention_tile("qk", 64, 270.844e9),  attention_tile("softmax", 64, 22.6464e9), attention_tile("pv", 64, 249.6625e9),
                      attention_tile("qk", 128, 299.2884e9), attention_tile("softmax", 128, 22.9163e9), attention_tile("pv", 128, 279.2341e9)};
  const latency_model lat = latency_model_from(m, "cpu", "fp32");
  const double peak = 480.45e9, bw = 49.619e9;
  op_desc naive = attention_op(op_kind::attention_naive, 1, 32, 4, 64, 2048, 2048, 4, 4, true);
  naive.ph = phase::prefill;
  EXPECT_NEAR(lat.naive_gemm_seconds(naive) * 1e3, 63.43 + 68.81, 0.01);
  const time_terms sm = lat.predict(attention_softmax_op(naive), peak, bw);
  EXPECT_NEAR(sm.total_s * 1e3, 70.60, 0.01);
  const time_terms t = lat.predict(naive, peak, bw);
  EXPECT_NEAR(t.total_s * 1e3, 202.84, 0.02);
  EXPECT_NEAR(t.compute_s - sm.compute_s, lat.naive_gemm_seconds(naive), 1e-12);
  EXPECT_DOUBLE_EQ(t.memory_s, sm.memory_s);
  EXPECT_EQ(t.bound, "compute");
  // no tile rates (a GPU, an older file): the two roofs, bandwidth-bound on these bytes
  measured_roofs gpu_like = m;
  gpu_like.gemm_attention.clear();
  const latency_model plain = latency_model_from(gpu_like, "cpu", "fp32");
  EXPECT_EQ(plain.naive_gemm_seconds(naive), 0);
  EXPECT_EQ(plain.predict(naive, peak, bw).bound, "bandwidth");
}

// A GEMM point's burst rate is what P(shape) reads (H200, 2026-12-02 21:37 UTC, bench/results/
// h200/2026-12-02-c94897b): fp16 n = 2048 timed best 579.04 TFLOP/s over seconds of load at a median SM clock
// of 1530 MHz, 613.43 TFLOP/s over the first 0.1 s after 0.5 s idle (1980 MHz). TinyLlama's prefill
// q_proj (2048 × 2048 × 2048, 17.18 GFLOP), timed over 0.1 s of graph replays, ran 28.89 µs: the burst
// rate gives 28.01 µs (0.97), the timed best 29.67 µs; the n = 1024 point has no burst run.
TEST(LatencyModel, GemmSizesReadTheirBurstRateWhereMeasured) {
  measured_roofs m;
  compute_result c1024, c2048, c2048_bf16;
  c1024.precision = "fp16", c1024.engine = "gemm", c1024.size = 1024, c1024.flops_per_s = 313.696e12;
  c2048 = c1024;
  c2048.size = 2048, c2048.flops_per_s = 579.042e12, c2048.burst_flops_per_s = 613.431e12;
  c2048_bf16 = c2048;
  c2048_bf16.precision = "bf16", c2048_bf16.burst_flops_per_s = 900e12;  // another precision: not read
  m.compute = {c1024, c2048, c2048_bf16};
  const latency_model lat = latency_model_from(m, "cuda", "fp16");
  ASSERT_EQ(lat.gemm_rate.size(), 2u);
  EXPECT_DOUBLE_EQ(lat.gemm_rate[0].second, 313.696e12);  // no burst run: the timed best
  EXPECT_DOUBLE_EQ(lat.gemm_rate[1].second, 613.431e12);
  EXPECT_NE(lat.source.find("burst rate where measured (1 of the precision's points"), std::string::npos) << lat.source;
  const double peak = 689.83e12;
  const op_desc q = gemm_op("q_proj", 2048, 2048, 2048, 2);
  EXPECT_NEAR(q.flops / 1e9, 17.180, 0.001);
  EXPECT_NEAR(q.flops / lat.compute_rate(q, peak) * 1e6, 28.01, 0.01);
  EXPECT_DOUBLE_EQ(lat.compute_rate(q, 500e12), 500e12);  // never above the peak
  // A non-finite burst is no burst: the timed best.
  m.compute[1].burst_flops_per_s = std::numeric_limits<double>::infinity();
  EXPECT_NEAR(q.flops / latency_model_from(m, "cuda", "fp16").compute_rate(q, peak) * 1e6, 29.67, 0.01);
}

// Every op is timed over the burst window (0.1 s) of back-to-back runs, which the burst rates cover:
// a 25 µs GEMM in a graph of 20 launches needs 200 timed replays to fill it, within the cap.
TEST(LatencyModel, OpsAreTimedOverTheBurstWindow) {
  const timing_options t = ops_timing();
  EXPECT_DOUBLE_EQ(t.min_time_s, burst_window_s);
  EXPECT_DOUBLE_EQ(burst_window_s, 0.1);
  EXPECT_GE(t.max_repeats * 20 * 25e-6, t.min_time_s);
  EXPECT_GE(t.max_time_s, t.min_time_s);
}

namespace roofline {
// H200, TinyLlama decode ops timed alone (bench/results/h200/2026-12-03-d7a4aa3): k_proj (256 × 2048)
// 2.36 µs at M = 1 and 7.51 µs at M = 32, q_proj (2048 × 2048) 4.30 µs at M = 1; floor 0.92 µs. As
// gemm/rows points of the model's own weights they are read back at their (M, N, K): the prediction
// is the probe's time (the floor taken out of the rate and added back), between points log-log in
// M; another shape without a curve keeps the square rule; decode attention reads no linear's curve.
TEST(LatencyModel, GemmsReadTheRowsCurveOfTheirOwnWeight) {
  measured_roofs meas;
  small_work_result sw;
  sw.floor_s = 0.92e-6;
  sw.ramp = {{4096, 1.516e-6},     {16384, 1.638e-6},    {65536, 1.672e-6},     {262144, 1.774e-6},
             {1048576, 1.928e-6},  {4194304, 2.808e-6},  {16777216, 6.112e-6},  {67108864, 18.064e-6},
             {268435456, 62.208e-6}, {1073741824, 240.416e-6}};  // the same run's cold-read ramp
  meas.small_work = sw;
  compute_result sq;
  sq.precision = "fp16", sq.engine = "gemm", sq.size = 256, sq.flops_per_s = 5.6e12;
  meas.compute = {sq};
  auto row = [](std::int64_t m, std::int64_t n, std::int64_t k, double seconds, const char* linears) {
    gemm_rows_result g;
    g.precision = "fp16", g.m = m, g.n = n, g.k = k, g.verified = true, g.linears = linears;
    g.median_flops_per_s = 2.0 * double(m) * double(n) * double(k) / seconds;
    g.flops_per_s = g.median_flops_per_s;
    return g;
  };
  meas.gemm_rows = {row(1, 256, 2048, 2.36e-6, "k_proj, v_proj"), row(32, 256, 2048, 7.51e-6, "k_proj, v_proj"),
                    row(1, 2048, 2048, 4.30e-6, "q_proj, o_proj")};
  const latency_model lat = latency_model_from(meas, "gpu", "fp16");
  ASSERT_EQ(lat.gemm_rows.size(), 2u);
  const double peak = 989e12, bw = 4.8e12;
  EXPECT_NEAR(lat.predict(gemm_op("k_proj", 1, 256, 2048, 2), peak, bw).total_s * 1e6, 2.36, 1e-6);
  EXPECT_NEAR(lat.predict(gemm_op("k_proj", 32, 256, 2048, 2), peak, bw).total_s * 1e6, 7.51, 1e-6);
  EXPECT_NEAR(lat.predict(gemm_op("q_proj", 1, 2048, 2048, 2), peak, bw).total_s * 1e6, 4.30, 1e-6);
  // M = 4 between the k_proj points: log-log in M of the rates less the floor
  const double f1 = 2.0 * 256 * 2048, f32 = 32 * f1;
  const double r1 = f1 / (2.36e-6 - 0.92e-6), r32 = f32 / (7.51e-6 - 0.92e-6);
  const double r4 = std::exp(std::log(r1) + (std::log(4.0) / std::log(32.0)) * (std::log(r32) - std::log(r1)));
  EXPECT_NEAR(lat.compute_rate(gemm_op("k_proj", 4, 256, 2048, 2), peak), r4, 1e3);
  // q_proj's one point is its whole range: M = 4 is outside it, the square rule (the 256 point) holds
  EXPECT_DOUBLE_EQ(lat.compute_rate(gemm_op("q_proj", 4, 2048, 2048, 2), peak), 5.6e12);
  // a weight without a curve and no fixed-weight curve: the square rule
  EXPECT_DOUBLE_EQ(lat.rows_rate(1, 5632, 2048), 0);
  // decode attention's QKᵀ and P·V do not read a linear's curve
  const op_desc a = attention_op(op_kind::attention_decode, 1, 32, 4, 64, 1, 2048, 2, 2, false);
  EXPECT_DOUBLE_EQ(lat.compute_rate(a, peak), peak);
  // the JSON form lists each point with its weight
  const json j = json(lat);
  ASSERT_EQ(j.at("gemm_rows").size(), 3u);
  EXPECT_EQ(j.at("gemm_rows")[0].at("linears"), "k_proj, v_proj");
}

// The switch floor: a chain alternating two different kernels ran 1.22 µs per kernel where one kernel
// repeated ran 0.92 µs: a whole step adds 0.30 µs per kernel. Not measured or not above the floor: 0.
TEST(LatencyModel, TheSwitchCostIsTheAlternatingChainsFloorLessTheFloor) {
  measured_roofs meas;
  small_work_result sw;
  sw.floor_s = 0.92e-6;
  sw.ramp = {{4096, 1.52e-6}, {1048576, 1.93e-6}};
  meas.small_work = sw;
  EXPECT_DOUBLE_EQ(latency_model_from(meas, "gpu", "fp16").switch_s, 0);
  meas.small_work->floor_switch_s = 1.22e-6;
  const latency_model lat = latency_model_from(meas, "gpu", "fp16");
  EXPECT_NEAR(lat.switch_s * 1e6, 0.30, 1e-9);
  EXPECT_NEAR(json(lat).at("switch_s").get<double>() * 1e6, 0.30, 1e-9);
  meas.small_work->floor_switch_s = 0.90e-6;
  EXPECT_DOUBLE_EQ(latency_model_from(meas, "gpu", "fp16").switch_s, 0);
}
}  // namespace roofline

namespace roofline {
// H200, TinyLlama decode attention (32 query / 4 KV heads of 64, 2048 cached tokens), 2026-12-03:
// cuDNN's fused SDPA ran 5.88 µs at batch 1 and 13.56 µs at batch 16 (floor 0.82 µs); its bytes at
// the ramp's rate predicted 2.32 µs at batch 1. As gemm/decode-attention points they are read back at
// the op's batch: the measured time at a measured batch, log-log in batch between, nothing for
// another shape or outside the batches.
TEST(LatencyModel, DecodeAttentionReadsItsOwnRateAtItsBatch) {
  measured_roofs meas;
  small_work_result sw;
  sw.floor_s = 0.82e-6;
  sw.ramp = {{4096, 1.516e-6}, {1048576, 1.928e-6}, {4194304, 2.808e-6}, {16777216, 6.112e-6}, {1073741824, 240.416e-6}};
  meas.small_work = sw;
  auto point = [](std::int64_t batch, double seconds) {
    gemm_attention_result g;
    g.precision = "fp16", g.gemm = "decode", g.head_dim = 64, g.keys = 2048, g.tile_rows = 8, g.verified = true;
    g.batch = batch, g.heads = 32, g.kv_heads = 4;
    const double flops = attention_op(op_kind::attention_decode, batch, 32, 4, 64, 1, 2048, 2, 2, false).flops;
    g.median_flops_per_s = g.flops_per_s = flops / seconds;
    return g;
  };
  meas.gemm_attention = {point(16, 13.56e-6), point(1, 5.88e-6)};
  const latency_model lat = latency_model_from(meas, "gpu", "fp16");
  ASSERT_EQ(lat.decode_rates.size(), 2u);
  EXPECT_DOUBLE_EQ(lat.decode_rates.front().batch, 1);  // sorted by batch
  const double peak = 989e12, bw = 4.8e12;
  auto attn = [](std::int64_t batch, std::int64_t kv_heads = 4) {
    op_desc a = attention_op(op_kind::attention_decode, batch, 32, kv_heads, 64, 1, 2048, 2, 2, false);
    a.batch = batch;
    return a;
  };
  const time_terms b1 = lat.predict(attn(1), peak, bw), b16 = lat.predict(attn(16), peak, bw);
  EXPECT_NEAR(b1.total_s * 1e6, 5.88, 1e-6);
  EXPECT_NEAR(b16.total_s * 1e6, 13.56, 1e-6);
  EXPECT_NE(b1.bound, "compute");  // far below the ridge point: the rate's time is a memory term
  const double f1 = attn(1).flops, f16 = attn(16).flops;
  const double r1 = f1 / (5.88e-6 - 0.82e-6), r16 = f16 / (13.56e-6 - 0.82e-6);
  EXPECT_NEAR(lat.decode_attention_rate(attn(4)), std::exp(std::log(r1) + 0.5 * (std::log(r16) - std::log(r1))), 1e3);
  EXPECT_DOUBLE_EQ(lat.decode_attention_rate(attn(32)), 0);     // beyond the batches measured
  EXPECT_DOUBLE_EQ(lat.decode_attention_rate(attn(4, 32)), 0);  // another shape (MHA)
  EXPECT_EQ(json(lat).at("decode_attention_rates").size(), 2u);
}
}  // namespace roofline
