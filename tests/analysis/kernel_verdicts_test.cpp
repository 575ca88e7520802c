// Kernel verdicts, the trace time split and the baseline diff, against the real H200 results of
// tests/data/h200-2026-12-03 (measured: best fp16 GEMM 702,962,233,088,604 FLOP/s at n = 8192 with a
// median SM clock of 1410 MHz during it (the other n = 8192 point, 690 TFLOP/s, is rejected); fp32
// FMA chains 65,734,462,828,115 FLOP/s; best DRAM read 4,687,191,346,368 B/s; launch
// back-to-back 3.92 µs (measured.launch.method), alone 8.99 µs).
#include <gtest/gtest.h>

#include <algorithm>

#include "roofline/ingest.hpp"
#include "roofline/kernel_analysis.hpp"
#include "roofline/results.hpp"

using namespace roofline;
using ingest::count_source;

namespace {

const results& h200() {
  static const results r = load_results(std::string(ROOFLINE_TEST_DATA) + "/h200-2026-12-03/results.json");
  return r;
}

constexpr double fp16_roof = 702962233088604.1;  // measured.compute: fp16 gemm n = 8192, not rejected
constexpr double fp16_roof_mhz = 1410.0;         // its telemetry.sm_clock_mhz.median
constexpr double fp32_vector_roof = 65734462828114.87;
constexpr double dram_roof = 4687191346368.007;  // read dram 4 GiB

ingest::kernel_record kernel(const std::string& name, double seconds, double flops, const std::string& precision, const std::string& engine,
                             double dram_bytes) {
  ingest::kernel_record k;
  k.name = name;
  k.duration_s = seconds;
  if (flops > 0) k.flops.push_back({precision, engine, flops, count_source::counter, "test"});
  if (dram_bytes > 0) k.bytes.push_back({"dram", dram_bytes, count_source::counter, "dram__bytes.sum"});
  return k;
}

kernel_verdict judge(const ingest::kernel_record& k) { return judge_kernel(k, h200(), "fp16", floors_of(h200())); }

}  // namespace

TEST(KernelVerdict, TheFloorsAreReadFromTheResults) {
  const kernel_floors f = floors_of(h200());
  ASSERT_TRUE(f.launch_s);
  EXPECT_NEAR(*f.launch_s, 3.92e-6, 1e-12);  // "back-to-back on one stream = 3.92 µs"
  EXPECT_NEAR(*f.launch_alone_s, 8.987e-6, 1e-9);
  EXPECT_NEAR(*f.small_work_s, 8.688e-7, 1e-9);
  // a file that records the back-to-back time as a field: the field, not the method text
  results r = h200();
  r.measured.launch->back_to_back_s = 4.5e-6;
  EXPECT_NEAR(*floors_of(r).launch_s, 4.5e-6, 1e-15);
}

TEST(KernelVerdict, Gemm4096AtLockedClockIsAtTheClockMatchedRoof) {
  // 4096³ fp16 GEMM: 2·4096³ = 137,438,953,472 FLOP in 220 µs = 624.72 TFLOP/s, ncu's locked base
  // clock 1290 MHz. Unscaled: 624.72 ÷ 702.96 = 0.8887. Clock-matched roof: 702.96 × 1290 ÷ 1410 =
  // 643.14 TFLOP/s, so 624.72 ÷ 643.14 = 0.9714. Bytes (A, B, C fp16: 3 × 32 MiB) take 21.5 µs at the
  // DRAM roof: compute binds.
  auto k = kernel("sm90_xmma_gemm_f16f16_f32", 220e-6, 137438953472.0, "fp16", "tensor", 3.0 * 4096 * 4096 * 2);
  k.sm_clock_hz = 1.29e9;
  const kernel_verdict v = judge(k);
  EXPECT_EQ(v.precision, "fp16");
  EXPECT_EQ(v.engine, "tensor");
  EXPECT_EQ(v.binding, "compute");
  EXPECT_EQ(v.cls, verdict_class::at_roof);
  EXPECT_TRUE(v.plausible);
  ASSERT_TRUE(v.clock_scale && v.fraction && v.fraction_unscaled);
  EXPECT_NEAR(*v.clock_scale, 1290.0 / fp16_roof_mhz, 1e-12);
  const double achieved = 137438953472.0 / 220e-6;
  EXPECT_NEAR(*v.fraction_unscaled, achieved / fp16_roof, 1e-9);
  EXPECT_NEAR(*v.fraction, achieved / (fp16_roof * 1290.0 / fp16_roof_mhz), 1e-9);
  EXPECT_NEAR(*v.fraction_unscaled, 0.8887, 5e-4);
  EXPECT_NEAR(*v.fraction, 0.9714, 5e-4);
  EXPECT_GE(*v.fraction, 0.95);
  EXPECT_LE(*v.fraction, 1.05);
  EXPECT_GE(*v.fraction_unscaled, 0.85);
  EXPECT_LE(*v.fraction_unscaled, 0.93);
  EXPECT_NE(v.clock_note.find("memory roofs not scaled"), std::string::npos) << v.clock_note;
  EXPECT_NE(v.compute_roof_source.find("n = 8192"), std::string::npos) << v.compute_roof_source;
}

