#include <gtest/gtest.h>

#include "fixtures.hpp"
#include "roofline/analysis.hpp"
#include "roofline/json.hpp"
#include "roofline/model_record.hpp"

using namespace roofline;

namespace {
op_result measured_op(const std::string& name, std::int64_t batch, double flops, double bytes, std::int64_t count,
                      double predicted, std::optional<double> measured) {
  op_result o;
  o.name = name;
  o.phase = "decode";
  o.batch = batch;
  o.context = 2048;
  o.flops = flops;
  o.bytes = bytes;
  o.count = count;
  o.predicted_s = predicted;
  o.measured_s = measured;
  return o;
}

results with_decode() {
  results r = test::h200_results();
  r.roofline = summarize_roofline(r.nominal, r.measured, "fp16");
  // batch 1: one 2 GFLOP op of 1 ms and ten 0.2 GFLOP ops of 0.1 ms → TPOT 2 ms, 4 GFLOP/token.
  r.ops = {measured_op("lm_head", 1, 2e9, 1e9, 1, 0.9e-3, 1e-3), measured_op("up_proj", 1, 0.2e9, 0.1e9, 10, 0.11e-3, 1e-4),
           measured_op("lm_head", 32, 64e9, 1.1e9, 1, 0.3e-3, std::nullopt)};
  return r;
}
}  // namespace

TEST(DecodeMfu, SumsMeasuredOpTimesIntoTpot) {
  const json m = json(analyse_mfu(with_decode()));
  ASSERT_EQ(m["scenarios"].size(), 2u);
  const json& b1 = m["scenarios"][0];
  EXPECT_DOUBLE_EQ(b1["tpot_s"].get<double>(), 2e-3);
  EXPECT_DOUBLE_EQ(b1["step_flops"].get<double>(), 4e9);
  EXPECT_NEAR(b1["mfu"].get<double>(), 2e12 / 989e12, 1e-15);  // 0.20%
  EXPECT_NEAR(b1["fraction_of_measured_roof"].get<double>(), 2e12 / 760e12, 1e-15);
  EXPECT_EQ(b1["hfu"], b1["mfu"]);
  // MFU ceiling ≈ intensity ÷ ridge = (4e9 / 2e9) ÷ 206.04.
  EXPECT_NEAR(b1["mfu_ceiling_nominal"].get<double>(), 2.0 / (989.0 / 4.8), 1e-12);
  const json& b32 = m["scenarios"][1];
  EXPECT_TRUE(b32["mfu"].is_null());  // an op of that step was not measured
}

TEST(Accuracy, HeadlineOverAllOpsAndSecondColumnOverOpsLongerThan20Microseconds) {
  results r = with_decode();
  r.ops.push_back(measured_op("tiny", 1, 1, 1, 1, 1e-6, 5e-6));  // 5 µs: in the headline, not in the long column
  const json a = json(analyse_accuracy(r));
  EXPECT_EQ(a["ops_counted"], 3);
  EXPECT_EQ(a["ops_long"], 2);
  // all ops: |0.9 − 1|, |1.1 − 1|, |0.2 − 1| = 0.1, 0.1, 0.8 → median 0.1 (≤ 20 %)
  EXPECT_NEAR(a["median_abs_error"].get<double>(), 0.1, 1e-12);
  EXPECT_TRUE(a["meets_target"].get<bool>());
  // long ops (> 20 µs): 0.1 and 0.1 → 0.1
  EXPECT_NEAR(a["median_abs_error_long"].get<double>(), 0.1, 1e-12);
  EXPECT_EQ(a["per_op"].size(), 3u);
  r.ops.push_back(measured_op("tiny2", 1, 1, 1, 1, 1e-6, 5e-6));
  r.ops.push_back(measured_op("tiny3", 1, 1, 1, 1, 1e-6, 5e-6));
  // 0.1, 0.1, 0.8, 0.8, 0.8 → median 0.8: the small ops now decide the headline
  EXPECT_NEAR(json(analyse_accuracy(r))["median_abs_error"].get<double>(), 0.8, 1e-12);
  EXPECT_FALSE(json(analyse_accuracy(r))["meets_target"].get<bool>());
}

