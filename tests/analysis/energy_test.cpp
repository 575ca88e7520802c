// The energy roofline and the decode step sweep (src/analysis/energy.cpp, src/analysis/step_sweep.cpp, src/measure/energy.cpp,
// the knee rule of src/analysis/batch_sweep.cpp): each formula pinned with a worked number.
// Formulas: docs/formulas-analysis.md §8.1 and §10; the energy model is Choi, Bedard, Fowler, Vuduc,
// "A roofline model of energy", IPDPS 2013, eq. (4) with constant power π0.
#include "roofline/energy.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "roofline/analysis.hpp"
#include "roofline/energy_analysis.hpp"
#include "roofline/json.hpp"

namespace roofline {
namespace {

// ---- counters ----

TEST(EnergyCounter, RaplWrapsAtItsMaxEnergyRange) {
  // 262143328850 µJ is the max_energy_range_uj Linux reports for a Skylake-SP package domain
  // (2^32 × 61.035 µJ, the energy unit of MSR_RAPL_POWER_UNIT = 2^-14 J; Intel SDM vol. 3B §15.10.1).
  const std::uint64_t range = 262143328850ull;
  EXPECT_EQ(counter_delta(1000, 5000, range), 4000u);         // no wrap
  EXPECT_EQ(counter_delta(range - 500, 1500, range), 2000u);  // wrapped once: 500 before the top + 1500 after
  EXPECT_EQ(counter_delta(range, 1000, range), 1000u);
}

TEST(EnergyCounter, NvmlCountsMillijoulesIn64Bits) {
  // nvmlDeviceGetTotalEnergyConsumption: unsigned long long mJ since the driver loaded (NVML API
  // reference, "Device Queries"): the increase is modulo 2^64.
  const std::uint64_t top = std::numeric_limits<std::uint64_t>::max();
  EXPECT_EQ(counter_delta(123456789, 123556789, 0), 100000u);  // 100 J
  EXPECT_EQ(counter_delta(top - 4, 3, 0), 8u);                 // 2^64 − 5 → 3: 8 mJ
}

TEST(EnergyCounter, IntegratesPowerByTrapezoidsHeldAtTheEnds) {
  const std::vector<power_point> s = {{0.0, 100.0}, {1.0, 300.0}};
  EXPECT_DOUBLE_EQ(*integrate_power(s, 0.0, 1.0), 200.0);   // (100 + 300) ÷ 2 × 1 s
  EXPECT_DOUBLE_EQ(*integrate_power(s, -1.0, 2.0), 600.0);  // 100 held before + 200 + 300 held after
  EXPECT_DOUBLE_EQ(*integrate_power(s, 0.5, 1.0), 125.0);   // from 200 W at 0.5 s to 300 W: 250 × 0.5
  EXPECT_FALSE(integrate_power({}, 0.0, 1.0));
  EXPECT_FALSE(integrate_power(s, 1.0, 1.0));
}

TEST(EnergyCounter, PowerBetweenUpdatesIsTheWorkedNumber) {
  std::vector<counter_update> u;
  for (int i = 0; i < 10; ++i) u.push_back({0.05 + 0.1 * i, 1000u + 40u * static_cast<std::uint64_t>(i)});
  const auto p = power_from_updates(u, 0.0, 1.0, 1e-3);
  ASSERT_TRUE(p);
  EXPECT_NEAR(p->watts, 0.4, 1e-12);  // (1360 − 1000) mJ ÷ 0.9 s
  EXPECT_NEAR(p->span_s, 0.9, 1e-12);
  EXPECT_EQ(p->intervals, 9);
  // updates outside the window are not used: [0.2, 0.8] holds 0.25 … 0.75
  const auto q = power_from_updates(u, 0.2, 0.8, 1e-3);
  ASSERT_TRUE(q);
  EXPECT_EQ(q->intervals, 5);
  EXPECT_NEAR(q->span_s, 0.5, 1e-12);
  // fewer than two updates, or a span under half the window: read the ends instead
  EXPECT_FALSE(power_from_updates(u, 0.0, 0.1, 1e-3));
  EXPECT_FALSE(power_from_updates({{0.1, 5}, {0.2, 6}}, 0.0, 1.0, 1e-3));
  EXPECT_FALSE(power_from_updates(u, 1.0, 1.0, 1e-3));
  // the 64-bit wrap is undone as counter_delta does
  const std::uint64_t top = std::numeric_limits<std::uint64_t>::max();
  const auto w = power_from_updates({{0.0, top - 99}, {1.0, 100}}, 0.0, 1.0, 1e-3);
  ASSERT_TRUE(w);
  EXPECT_NEAR(w->watts, 0.2, 1e-12);  // 200 mJ over 1 s
}

TEST(EnergyCounter, ReadBetweenUpdatesAOneSecondWindowIsNotOffByAnUpdate) {
  // A counter like NVML's on an H100 (bench/energy_counter.py): it integrates a steady 385 W and moves every
  // 100 ms; the poller times each update within ± 1.7 ms (half a 3.3 ms read). Windows of 1.06 s (a step's)
  // at every start phase: read at their two ends the power is off by up to ±Δ/W = ±9.4 %; read between the
  // first and last update inside, by the poller's timing only (≤ 2 × 1.7 ms ÷ 0.9 s ≈ 0.4 %).
  const double watts = 385, dt = 0.1, jitter = 0.0017;
  std::vector<counter_update> u;
  for (int i = 0; i <= 60; ++i) {
    const double t = 0.0123 + dt * i;
    u.push_back({t + ((i % 3) - 1) * jitter, static_cast<std::uint64_t>(std::llround(watts * t * 1e3))});
  }
  const auto at_ends = [&](double t) {  // the value a read at t returns: the last update at or before it
    std::uint64_t v = 0;
    for (int i = 0; i <= 60; ++i)
      if (0.0123 + dt * i <= t) v = static_cast<std::uint64_t>(std::llround(watts * (0.0123 + dt * i) * 1e3));
    return v;
  };
  double worst_ends = 0, worst_updates = 0;
  for (double t0 = 0.05; t0 < 4.5; t0 += 0.007) {
    const double t1 = t0 + 1.06;
    const double ends = static_cast<double>(at_ends(t1) - at_ends(t0)) * 1e-3 / 1.06;
    const auto p = power_from_updates(u, t0, t1, 1e-3);
    ASSERT_TRUE(p);
    worst_ends = std::max(worst_ends, std::fabs(ends / watts - 1));
    worst_updates = std::max(worst_updates, std::fabs(p->watts / watts - 1));
  }
  EXPECT_GT(worst_ends, 0.05);   // the ends read a whole update stale: up to ±9.4 %
  EXPECT_LT(worst_ends, 0.095);
  EXPECT_LT(worst_updates, 0.005);
}

// ---- the batch curve ----

TEST(StepSweep, KneeIsTheOneRuleOfTheLinearSweep) {
  // flat line: median(1, 1, 1.2 ms) = 1 ms; line through (64, 4 ms): 4 ms ÷ 64 per sequence;
  // they meet at 1 ÷ (4 ÷ 64) = 16
  const std::vector<batch_time> pts = {{1, 1e-3}, {2, 1e-3}, {8, 1.2e-3}, {64, 4e-3}};
  EXPECT_DOUBLE_EQ(*knee_of(pts), 16.0);
  EXPECT_FALSE(knee_of({{1, 1e-3}, {8, 1e-3}}));    // nothing above 8
  EXPECT_FALSE(knee_of({{16, 1e-3}, {64, 4e-3}}));  // nothing at 8 or below
  // the linear sweep reads the same rule: its measured knee is knee_of of its points
  batch_sweep sw;
  sweep_shape sh;
  sh.shape = "test";
  for (const auto& p : pts) {
    sweep_point q;
    q.batch = p.batch;
    q.measured_s = p.seconds;
    sh.points.push_back(q);
  }
  sw.shapes.push_back(sh);
  EXPECT_DOUBLE_EQ(*analyse_batch_sweep(sw, 0).shapes[0].knee_measured, 16.0);
}

TEST(StepSweep, LargestBatchUnderATpotTarget) {
  const std::vector<batch_time> pts = {{1, 1.2e-3}, {8, 1.3e-3}, {64, 3.1e-3}, {256, 9e-3}};
  EXPECT_EQ(*largest_batch_within(pts, 5e-3), 64);
  EXPECT_EQ(*largest_batch_within(pts, 20e-3), 256);
  EXPECT_FALSE(largest_batch_within(pts, 1e-3));  // batch 1 already slower
}

TEST(StepSweep, JoulesPerTokenFromTheCounterWindow) {
  energy_window w;
  w.window_s = 1.2;
  w.counter_j = 600;  // 500 W over the replays
  EXPECT_DOUBLE_EQ(*counter_power_w(w), 500.0);
  EXPECT_DOUBLE_EQ(*joules_per_token(w, 2e-3, 4), 0.25);  // 500 W × 2 ms ÷ 4 tokens
  w.counter_j.reset();
  EXPECT_FALSE(joules_per_token(w, 2e-3, 4));
  // a window shorter than min_energy_window_s gives no power: the H200's counter over 0.2 s step
  // replays read up to 928 W under a 700 W limit (2026-12-03)
  w.window_s = 0.2, w.counter_j = 100;
  EXPECT_FALSE(counter_power_w(w));
  w.integrated_j = 100;
  EXPECT_FALSE(integrated_power_w(w));
}

TEST(StepSweep, PlacesAFrameworkStepOnTheMeasuredCurve) {
  step_sweep_analysis s;
  s.context = 2048;
  step_sweep_point a, b;
  a.batch = 1, a.measured_s = 1.23e-3;
  b.batch = 4, b.measured_s = 1.23e-3 * 4;  // time ∝ batch between 1 and 4
  s.points = {a, b};
  std::string why;
  const auto p = place_on_step_curve(s, 1, 3.31e-3, why);
  ASSERT_TRUE(p);
  EXPECT_NEAR(p->ratio, 3.31 / 1.23, 1e-12);               // "your 3.31 ms at batch 1 is 2.69× roofline's 1.23 ms"
  const auto q = place_on_step_curve(s, 2, 3.31e-3, why);  // log-log between (1, 1.23) and (4, 4.92): 2.46 ms
  ASSERT_TRUE(q);
  EXPECT_NEAR(q->curve_s, 2.46e-3, 1e-12);
  EXPECT_FALSE(place_on_step_curve(s, 8, 1e-3, why));
  EXPECT_NE(why.find("outside"), std::string::npos);
}

// ---- the energy roofline ----

TEST(EnergyRoofline, PredictedEnergyIsIdleTimesTimePlusBytesPlusFlops) {
  // π0 = 100 W, T = 2 ms, ε_mem = 60 pJ/B, Q = 2.2 GB, ε_flop = 0.5 pJ/FLOP, W = 2.2 GFLOP
  EXPECT_NEAR(predicted_energy_j(100, 2e-3, 60e-12, 2.2e9, 0.5e-12, 2.2e9), 0.2 + 0.132 + 0.0011, 1e-12);
}

energy_window window(double seconds, double joules) {
  energy_window w;
  w.window_s = seconds;
  w.counter_j = joules;
  w.source = "test";
  return w;
}

/// A GPU-like results file: idle 100 W; a device-memory read at 4 TB/s (median) drawing 340 W;
/// an fp16 GEMM n = 8192 at 600 TFLOP/s (median) drawing 700 W, power-capped; decode steps.
results gpu_like() {
  results r;
  r.device.kind = "cuda";
  r.device.name = "test GPU";
  r.device.properties = {{"power_limit_w", 700.0}, {"max_sm_clock_mhz", 1980.0}};
  r.roofline.precision = "fp16";
  r.measured.idle_energy = window(1.1, 110);  // 100 W
  bandwidth_result b;
  b.pattern = "read", b.level = "dram", b.working_set_bytes = std::int64_t{1} << 30;
  b.bytes_per_s = 4.2e12, b.median_bytes_per_s = 4e12, b.verified = true;
  b.energy = window(1.0, 340);
  r.measured.bandwidth.push_back(b);
  compute_result c;
  c.precision = "fp16", c.engine = "gemm", c.size = 8192, c.flops_per_s = 6.5e14, c.median_flops_per_s = 6e14,
  c.verified = true;
  c.energy = window(2.0, 1400);  // 700 W
  telemetry_summary t;
  t.sm_clock_mhz = stats_summary{10, 1300, 1340, 1320, 1320, 0, 0};
  t.throttle_reasons = {"sw_power_cap"};
  t.throttled_fraction = 0.84;
  c.telemetry = t;
  r.measured.compute.push_back(c);
  compute_result small = c;  // a smaller GEMM: not the one J/FLOP reads
  small.size = 1024, small.energy = window(1.0, 900), small.telemetry.reset();
  r.measured.compute.push_back(small);
  return r;
}

TEST(EnergyRoofline, CoefficientsFromTheProbesCounters) {
  const energy_roofline e = analyse_energy(gpu_like());
  ASSERT_TRUE(e.complete()) << (e.notes.empty() ? "" : e.notes.front());
  EXPECT_DOUBLE_EQ(*e.idle_w, 100.0);                    // 50 J ÷ 0.5 s
  EXPECT_NEAR(*e.joules_per_byte, 240.0 / 4e12, 1e-24);  // (340 − 100) W ÷ 4 TB/s = 60 pJ/B
  EXPECT_NEAR(*e.joules_per_flop, 600.0 / 6e14, 1e-27);  // (700 − 100) W ÷ 600 TFLOP/s = 1 pJ/FLOP (n = 8192, not 1024)
  EXPECT_DOUBLE_EQ(*e.power_limit_w, 700.0);
  ASSERT_EQ(e.power_cap.size(), 1u);
  EXPECT_NE(e.power_cap[0].find("gemm fp16 n = 8192: the power cap bound (sw_power_cap"), std::string::npos)
      << e.power_cap[0];
  EXPECT_NE(e.power_cap[0].find("1320 MHz (median) against 1980 MHz max"), std::string::npos) << e.power_cap[0];
  ASSERT_EQ(e.probes.size(), 3u);
  EXPECT_DOUBLE_EQ(*e.probes[1].power_cap_share, 1.0);  // 700 W of a 700 W limit
}

TEST(EnergyRoofline, UnknownWithoutAnIdleRead) {
  results r = gpu_like();
  r.measured.idle_energy.reset();
  const energy_roofline e = analyse_energy(r);
  EXPECT_FALSE(e.complete());
  EXPECT_FALSE(e.joules_per_byte);
  ASSERT_FALSE(e.notes.empty());
  EXPECT_EQ(e.notes.front(), "idle power unknown (no idle read in this file)");
}

TEST(StepSweep, MeasuredAndPredictedJoulesPerTokenWithErrors) {
  results r = gpu_like();
  step_sweep_plan plan;
  plan.context = 2048;
  plan.batches = {1, 8, 64};
  plan.tpot_target_s = 3e-3;
  plan.kv_capacity_batch = 2000;
  r.step_sweep = plan;
  // decode steps: 2.2 GB and 2.2 GFLOP × batch; measured 1 ms, 1.2 ms, 4 ms; predicted 0.9, 1.1, 3.2 ms
  const double t_meas[] = {1e-3, 1.2e-3, 4e-3}, t_pred[] = {0.9e-3, 1.1e-3, 3.2e-3};
  const std::int64_t batches[] = {64, 1, 8};  // written out of order: the analysis sorts by batch
  for (int i : {2, 0, 1}) {
    whole_step_result w;
    w.phase = "decode";
    w.batch = batches[(i + 1) % 3];
    w.context = 2048;
    w.measured_s = t_meas[i];
    w.predicted_s = t_pred[i];
    w.bytes = 2.2e9;
    w.flops = 2.2e9 * static_cast<double>(w.batch);
    w.energy = window(1.25, 1.25 * 400);  // 400 W over the replays
    w.energy->integrated_j = 1.25 * 380;  // the power samples read 5% lower
    r.whole_step.push_back(w);
  }
  whole_step_result prefill;  // not part of the decode sweep
  prefill.phase = "prefill", prefill.batch = 1, prefill.seq = 2048, prefill.measured_s = 0.05;
  r.whole_step.push_back(prefill);
  const auto e = analyse_energy(r);
  const auto s = analyse_step_sweep(r, e);
  ASSERT_TRUE(s);
  ASSERT_EQ(s->points.size(), 3u);
  const step_sweep_point& b1 = s->points[0];
  EXPECT_EQ(b1.batch, 1);
  EXPECT_DOUBLE_EQ(*b1.measured_s, 1e-3);
  EXPECT_NEAR(*b1.error, 0.9 / 1.0 - 1, 1e-12);
  EXPECT_DOUBLE_EQ(*b1.measured_tokens_per_s, 1000.0);
  EXPECT_DOUBLE_EQ(*b1.power_w, 400.0);
  EXPECT_NEAR(*b1.power_cap_share, 400.0 / 700.0, 1e-12);
  EXPECT_NEAR(*b1.j_per_token_measured, 0.4, 1e-12);  // 400 W × 1 ms ÷ 1
  EXPECT_NEAR(*b1.j_per_token_integrated, 0.38, 1e-12);
  EXPECT_NEAR(*b1.counter_vs_integrated, -0.05, 1e-12);
  // predicted: 100 W × 0.9 ms + 60 pJ/B × 2.2 GB + 1 pJ/FLOP × 2.2 GFLOP = 0.09 + 0.132 + 0.0022 J
  EXPECT_NEAR(*b1.j_per_token_predicted, 0.2242, 1e-12);
  EXPECT_NEAR(*b1.energy_error, 0.2242 / 0.4 - 1, 1e-12);
  const step_sweep_point& b64 = s->points[2];
  EXPECT_EQ(b64.batch, 64);
  EXPECT_NEAR(*b64.j_per_token_measured, 400.0 * 4e-3 / 64, 1e-12);  // 25 mJ/token
  // knees: measured median(1, 1.2 ms) = 1.1 ms ÷ (4 ms ÷ 64) = 17.6; predicted 1.0 ÷ (3.2 ÷ 64) = 20
  EXPECT_NEAR(*s->knee_measured, 17.6, 1e-9);
  EXPECT_NEAR(*s->knee_predicted, 20.0, 1e-9);
  EXPECT_EQ(*s->largest_batch_measured, 8);   // 4 ms > 3 ms
  EXPECT_EQ(*s->largest_batch_predicted, 8);  // 3.2 ms > 3 ms
  // the block round-trips through JSON exactly
  const json j = *s;
  EXPECT_EQ(json(j.get<step_sweep_analysis>()), j);
  const json je = e;
  EXPECT_EQ(json(je.get<energy_roofline>()), je);
}

// The FLOPs of a step charged where its kernels run them (docs/formulas-analysis.md §10.2): an fp32
// GEMM (SGEMM: CUDA cores) at 50 TFLOP/s drawing 400 W over the idle 100 W → 6 pJ/FLOP on the CUDA
// cores beside the fp16 GEMM's 1 pJ/FLOP. A batch-1 step that executes 70 GFLOP on the tensor cores
// (a GEMM's tile padding) and 2 GFLOP on CUDA cores (a GEMV), predicted 0.9 ms, 2.2 GB:
// 100 W × 0.9 ms + 60 pJ/B × 2.2 GB + 1 pJ × 70 GFLOP + 6 pJ × 2 GFLOP = 0.09 + 0.132 + 0.07 + 0.012 J.
TEST(StepSweep, FlopsAreChargedAtTheJoulesPerFlopOfTheEngineThatRanThem) {
  results r = gpu_like();
  compute_result sgemm;
  sgemm.precision = "fp32", sgemm.engine = "gemm", sgemm.size = 8192, sgemm.flops_per_s = 5.2e13,
  sgemm.median_flops_per_s = 5e13, sgemm.verified = true, sgemm.energy = window(1.5, 600);  // 400 W
  r.measured.compute.push_back(sgemm);
  step_sweep_plan plan;
  plan.context = 2048, plan.batches = {1};
  r.step_sweep = plan;
  whole_step_result w;
  w.phase = "decode", w.batch = 1, w.context = 2048, w.measured_s = 1e-3, w.predicted_s = 0.9e-3;
  w.bytes = 2.2e9, w.flops = 2.2e9, w.energy = window(1.25, 1.25 * 400);
  w.flops_executed_tensor = 70e9, w.flops_executed_cuda_cores = 2e9;
  r.whole_step.push_back(w);
  const energy_roofline e = analyse_energy(r);
  ASSERT_TRUE(e.joules_per_flop_cuda_cores);
  EXPECT_NEAR(*e.joules_per_flop_cuda_cores, 300.0 / 5e13, 1e-27);
  EXPECT_NE(e.cuda_cores_source.find("gemm fp32 n = 8192"), std::string::npos) << e.cuda_cores_source;
  const auto s = analyse_step_sweep(r, e);
  ASSERT_TRUE(s && s->points.size() == 1u);
  EXPECT_NEAR(*s->points[0].j_per_token_predicted, 0.09 + 0.132 + 0.07 + 0.012, 1e-12);
  EXPECT_DOUBLE_EQ(*s->points[0].flops_charged_tensor, 70e9);
  EXPECT_DOUBLE_EQ(*s->points[0].flops_charged_cuda_cores, 2e9);
  EXPECT_TRUE(s->notes.empty());
  const json j = *s;
  EXPECT_EQ(json(j.get<step_sweep_analysis>()), j);
  const json je = e;
  EXPECT_EQ(json(je.get<energy_roofline>()), je);

  // without an fp32 GEMM window the CUDA cores' FLOPs are charged at the tensor J/FLOP, and said
  r.measured.compute.pop_back();
  const energy_roofline e2 = analyse_energy(r);
  EXPECT_FALSE(e2.joules_per_flop_cuda_cores);
  const auto s2 = analyse_step_sweep(r, e2);
  EXPECT_NEAR(*s2->points[0].j_per_token_predicted, 0.09 + 0.132 + 0.072, 1e-12);
  ASSERT_EQ(s2->notes.size(), 1u);
  EXPECT_NE(s2->notes[0].find("CUDA cores' J/FLOP is unknown"), std::string::npos) << s2->notes[0];

  // a file without the executed FLOPs charges the model's 2.2 GFLOP at the tensor J/FLOP
  r.whole_step[0].flops_executed_tensor.reset(), r.whole_step[0].flops_executed_cuda_cores.reset();
  EXPECT_NEAR(*analyse_step_sweep(r, e2)->points[0].j_per_token_predicted, 0.09 + 0.132 + 0.0022, 1e-12);
}

// TinyLlama's decode step at batch 1 on the H100 (bench/results/h100/2026-12-06-68258b4-step-energy): the
// coefficients and the step's record as the run wrote them; predicted 0.4866 J against 0.538 J measured.
TEST(StepSweep, TheH100BatchOneStepIsChargedByEngine) {
  energy_roofline e;
  e.idle_w = 124.62422786331896, e.joules_per_byte = 1.3720935341315965e-10, e.joules_per_flop = 8.910577191377413e-13;
  e.joules_per_flop_cuda_cores = 1.0029618878963347e-11;
  whole_step_result w;
  w.phase = "decode", w.batch = 1, w.predicted_s = 0.0014016156879642601, w.bytes = 2119374856.0, w.flops = 2446378496.0;
  w.flops_executed_tensor = 377538048.0, w.flops_executed_cuda_cores = 2068840448.0;
  const step_energy_charge c = charge_step(e, w);
  EXPECT_NEAR(c.joules, 0.1747 + 0.2908 + 0.0003 + 0.0207, 1e-4);
  EXPECT_NEAR(c.joules / 0.5382904037133027 - 1, -0.096, 1e-3);
  // the model's 2.45 GFLOP all at the tensor J/FLOP would have said 0.4677 J (−13.1 %)
  w.flops_executed_tensor.reset(), w.flops_executed_cuda_cores.reset();
  EXPECT_NEAR(charge_step(e, w).joules, 0.1747 + 0.2908 + 0.0022, 1e-4);
}

TEST(StepSweep, NewResultFieldsRoundTripAndOlderFilesStayTheSame) {
  results r = gpu_like();
  r.device.id = "cuda:0";
  whole_step_result w;
  w.phase = "decode", w.batch = 4, w.context = 2048, w.measured_s = 1e-3, w.predicted_s = 9e-4, w.bytes = 2e9,
  w.flops = 8e9;
  w.energy = window(0.2, 80);
  w.flops_executed_tensor = 9e9, w.flops_executed_cuda_cores = 1e8;
  r.whole_step.push_back(w);
  step_sweep_plan p;
  p.context = 2048, p.batches = {1, 2, 4}, p.memory_bytes = 1.5e11, p.kv_capacity_batch = 3000;
  p.notes = {"decode batch 2: not run (test)"};
  r.step_sweep = p;
  const json j = r;
  EXPECT_EQ(json(parse_results(j.dump(), "test.json")), j);
  EXPECT_TRUE(j.contains("step_sweep"));
  EXPECT_DOUBLE_EQ(j["whole_step"][0]["energy"]["counter_j"].get<double>(), 80.0);
  // absent fields are not written: a file without them re-renders without them
  results old;
  old.device.kind = "cpu", old.device.name = "old";
  old.measured.bandwidth.push_back({});
  old.whole_step.push_back({});
  const json o = old;
  EXPECT_FALSE(o.contains("step_sweep"));
  EXPECT_FALSE(o["measured"].contains("idle_energy"));
  EXPECT_FALSE(o["measured"]["bandwidth"][0].contains("energy"));
  EXPECT_FALSE(o["whole_step"][0].contains("energy"));
  EXPECT_FALSE(o["whole_step"][0].contains("bytes"));
  EXPECT_FALSE(o["whole_step"][0].contains("flops_executed_tensor"));
  EXPECT_DOUBLE_EQ(j["whole_step"][0]["flops_executed_cuda_cores"].get<double>(), 1e8);
}

}  // namespace
}  // namespace roofline