TEST(KernelVerdict, Fp32SoftmaxIsJudgedAgainstTheFp32VectorRoof) {
  // softmax over 8192 × 4096 fp32: ~5 FLOP per element on the FMA pipes, read + write 2 × 128 MiB.
  const double n = 8192.0 * 4096;
  const kernel_verdict v = judge(kernel("softmax_warp_forward<float>", 80e-6, 5 * n, "fp32", "vector", 2 * 4 * n));
  EXPECT_EQ(v.precision, "fp32");
  ASSERT_TRUE(v.compute_roof);
  EXPECT_DOUBLE_EQ(*v.compute_roof, fp32_vector_roof);  // not the fp16 GEMM's 703 TFLOP/s, nor fp32 GEMM's
  EXPECT_EQ(v.binding, "dram");
  // 268,435,456 B ÷ 4.687 TB/s = 57.27 µs of 80 µs = 0.716: on the slope
  EXPECT_NEAR(*v.fraction, 2 * 4 * n / dram_roof / 80e-6, 1e-12);
  EXPECT_EQ(v.cls, verdict_class::bandwidth);
}

TEST(KernelVerdict, AThreeMicrosecondKernelIsLaunchBound) {
  // 1 MB in 3 µs: 0.213 µs at the roof (7%), and 3 µs ≤ 2 × 3.92 µs
  const kernel_verdict v = judge(kernel("vectorized_elementwise_kernel<add>", 3e-6, 0, "", "", 1e6));
  EXPECT_EQ(v.cls, verdict_class::launch_bound);
  EXPECT_NEAR(*v.fraction, 1e6 / dram_roof / 3e-6, 1e-12);
}

TEST(KernelVerdict, AKernelAtThreePercentIsBelowBothAndNamesTheFloors) {
  const double t = 1e8 / dram_roof / 0.03;  // 711 µs for 100 MB
  const kernel_verdict v = judge(kernel("index_select_kernel", t, 0, "", "", 1e8));
  EXPECT_EQ(v.cls, verdict_class::below_both);
  EXPECT_NEAR(*v.fraction, 0.03, 1e-12);
  EXPECT_NE(v.why.find("launch 3.92 µs back-to-back"), std::string::npos) << v.why;
  EXPECT_NE(v.why.find("small-work floor"), std::string::npos) << v.why;
}

TEST(KernelVerdict, AKernelWithNoCountsIsUnattributed) {
  ingest::kernel_record k;
  k.name = "mystery";
  k.duration_s = 50e-6;
  const kernel_verdict v = judge(k);
  EXPECT_EQ(v.cls, verdict_class::unattributed);
  EXPECT_FALSE(v.fraction);
  EXPECT_EQ(v.flops_source, "none");
}

TEST(KernelVerdict, AboveTheRoofIsImpossibleWithCauses) {
  // 137.4 GFLOP in 150 µs = 916 TFLOP/s: 130% of the measured fp16 roof (no clock to match)
  const kernel_verdict v = judge(kernel("gemm", 150e-6, 137438953472.0, "fp16", "tensor", 0));
  EXPECT_FALSE(v.plausible);
  ASSERT_GE(v.causes.size(), 2u);
  EXPECT_EQ(v.causes[0].rfind("impossible: ", 0), 0u) << v.causes[0];
}

TEST(KernelVerdict, ModelFlopsBesideHardwareFlops) {
  // decode q_proj GEMV: model 2·1·2048·2048 = 8,388,608 FLOP; the tensor cores pad the one row to 8:
  // 67,108,864 hardware FLOP. Model ÷ hardware = 12.5%. The hardware count is the one placed.
  auto k = kernel("gemv2T_kernel", 10e-6, 67108864.0, "fp16", "tensor", 2048.0 * 2048 * 2);
  k.model_flops.push_back({"fp16", "", 8388608.0, count_source::shape_model, "gemm_op"});
  const kernel_verdict v = judge(k);
  EXPECT_DOUBLE_EQ(v.flops, 67108864.0);
  EXPECT_EQ(v.flops_source, "counter");
  ASSERT_TRUE(v.model_over_hardware);
  EXPECT_DOUBLE_EQ(*v.model_over_hardware, 0.125);
}