TEST(DecodeMfu, TpotIsTheMeasuredWholeStepBesideTheSumOfOps) {
  results r = with_decode();
  whole_step_result w;
  w.phase = "decode";
  w.batch = 1;
  w.context = 2048;
  w.measured_s = 2.5e-3;  // slower than the 2 ms sum of isolated ops
  w.predicted_s = 2.4e-3;
  r.whole_step.push_back(w);
  const json b1 = json(analyse_mfu(r))["scenarios"][0];
  EXPECT_EQ(b1["tpot_source"], "whole step");
  EXPECT_DOUBLE_EQ(b1["tpot_s"].get<double>(), 2.5e-3);
  EXPECT_DOUBLE_EQ(b1["sum_of_ops_tpot_s"].get<double>(), 2e-3);
  EXPECT_NEAR(b1["mfu"].get<double>(), 4e9 / 2.5e-3 / 989e12, 1e-15);
  EXPECT_EQ(json(analyse_mfu(with_decode()))["scenarios"][0]["tpot_source"], "sum of isolated ops");
}

TEST(Accuracy, WholeStepRatio) {
  results r = with_decode();
  whole_step_result w;
  w.phase = "decode";
  w.batch = 1;
  w.context = 2048;
  w.measured_s = 2.06e-3;
  w.predicted_s = 1.9e-3;
  r.whole_step.push_back(w);
  const json s = json(analyse_accuracy(r))["whole_step"];
  ASSERT_EQ(s.size(), 1u);
  EXPECT_NEAR(s[0]["ratio"].get<double>(), 1.9 / 2.06, 1e-12);
  EXPECT_TRUE(s[0]["meets_target"].get<bool>());  // 7.8 % ≤ 15 %
}

TEST(Analyse, FillsEveryKeyAndTheRecordTable) {
  results r = with_decode();
  analyse(r);
  for (const char* k : {"roofline_gaps", "compute_waterfall", "bandwidth_waterfall", "ridge", "mfu", "fusion",
                        "accuracy", "record_table"})
    EXPECT_TRUE(json(r.analysis).contains(k)) << k;
  const json rows = json(r.analysis)["record_table"];
  ASSERT_EQ(rows.size(), 11u);
  auto row = [&](const std::string& key) {
    for (const auto& x : rows)
      if (x["key"] == key) return x;
    return json();
  };
  EXPECT_NEAR(row("bandwidth_read")["ratio"].get<double>(), 4.0 / 4.8, 1e-12);
  EXPECT_DOUBLE_EQ(row("bandwidth_read")["expected_low"].get<double>(), 0.75 * 4.8e12);
  EXPECT_DOUBLE_EQ(row("bandwidth_read")["expected_high"].get<double>(), 0.90 * 4.8e12);
  // the roof GEMM (n = 8192, 760 TFLOP/s: the ridge's numerator), its clock and power
  EXPECT_NEAR(row("gemm_fp16_8192")["ratio"].get<double>(), 760.0 / 989.0, 1e-12);
  EXPECT_DOUBLE_EQ(row("gemm_fp16_512")["measured"].get<double>(), 30e12);
  EXPECT_TRUE(row("gemm_fp16_512")["expected_low"].is_null());
  EXPECT_DOUBLE_EQ(row("gemm_fp32_4096")["nominal"].get<double>(), 67e12);
  EXPECT_DOUBLE_EQ(row("sm_clock")["nominal"].get<double>(), 1980);
  EXPECT_DOUBLE_EQ(row("sm_clock")["measured"].get<double>(), 1740);  // during the n=8192 GEMM
  EXPECT_DOUBLE_EQ(row("power")["measured"].get<double>(), 699);
  EXPECT_DOUBLE_EQ(row("power")["nominal"].get<double>(), 700);
  EXPECT_EQ(row("ecc")["measured"], "on");
  EXPECT_NEAR(row("tpot_mfu")["measured"].get<double>(), 2e12, 1e-3);       // achieved FLOP/s of the decode step
  EXPECT_NEAR(row("tpot_mfu")["ratio"].get<double>(), 2e12 / 989e12, 1e-12);  // MFU = achieved ÷ nominal peak
}

TEST(Fusion, SiluMulMeasuredAgainstTheThreeFifthsByteRatio) {
  results r = test::h200_results();
  r.roofline = summarize_roofline(r.nominal, r.measured, "fp16");
  const double t = 32 * 5632 * 2;  // one fp16 tensor of the batch-32 FFN
  r.ops = {measured_op("silu", 32, 0, 2 * t, 22, 0, 30e-6), measured_op("mul", 32, 0, 3 * t, 22, 0, 30e-6),
           measured_op("silu_mul", 32, 0, 3 * t, 22, 0, 33e-6)};
  const json f = json(analyse_fusion(r));
  ASSERT_EQ(f["silu_mul"].size(), 1u);
  EXPECT_DOUBLE_EQ(f["silu_mul"][0]["byte_ratio"].get<double>(), 0.6);
  EXPECT_DOUBLE_EQ(f["silu_mul"][0]["time_ratio"].get<double>(), 33.0 / 60.0);
}

