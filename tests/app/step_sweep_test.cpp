// The decode step sweep end to end on the CPU backend (src/run/pipeline_whole_step.cpp): a tiny
// Llama (tests/data/model/tiny-llama.json: 2 layers, hidden 64) swept at --quick's batches, every
// step verified and timed as one pass, the energy counter read around it (RAPL, or why not), the
// plan recorded, and the analysis's points built from it. Light: inputs are not rotated past the
// caches (ROOFLINE_CPU_ROTATION_BYTES=0), so the whole test holds a few MB.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>

#include "run/pipeline.hpp"
#include "roofline/analysis.hpp"
#include "roofline/backend.hpp"
#include "roofline/energy_analysis.hpp"
#include "roofline/json.hpp"
#include "roofline/latency.hpp"
#include "roofline/model.hpp"
#include "roofline/report.hpp"
#include "report/sections.hpp"

namespace roofline::job {
namespace {

TEST(StepSweep, BatchesAreTheDefaultOrWhatStepBatchesAsks) {
  run_options opt;
  EXPECT_EQ(step_sweep_batches(opt), (std::vector<std::int64_t>{1, 2, 4, 8, 16, 32, 64, 128, 256}));
  opt.quick = true;
  EXPECT_EQ(step_sweep_batches(opt), (std::vector<std::int64_t>{1, 8, 64}));
  opt.step_batches = {8, 4, 8};  // --step-batches 8,4,8: ascending, once each, quick or not
  EXPECT_EQ(step_sweep_batches(opt), (std::vector<std::int64_t>{4, 8}));
}

TEST(StepSweepCpu, TinyModelSweepsEveryQuickBatchWithEnergyAndPlan) {
  ::setenv("ROOFLINE_CPU_ROTATION_BYTES", "0", 1);
  const model_config cfg = load_model_config(std::string(ROOFLINE_TEST_DATA) + "/model/tiny-llama.json");
  auto be = make_cpu_backend();
  results r;
  r.device = be->describe();
  // roofs to place the ops against (a plain machine: 100 GFLOP/s, 20 GB/s); the test checks the
  // sweep's mechanics, not the prediction's accuracy
  r.roofline.precision = "fp32";
  r.roofline.peak_measured = r.roofline.peak_nominal = 1e11;
  r.roofline.bandwidth_measured = 2e10;
  r.roofline.ridge_measured = 5;
  const latency_model lat = latency_model_from(r.measured, "cpu", "fp32");
  run_options opt;
  opt.quick = true;
  opt.context = 64;
  opt.seq = 32;
  opt.tpot_target_s = 1.0;  // every tiny step meets it
  // the op table's time of the first decode step's largest op (the drift check's reference)
  catalogue_options co;
  co.ph = phase::decode, co.batch = 1, co.context = 64, co.dtype = "fp32", co.one_pass_norms = true,
  co.fused_attention = true;
  const auto b1 = build_catalogue(cfg, co);
  const op_desc& big = *std::max_element(b1.begin(), b1.end(), [](const op_desc& a, const op_desc& b) { return a.bytes() < b.bytes(); });
  op_result table = place_op(big, r.roofline, lat);
  table.measured_s = 1e-3;
  r.ops.push_back(table);
  bool lost = false;
  measure_idle_energy(*be, r, opt);
  ASSERT_TRUE(r.measured.idle_energy);
  // the mechanics, not the machine's load: the timings are not judged for interference here (the
  // windows' judging is tested on scripted readings, tests/common/interference_test.cpp)
  timing_windows unjudged(false);
  measure_whole_steps(
      *be, r, cfg, "fp32", lat, opt, lost, [](const std::string&, double) {}, [] { return false; }, unjudged);
  ::unsetenv("ROOFLINE_CPU_ROTATION_BYTES");

  ASSERT_TRUE(r.step_sweep);
  EXPECT_EQ(r.step_sweep->context, 64);
  EXPECT_EQ(r.step_sweep->batches, (std::vector<std::int64_t>{1, 8, 64}));
  // fp32 weights: the model's parameter count × 4 B
  EXPECT_DOUBLE_EQ(r.step_sweep->weights_bytes, 4.0 * static_cast<double>(cfg.parameters()));
  // KV per sequence at context + 1 = 65 tokens: 2 layers × 2 (K, V) × 2 KV heads × 16 head_dim × 65 × 4 B
  EXPECT_DOUBLE_EQ(r.step_sweep->kv_bytes_per_sequence, 33280.0);
  ASSERT_TRUE(r.step_sweep->kv_capacity_batch);
  EXPECT_GT(*r.step_sweep->kv_capacity_batch, 64);
  ASSERT_EQ(r.whole_step.size(), 4u);  // decode 1, 8, 64 and prefill
  for (std::size_t i = 0; i < 3; ++i) {
    const whole_step_result& w = r.whole_step[i];
    EXPECT_EQ(w.phase, "decode");
    EXPECT_EQ(w.batch, r.step_sweep->batches[i]);
    ASSERT_TRUE(w.measured_s) << w.note;
    EXPECT_GT(*w.measured_s, 0);
    ASSERT_TRUE(w.energy);  // read, or "not available (<why>)" where RAPL is not readable
    EXPECT_TRUE(w.energy->counter_j || w.energy->note.rfind("not available (", 0) == 0) << w.energy->note;
    ASSERT_TRUE(w.bytes && w.flops);
    EXPECT_GT(*w.flops, 0);
  }
  EXPECT_EQ(r.whole_step[3].phase, "prefill");
  // the drift check: that op timed again after the sweep, beside the op table's 1 ms
  ASSERT_TRUE(r.step_sweep->drift);
  EXPECT_EQ(r.step_sweep->drift->op, big.name);
  EXPECT_EQ(r.step_sweep->drift->scenario, "decode b1");
  EXPECT_DOUBLE_EQ(r.step_sweep->drift->bytes, big.bytes());
  EXPECT_DOUBLE_EQ(r.step_sweep->drift->table_s, 1e-3);
  EXPECT_DOUBLE_EQ(r.step_sweep->drift->predicted_s, table.predicted_s);
  EXPECT_GT(r.step_sweep->drift->after_s, 0);

  analyse(r);
  const auto s = r.analysis.step_sweep;
  ASSERT_TRUE(s);
  ASSERT_EQ(s->points.size(), 3u);
  for (const auto& p : s->points) {
    ASSERT_TRUE(p.measured_s);
    EXPECT_DOUBLE_EQ(*p.measured_tokens_per_s, static_cast<double>(p.batch) / *p.measured_s);
  }
  ASSERT_TRUE(s->largest_batch_measured);
  EXPECT_EQ(*s->largest_batch_measured, 64);
  EXPECT_TRUE(s->knee_measured);  // batches 1 and 8 at or below 8, 64 above
  ASSERT_TRUE(s->drift && s->drift_change);
  EXPECT_DOUBLE_EQ(*s->drift_change, r.step_sweep->drift->after_s / 1e-3 - 1);
}

// The drift check's analysis and words (docs/formulas-analysis.md §8.2), with the worked numbers of
// energy_analysis.hpp: TinyLlama's lm_head (decode b1, 262 MB of fp32 weight) 9.32 ms in the op table.
TEST(StepSweep, TheDriftCheckSaysWhetherTheMachineMovedDuringTheRun) {
  results r;
  r.device.kind = "cpu", r.device.name = "test";
  step_sweep_plan plan;
  plan.context = 2048, plan.batches = {1};
  plan.drift = drift_check{"lm_head", "decode b1", 262280192.0, 8.74e-3, 9.32e-3, 12.4e-3};
  r.step_sweep = plan;
  whole_step_result w;
  w.phase = "decode", w.batch = 1, w.context = 2048, w.measured_s = 0.150, w.predicted_s = 0.136;
  r.whole_step.push_back(w);
  // the plan round-trips, and a plan without a drift check writes no "drift" key
  const json j = r;
  EXPECT_EQ(json(parse_results(j.dump(), "test.json")), j);
  step_sweep_plan none;
  EXPECT_FALSE(json(none).contains("drift"));

  analyse(r);
  auto s = r.analysis.step_sweep;
  ASSERT_TRUE(s && s->drift_change);
  EXPECT_NEAR(*s->drift_change, 12.4 / 9.32 - 1, 1e-12);  // +33.0 %
  EXPECT_TRUE(s->drift_moved);
  EXPECT_EQ(report::drift_text(*s),
            "lm_head (decode b1, 262 MB; predicted 8.74 ms from the roofs) took 9.32 ms in the op table and 12.4 ms "
            "again after the steps (+33.0%): the machine's own speed moved by more than 10.0% during the run, so "
            "the steps did not run on the machine the roofs describe; a bandwidth-bound step's error of that size is "
            "the machine's, not the prediction's");
  EXPECT_NE(render_markdown(r).find("- drift check: lm_head (decode b1, 262 MB;"), std::string::npos);
  EXPECT_NE(render_summary(r).find("drift check: lm_head"), std::string::npos);

  r.step_sweep->drift->after_s = 9.0e-3;  // −3.4 %: steady, and the terminal does not mention it
  analyse(r);
  s = r.analysis.step_sweep;
  ASSERT_TRUE(s);
  EXPECT_FALSE(s->drift_moved);
  const std::string steady = report::drift_text(*s);
  EXPECT_NE(steady.find("again after the steps (-3.4%): steady within 10.0%"), std::string::npos) << steady;
  EXPECT_EQ(render_summary(r).find("drift check"), std::string::npos);
}

}  // namespace
}  // namespace roofline::job