namespace roofline {
namespace {

TEST(EnergyRoofline, AProbeAtIdlePowerLeavesItsCoefficientUnknown) {
  results r = gpu_like();
  r.measured.bandwidth[0].energy = window(1.0, 90);  // 90 W, below the 100 W idle: no energy per byte to read
  const energy_roofline e = analyse_energy(r);
  EXPECT_FALSE(e.joules_per_byte);
  EXPECT_TRUE(e.joules_per_flop);
  EXPECT_FALSE(e.complete());
  EXPECT_NE(std::find(e.notes.begin(), e.notes.end(),
                      "J/B unknown (the bandwidth probe drew 90.0 W, not above the idle 100 W)"),
            e.notes.end());
}

}  // namespace
}  // namespace roofline

namespace roofline {
namespace {

// The H200's probes time 0.1–0.3 s windows, too short for NVML's counter (min_energy_window_s); the
// sustained run (~1.5 s back to back) gives the window, at the run's own mean rate.
TEST(EnergyRoofline, ShortTimedWindowsFallBackToTheSustainedRun) {
  results r = gpu_like();
  bandwidth_result& b = r.measured.bandwidth[0];
  b.energy = window(0.2, 100);                 // 500 W over 0.2 s: too short to read
  b.sustained_energy = window(1.5, 675);       // 450 W over 1.5 s
  b.sustained_energy_rate = 4.2e12;            // its mean rate, not the timed median (4 TB/s)
  compute_result& g = r.measured.compute[0];
  g.energy = window(0.3, 210);
  g.sustained_energy = window(1.5, 1050);      // 700 W
  g.sustained_energy_rate = 5e14;
  const energy_roofline e = analyse_energy(r);
  ASSERT_TRUE(e.complete()) << (e.notes.empty() ? "" : e.notes.front());
  EXPECT_NEAR(*e.joules_per_byte, 350.0 / 4.2e12, 1e-24);  // (450 − 100) W ÷ 4.2 TB/s = 83.3 pJ/B
  EXPECT_NEAR(*e.joules_per_flop, 600.0 / 5e14, 1e-27);   // (700 − 100) W ÷ 500 TFLOP/s = 1.2 pJ/FLOP
  EXPECT_NE(e.bytes_source.find("(sustained run, 1.50 s)"), std::string::npos) << e.bytes_source;
  EXPECT_NE(e.flops_source.find("gemm fp16 n = 8192 (sustained run"), std::string::npos) << e.flops_source;
  // the timed window wins where it is long enough
  r.measured.bandwidth[0].energy = window(1.0, 340);
  EXPECT_NEAR(*analyse_energy(r).joules_per_byte, 240.0 / 4e12, 1e-24);
  // and the fields survive results.json
  const json j = r;
  EXPECT_DOUBLE_EQ(j["measured"]["bandwidth"][0]["sustained_energy"]["counter_j"].get<double>(), 675.0);
  EXPECT_EQ(json(parse_results(j.dump(), "test.json")), j);
}

}  // namespace
}  // namespace roofline