TEST(TraceSummary, BusyTimeGapsClassesAndAFusionCandidate) {
  // stream 7: GEMM [0, 100) µs, add [100, 110), mul [113, 123), GEMM [130, 230).
  // GEMMs: 68.72 GFLOP in 100 µs = 687 TFLOP/s = 97.8% of 703: at_roof. add, mul: 20 MB each in 10 µs,
  // 4.27 µs at the DRAM roof = 42.7%, and 10 µs > 2 × 3.92 µs: below_both.
  ingest::ingest_result in;
  auto gemm = [](double start) {
    auto k = kernel("sm90_xmma_gemm", 100e-6, 68719476736.0, "fp16", "tensor", 0);
    k.start_s = start;
    k.stream = 7;
    return k;
  };
  auto elem = [](const std::string& name, double start) {
    auto k = kernel(name, 10e-6, 0, "", "", 20e6);
    k.start_s = start;
    k.stream = 7;
    return k;
  };
  in.kernels = {gemm(0), elem("elementwise_add", 100e-6), elem("elementwise_mul", 113e-6), gemm(130e-6)};
  in.host = {{"aten::mul", 120e-6, 8e-6}, {"cudaLaunchKernel", 124e-6, 2e-6}};
  const auto v = judge_kernels(in.kernels, h200(), "fp16");
  ASSERT_EQ(v[0].cls, verdict_class::at_roof);
  ASSERT_EQ(v[1].cls, verdict_class::below_both);
  const trace_summary s = summarize_trace(in, v, h200());
  // busy = 110 + 10 + 100 = 220 µs of a 230 µs span = 95.65%
  EXPECT_NEAR(s.busy_s, 220e-6, 1e-12);
  EXPECT_NEAR(*s.span_s, 230e-6, 1e-12);
  EXPECT_NEAR(*s.busy_fraction, 220.0 / 230.0, 1e-9);
  // gaps: 7 µs between #3 and #4 (the largest), 3 µs between #2 and #3
  ASSERT_EQ(s.gaps.size(), 2u);
  EXPECT_NEAR(s.gaps[0].duration_s, 7e-6, 1e-12);
  EXPECT_EQ(s.gaps[0].after, 3u);
  EXPECT_EQ(s.gaps[0].before, 4u);
  // the host during it: aten::mul over [123, 128) = 5 µs, cudaLaunchKernel 2 µs
  ASSERT_EQ(s.gaps[0].host.size(), 2u);
  EXPECT_EQ(s.gaps[0].host[0].first, "aten::mul");
  EXPECT_NEAR(s.gaps[0].host[0].second, 5e-6, 1e-12);
  EXPECT_NEAR(s.gaps[1].duration_s, 3e-6, 1e-12);
  // time by class, GEMM share, launch floor × count = 4 × 3.92 µs
  EXPECT_NEAR(s.time_by_class[static_cast<std::size_t>(verdict_class::at_roof)], 200e-6, 1e-12);
  EXPECT_NEAR(s.time_by_class[static_cast<std::size_t>(verdict_class::below_both)], 20e-6, 1e-12);
  EXPECT_NEAR(*s.gemm_share, 200.0 / 220.0, 1e-9);
  EXPECT_NEAR(*s.launch_floor_total_s, 4 * 3.92e-6, 1e-12);
  // fusion: #2 #3 between #1 and #4; 40 MB − 10 MB (add's reads) − 10 MB (mul's writes) = 20 MB not
  // moved = 20e6 ÷ 4.687 TB/s = 4.267 µs
  ASSERT_EQ(s.fusion.size(), 1u);
  EXPECT_EQ(s.fusion[0].after, 1u);
  EXPECT_EQ(s.fusion[0].before, 4u);
  EXPECT_EQ(s.fusion[0].kernels, (std::vector<std::size_t>{2, 3}));
  EXPECT_NEAR(*s.fusion[0].bytes_saved, 20e6, 1e-3);
  EXPECT_NEAR(*s.fusion[0].time_saved_s, 20e6 / dram_roof, 1e-15);
  // top kernels by name: the GEMM first, 2 launches, 200 µs
  EXPECT_EQ(s.top[0].name, "sm90_xmma_gemm");
  EXPECT_EQ(s.top[0].count, 2u);
}

