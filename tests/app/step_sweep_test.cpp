// The decode step sweep end to end on the CPU backend (src/app/pipeline_whole_step.cpp): a tiny
// Llama (tests/data/model/tiny-llama.json: 2 layers, hidden 64) swept at --quick's batches, every
// step verified and timed as one pass, the energy counter read around it (RAPL, or why not), the
// plan recorded, and the analysis's points built from it. Light: inputs are not rotated past the
// caches (ROOFLINE_CPU_ROTATION_BYTES=0), so the whole test holds a few MB.
#include <gtest/gtest.h>

#include <cstdlib>

#include "app/pipeline.hpp"
#include "roofline/analysis.hpp"
#include "roofline/backend.hpp"
#include "roofline/energy_analysis.hpp"
#include "roofline/latency.hpp"
#include "roofline/model.hpp"

namespace roofline::app {
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
  bool lost = false;
  measure_idle_energy(*be, r, opt);
  ASSERT_TRUE(r.measured.idle_energy);
  measure_whole_steps(
      *be, r, cfg, "fp32", lat, opt, lost, [](const std::string&, double) {}, [] { return false; });
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

  analyse(r);
  const auto s = analysis_block<step_sweep_analysis>(r, "step_sweep");
  ASSERT_TRUE(s);
  ASSERT_EQ(s->points.size(), 3u);
  for (const auto& p : s->points) {
    ASSERT_TRUE(p.measured_s);
    EXPECT_DOUBLE_EQ(*p.measured_tokens_per_s, static_cast<double>(p.batch) / *p.measured_s);
  }
  ASSERT_TRUE(s->largest_batch_measured);
  EXPECT_EQ(*s->largest_batch_measured, 64);
  EXPECT_TRUE(s->knee_measured);  // batches 1 and 8 at or below 8, 64 above
}

}  // namespace
}  // namespace roofline::app