namespace roofline {
namespace {

/// gpu_like() with the decode step's linear layers replayed alone at batches 1 and 256 (the worked example of
/// decode_gemm_coefficients, roofline/energy_analysis.hpp): π0 = 100 W, ε_mem = 60 pJ/B.
results with_linear_layers() {
  results r = gpu_like();
  step_sweep_plan plan;
  plan.context = 2048, plan.batches = {1, 16, 256};
  const auto replay = [](std::int64_t b, double t, double watts, double bytes, double ft, double fc) {
    whole_step_result w;
    w.phase = "decode", w.batch = b, w.context = 2048, w.measured_s = t, w.predicted_s = t, w.bytes = bytes;
    w.flops = ft + fc, w.flops_executed_tensor = ft, w.flops_executed_cuda_cores = fc;
    w.energy = window(1.05, 1.05 * watts);
    return w;
  };
  // batch 512 replayed alone drew 680 W, ≥ 95 % of the 700 W limit: the power cap set its clock, not used
  plan.linear_layers = {replay(1, 1e-3, 262, 2e9, 1e9, 2e9), replay(512, 6e-3, 680, 2.6e9, 1000e9, 0),
                        replay(256, 4e-3, 383, 2.2e9, 500e9, 0)};
  r.step_sweep = plan;
  return r;
}

TEST(DecodeGemms, BothEnginesSolvedFromTheTwoReplays) {
  const results r = with_linear_layers();
  const energy_roofline e = analyse_energy(r);
  ASSERT_TRUE(e.complete());
  EXPECT_NEAR(*e.joules_per_flop, 1e-12, 1e-24);  // the roof GEMM's, unchanged
  ASSERT_TRUE(e.joules_per_flop_decode_tensor && e.joules_per_flop_decode_cuda_cores);
  EXPECT_NEAR(*e.joules_per_flop_decode_tensor, 2e-12, 1e-22);
  EXPECT_NEAR(*e.joules_per_flop_decode_cuda_cores, 20e-12, 1e-21);
  EXPECT_NE(e.decode_source.find("batch 1: 262 W"), std::string::npos) << e.decode_source;
  EXPECT_NE(e.decode_source.find("both engines solved"), std::string::npos) << e.decode_source;
  EXPECT_EQ(e.decode_source.find("batch 512"), std::string::npos) << e.decode_source;
  ASSERT_EQ(e.notes.size(), 1u);
  EXPECT_NE(e.notes[0].find("batch 512: not used"), std::string::npos) << e.notes[0];
  const json je = e;
  EXPECT_EQ(json(je.get<energy_roofline>()), je);
  const json jr = r;
  EXPECT_EQ(json(parse_results(jr.dump(), "test.json")), jr);
  EXPECT_EQ(jr["step_sweep"]["linear_layers"].size(), 3u);
}

TEST(DecodeGemms, DecodeStepsAreChargedAtThemAndPrefillAtTheRoofs) {
  const energy_roofline e = analyse_energy(with_linear_layers());
  whole_step_result w;
  w.phase = "decode", w.batch = 16, w.predicted_s = 2e-3, w.bytes = 2.5e9, w.flops = 33e9;
  w.flops_executed_tensor = 40e9, w.flops_executed_cuda_cores = 1e9;
  // 100 W × 2 ms + 60 pJ/B × 2.5 GB + 2 pJ × 40 GFLOP + 20 pJ × 1 GFLOP
  EXPECT_NEAR(charge_step(e, w).joules, 0.2 + 0.15 + 0.08 + 0.02, 1e-12);
  w.phase = "prefill";  // the probes' J/FLOP: 1 pJ on the tensor cores, and no CUDA-core one: the tensor one
  EXPECT_NEAR(charge_step(e, w).joules, 0.2 + 0.15 + 0.04 + 0.001, 1e-12);
}

TEST(DecodeGemms, OneEngineMixGivesTheTensorCoresOnlyAndNonsenseIsNotKept) {
  results r = with_linear_layers();
  r.step_sweep->linear_layers.erase(r.step_sweep->linear_layers.begin());  // batch 256 alone (512 at the cap)
  energy_roofline e = analyse_energy(r);
  ASSERT_TRUE(e.joules_per_flop_decode_tensor);
  EXPECT_NEAR(*e.joules_per_flop_decode_tensor, 2e-12, 1e-22);
  EXPECT_FALSE(e.joules_per_flop_decode_cuda_cores);
  EXPECT_NE(e.decode_source.find("the tensor cores' from batch 256"), std::string::npos) << e.decode_source;
  // batch 1 alone: the CUDA cores' from it, its 1 GFLOP on the tensor cores at the roof GEMM's 1 pJ:
  // (0.042 − 0.001) J ÷ 2 GFLOP = 20.5 pJ
  results one = with_linear_layers();
  one.step_sweep->linear_layers.resize(1);
  const energy_roofline e1 = analyse_energy(one);
  EXPECT_FALSE(e1.joules_per_flop_decode_tensor);
  ASSERT_TRUE(e1.joules_per_flop_decode_cuda_cores);
  EXPECT_NEAR(*e1.joules_per_flop_decode_cuda_cores, 20.5e-12, 1e-21);
  EXPECT_NE(e1.decode_source.find("the CUDA cores' from batch 1"), std::string::npos) << e1.decode_source;
  // batch 1 and batch 512 at the cap: no replay below the cap ran mostly on the tensor cores, so the capped one
  // is used, and said: D = (680 − 100) W × 6 ms − 60 pJ/B × 2.6 GB = 3.324 J over 1000 GFLOP → 3.324 pJ;
  // ε_c = (0.042 − 3.324 pJ × 1 G) ÷ 2 G = 19.338 pJ
  one = with_linear_layers();
  one.step_sweep->linear_layers.pop_back();
  const energy_roofline e2 = analyse_energy(one);
  ASSERT_TRUE(e2.joules_per_flop_decode_tensor && e2.joules_per_flop_decode_cuda_cores);
  EXPECT_NEAR(*e2.joules_per_flop_decode_tensor, 3.324e-12, 1e-22);
  EXPECT_NEAR(*e2.joules_per_flop_decode_cuda_cores, 19.338e-12, 1e-21);
  ASSERT_EQ(e2.notes.size(), 1u);
  EXPECT_NE(e2.notes[0].find("batch 512: used although at the power cap"), std::string::npos) << e2.notes[0];
  // a replay drawing less than idle and bytes would make a FLOP cost less than nothing: not kept, and said
  r.step_sweep->linear_layers[1].energy = window(1.05, 1.05 * 120);
  e = analyse_energy(r);
  EXPECT_FALSE(e.joules_per_flop_decode_tensor);
  EXPECT_TRUE(e.decode_source.empty());
  ASSERT_FALSE(e.notes.empty());
  EXPECT_NE(e.notes.back().find("not kept"), std::string::npos) << e.notes.back();
  // replays too short to read say why, and decode steps fall back to the probes' J/FLOP
  r.step_sweep->linear_layers[0].energy = window(0.3, 0.3 * 680);
  r.step_sweep->linear_layers[1].energy = window(0.3, 0.3 * 383);
  e = analyse_energy(r);
  EXPECT_FALSE(e.joules_per_flop_decode_tensor);
  EXPECT_NE(e.notes.back().find("not read"), std::string::npos) << e.notes.back();
}

}  // namespace
}  // namespace roofline