TEST(VerdictBaseline, KernelsMatchByNameAndOccurrence) {
  // old: add 20 µs, add 30 µs, norm 15 µs; new: add 10 µs, add 30 µs, mul 5 µs.
  auto run = [](std::vector<std::pair<std::string, double>> ks) {
    std::vector<ingest::kernel_record> rs;
    for (const auto& [n, t] : ks) rs.push_back(kernel(n, t, 1e6, "fp32", "vector", 20e6));
    return judge_kernels(rs, h200(), "fp16");
  };
  const auto old_run = run({{"add", 20e-6}, {"add", 30e-6}, {"norm", 15e-6}});
  const auto new_run = run({{"add", 10e-6}, {"add", 30e-6}, {"mul", 5e-6}});
  const baseline_diff d = diff_baseline(old_run, new_run);
  ASSERT_EQ(d.matched.size(), 2u);
  EXPECT_EQ(d.matched[0].occurrence, 0u);
  EXPECT_NEAR(d.matched[0].saved_s, 10e-6, 1e-15);
  EXPECT_EQ(d.matched[1].occurrence, 1u);
  EXPECT_NEAR(d.matched[1].saved_s, 0, 1e-15);
  EXPECT_NEAR(d.saved_s, 10e-6, 1e-15);
  EXPECT_NEAR(d.old_total_s, 50e-6, 1e-15);
  EXPECT_EQ(d.only_new, (std::vector<std::size_t>{3}));
  EXPECT_EQ(d.only_old, (std::vector<std::size_t>{3}));
  // the arrow: same intensity (1e6 ÷ 20e6 = 0.05 FLOP/B), from 50 to 100 GFLOP/s
  EXPECT_DOUBLE_EQ(*d.matched[0].old_intensity, 0.05);
  EXPECT_DOUBLE_EQ(d.matched[0].old_flops_per_s, 1e6 / 20e-6);
  EXPECT_DOUBLE_EQ(d.matched[0].new_flops_per_s, 1e6 / 10e-6);
}

TEST(KernelVerdict, AGemmWhoseTensorFlopsWereNotCountedIsUnattributedNotBandwidthBound) {
  // ncu-readme-metrics.csv's 4096³ GEMM: 220 µs, 109 MB of DRAM traffic, 0 SASS FLOPs (its work is
  // on the tensor cores, which that export does not count). Placed by bytes alone it would be "10.6 %
  // of the DRAM roof: move fewer bytes"; it is unattributed, saying which metrics are missing.
  auto k = kernel("nvjet_sm90_hsh_256x128_64x4_1x2_h_bz_coopA_NNN", 220032e-9, 0, "", "", 84584960.0 + 24721920.0);
  k.tensor_flops_not_counted = true;
  const kernel_verdict v = judge(k);
  EXPECT_EQ(v.cls, verdict_class::unattributed);
  EXPECT_NE(v.why.find("--ncu-metrics"), std::string::npos) << v.why;
  EXPECT_FALSE(v.fraction.has_value());
  // an elementwise kernel of the same export keeps its verdict: no tensor work to miss
  auto add = kernel("void at::vectorized_elementwise_kernel<4, at::CUDAFunctor_add<float>>", 32.9e-6, 16777216, "fp32", "vector", 110e6);
  add.tensor_flops_not_counted = true;
  EXPECT_EQ(judge(add).cls, verdict_class::bandwidth);
}

TEST(KernelVerdict, AComputeBoundGemmUnderTheRoofIsComputeNotBelowBoth) {
  // The prefill gate/up projection of the eager trace, [512 × 2048]·[2048 × 5632] fp16 =
  // 11,811,160,064 FLOP in ~21.2 µs (nvjet 128x64): at 79 % of the n = 8192 roof it is on the compute
  // side (wave/tile quantization), not "neither roof binds".
  const double flops = 2.0 * 512 * 2048 * 5632;
  const double seconds = flops / (0.79 * fp16_roof);
  const double bytes = 2.0 * (512.0 * 2048 + 2048.0 * 5632 + 512.0 * 5632);
  const kernel_verdict v = judge(kernel("nvjet_sm90_hsh_128x64_64x8_1x2_h_bz_TNT", seconds, flops, "fp16", "tensor", bytes));
  EXPECT_EQ(v.cls, verdict_class::compute);
  EXPECT_NEAR(*v.fraction, 0.79, 1e-9);
  EXPECT_EQ(v.binding, "compute");
  EXPECT_NE(verdict_advice(verdict_class::compute).find("wave/tile quantization"), std::string::npos);
}