TEST(Fusion, PredictedSavingsComeFromTheModelCatalogue) {
  results r = test::h200_results();
  r.roofline = summarize_roofline(r.nominal, r.measured, "fp16");
  model_summary m;
  m.name = "TinyLlama-1.1B";
  m.source = resolve_model_path("tinyllama-1.1b");
  m.config = model_config_json(load_model_config(m.source));  // as `run` stores it: the analysis reads nothing else
  r.model = m;
  r.ops = {measured_op("q_proj", 32, 1, 1, 22, 0, std::nullopt)};
  r.ops[0].dtype = "fp16";
  const json f = json(analyse_fusion(r))["predicted"];
  ASSERT_FALSE(f["savings"].empty()) << f.dump();
  bool found = false;
  for (const auto& s : f["savings"])
    if (s["name"] == "silu_mul") {
      found = true;
      EXPECT_NEAR(s["fraction_saved"].get<double>(), 0.4, 1e-12);  // 5 tensors → 3
      EXPECT_EQ(s["count"], 22);
      // batch 32 × intermediate 5632 × 2 B × 2 tensors saved × 22 layers, at 4.3 TB/s.
      EXPECT_NEAR(s["bytes_saved_per_step"].get<double>(), 32.0 * 5632 * 2 * 2 * 22, 1.0);
      EXPECT_NEAR(s["time_saved_bytes_only_per_step_s"].get<double>(), 32.0 * 5632 * 2 * 2 * 22 / 4.3e12, 1e-12);
      // with the small-work model (no measurement here: the GPU defaults, 0.6 µs floor + 0.8 µs
      // latency) each of the 22 layers also saves a whole kernel: 30.8 µs + 3.7 µs of bytes
      EXPECT_NEAR(s["time_saved_per_step_s"].get<double>(), 22 * (0.6e-6 + 0.8e-6) + 32.0 * 5632 * 2 * 2 * 22 / 4.3e12,
                  1e-12);
    }
  EXPECT_TRUE(found);
}

// The batch sweep's knees are analysis: recomputed from the measured points and the ridge, so a
// re-analysed results file gets them too. Worked numbers: k = n = 2048, fp16, ridge 100 FLOP/B →
// knee 111 (formulas-model §7); flat line B ≤ 8 at median 10 µs, B = 256 at 80 µs → 10 / (80/256) = 32.
TEST(BatchSweepKnees, FromMeasuredPointsAndTheRidge) {
  json pts = json::array();
  for (const auto& [b, s] : std::vector<std::pair<int, double>>{{1, 9e-6}, {2, 10e-6}, {8, 11e-6}, {64, 30e-6}, {256, 80e-6}})
    pts.push_back({{"batch", b}, {"measured_s", s}});
  pts.push_back({{"batch", 512}, {"measured_s", nullptr}});  // a failed point is skipped
  const json sweep = {{"shapes", json::array({{{"shape", "gate"}, {"k", 2048}, {"n", 2048}, {"dtype", "fp16"}, {"points", pts}}})}};
  const batch_sweep out = analyse_batch_sweep(sweep.get<batch_sweep>(), 100.0);
  EXPECT_EQ(out.shapes[0].knee_predicted, 111);
  EXPECT_DOUBLE_EQ(*out.shapes[0].knee_measured, 32.0);
  EXPECT_DOUBLE_EQ(*out.ridge_measured, 100.0);
  // No ridge: no predicted knee; no batch above 8: no measured knee.
  json small = sweep;
  small["shapes"][0]["points"] = json::array({{{"batch", 1}, {"measured_s", 9e-6}}});
  const batch_sweep none = analyse_batch_sweep(small.get<batch_sweep>(), 0.0);
  EXPECT_FALSE(none.shapes[0].knee_predicted);
  EXPECT_FALSE(none.shapes[0].knee_measured);
  EXPECT_FALSE(none.ridge_measured);
  EXPECT_THROW(json("bad").get<batch_sweep>(), json::exception);
}