namespace roofline {
namespace {

// TinyLlama's linear layers replayed alone on an H100 (bench/results/h100/2026-12-06-5e3d882-decode-gemms):
// the run's own records. Batch 1 (our GEMV): 470 W, D = 348.9 W × 0.994 ms − 143.8 pJ/B × 2.07 GB = 0.0490 J over
// 2.07 GFLOP on the CUDA cores → 23.67 pJ; batch 256 (cuBLASLt): 700 W, at the cap, used for want of another:
// 579.2 W × 1.584 ms − 143.8 pJ/B × 2.49 GB = 0.559 J over 531 GFLOP → 1.053 pJ. Its batch-128 step: 15.63 mJ a
// token predicted against 17.88 measured (−12.6 %).
TEST(DecodeGemms, TheH100LinearLayersGiveTheDecodeGemmsJoules) {
  energy_roofline e;
  e.idle_w = 120.74891165316124, e.joules_per_byte = 1.4382674313567476e-10, e.joules_per_flop = 9.004502971615751e-13;
  e.joules_per_flop_cuda_cores = 1.101639236156667e-11, e.power_limit_w = 700.0;
  const auto replay = [](std::int64_t b, double t, double bytes, double ft, double fc, double window_s, double joules) {
    whole_step_result w;
    w.phase = "decode", w.batch = b, w.context = 2048, w.measured_s = t, w.bytes = bytes;
    w.flops_executed_tensor = ft, w.flops_executed_cuda_cores = fc;
    w.energy = window(window_s, joules);
    return w;
  };
  const decode_gemm_joules d = decode_gemm_coefficients(
      e, {replay(1, 0.0009937599897384645, 2070485504.0, 0.0, 2068840448.0, 1.0565841859999807, 496.2715942102826),
          replay(256, 0.001583583950996399, 2489974784.0, 531099549696.0, 0.0, 1.0589830219999783, 741.2169625048845)});
  ASSERT_TRUE(d.tensor && d.cuda_cores);
  EXPECT_NEAR(*d.tensor, 1.0526e-12, 1e-16);
  EXPECT_NEAR(*d.cuda_cores, 23.67e-12, 1e-14);
  ASSERT_EQ(d.notes.size(), 1u);
  EXPECT_NE(d.notes[0].find("batch 256: used although at the power cap"), std::string::npos) << d.notes[0];
  e.joules_per_flop_decode_tensor = d.tensor, e.joules_per_flop_decode_cuda_cores = d.cuda_cores;
  whole_step_result w;
  w.phase = "decode", w.batch = 128, w.predicted_s = 0.003680305393125623, w.bytes = 8513836032.0, w.flops = 313136447488.0;
  w.flops_executed_tensor = 314612842496.0, w.flops_executed_cuda_cores = 0.0;
  const double measured = 637.1335428210208 / 1.0593400570000142 * 0.0038051199913024902 / 128;
  EXPECT_NEAR(charge_step(e, w).joules / 128 / measured - 1, -0.126, 1e-3);
}

}  // namespace
}  // namespace roofline