TEST(TraceSummary, TheRealEagerTraceIsHostBound) {
  // HF TinyLlama eager on the H200 (tests/data/h200-2026-12-03: a 512-token prefill + 3 decode steps):
  // 3,743 kernels, 11.13 ms of kernel time in a 263.8 ms GPU span: busy 4.2 %. The three largest host
  // gaps (40-49 ms each, one per decode step) are spent inside aten::scaled_dot_product_attention on
  // the host. GEMM and attention kernels (cuBLAS nvjet/cutlass, flash attention, split-K reduces) take
  // 52.4 % of the kernel time; 3,236 of the kernels are shorter than 2 × the 3.92 µs launch floor.
  const auto in = ingest::read_torch_trace(std::string(ROOFLINE_TEST_DATA) + "/h200-2026-12-03/torch-trace-tinyllama-eager.json.gz");
  const auto v = judge_kernels(in.kernels, h200(), "fp16");
  const trace_summary t = summarize_trace(in, v, h200());
  EXPECT_EQ(t.kernels, 3743u);
  EXPECT_NEAR(t.kernel_time_s, 11.132e-3, 0.005e-3);
  EXPECT_NEAR(*t.span_s, 263.786e-3, 0.01e-3);
  EXPECT_NEAR(*t.busy_fraction, 0.0422, 0.0005);
  EXPECT_NEAR(*t.gemm_share, 0.524, 0.001);
  ASSERT_GE(t.gaps.size(), 3u);
  for (int i = 0; i < 3; ++i) {
    EXPECT_GT(t.gaps[i].duration_s, 0.039) << i;
    ASSERT_FALSE(t.gaps[i].host.empty());
    EXPECT_EQ(t.gaps[i].host.front().first, "aten::scaled_dot_product_attention");
  }
  std::size_t launch_bound = 0, unattributed = 0;
  for (const auto& k : v) launch_bound += k.cls == verdict_class::launch_bound, unattributed += k.cls == verdict_class::unattributed;
  // Every kernel is attributed: aten::arange has a cost model (its bounds are recorded), and the 66 split-K
  // reduces and 66 lean reductions are judged with the GEMM / attention kernel that carries their op's counts
  // (kernel_record::counted_with): the 4 arange kernels and 66 of the reductions (those beside a launch-bound
  // GEMV) are launch-bound, so 3,236 + 70.
  EXPECT_EQ(launch_bound, 3306u);
  EXPECT_EQ(unattributed, 0u);
  // the decode q_proj GEMV [1 × 2048]·[2048 × 2048]: 8.39 MFLOP of model work, launch-bound at 5.6 µs
  const auto q = std::find_if(v.begin(), v.end(), [](const kernel_verdict& k) { return k.shapes == "[[1,2048],[2048,2048]] fp16"; });
  ASSERT_NE(q, v.end());
  EXPECT_DOUBLE_EQ(*q->model_flops, 8388608.0);
  EXPECT_EQ(q->cls, verdict_class::launch_bound);
}

TEST(KernelVerdict, AnExportWithTheRecommendedMetricsPlacesTheGemmAtItsClockMatchedRoof) {
  // ncu with `roofline place --ncu-metrics` and --clock-control none on prog.py (H200, 2026-12-03):
  // the 4096³ fp16 GEMM is 137,438,953,472 tensor FLOP (sm__ops_path_tensor_src_fp16) in 178.8 µs =
  // 768.6 TFLOP/s at an SM clock of 1578 MHz. Against the roof as measured (703 TFLOP/s at 1410 MHz
  // under the 700 W cap) that is 109 %, "impossible"; against the clock-matched roof, 703 × 1578 ÷ 1410
  // = 787 TFLOP/s, it is 97.7 %: at the roof, plausible.
  const auto in = ingest::read_ncu_csv(std::string(ROOFLINE_TEST_DATA) + "/h200-2026-12-03/ncu-prog-recommended-metrics.csv");
  ASSERT_EQ(in.kernels.size(), 9u);
  const auto v = judge_kernels(in.kernels, h200(), "fp16");
  const auto& gemm = v[1];
  ASSERT_EQ(gemm.name.rfind("nvjet_sm90_hsh_256x128", 0), 0u) << gemm.name;
  EXPECT_DOUBLE_EQ(gemm.flops, 137438953472.0);
  EXPECT_EQ(gemm.precision, "fp16");
  EXPECT_EQ(gemm.engine, "tensor");
  EXPECT_EQ(gemm.cls, verdict_class::at_roof);
  EXPECT_TRUE(gemm.plausible);
  EXPECT_NEAR(*gemm.fraction, 0.977, 0.002);
  EXPECT_NEAR(*gemm.fraction_unscaled, 1.093, 0.002);
  // fp32 kernels (randn's generator, the fp32 softmax) are placed as fp32 on the vector pipes
  EXPECT_EQ(v[3].precision, "fp32");
  EXPECT_EQ(v[3].engine, "vector");
}
