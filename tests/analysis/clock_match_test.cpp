// A rate against the nominal peak at the clock of the same interval (roofline/clock_match.hpp), and the
// clock-matched roofs of `place` capped at the nominal peak at the kernel's clock. Nominal roofs: the
// H200 of tests/data/h200-2026-12-03 (fp16/bf16 989,429,760,000,000 FLOP/s = 132 SM × 4 TC × 512 FMA × 2
// × 1830 MHz, int8 twice that); the H100 SXM has the same tensor peaks at the same 1830 MHz (NVIDIA H100
// datasheet), so the H100 run of 2026-12-05 is set against them: its fp16 GEMM reached 746 TFLOP/s with a
// median clock of 1335 MHz over its timed runs, printed as 103.3 % of the peak at that clock.
#include <gtest/gtest.h>

#include <string>

#include "roofline/clock_match.hpp"
#include "roofline/ingest.hpp"
#include "roofline/kernel_analysis.hpp"
#include "roofline/results.hpp"
#include "roofline/vocabulary.hpp"

using namespace roofline;

namespace {

const results& h200() {
  static const results r = load_results(std::string(ROOFLINE_TEST_DATA) + "/h200-2026-12-03/results.json");
  return r;
}

constexpr double fp16_nominal = 989429760000000.0;   // at 1830 MHz
constexpr double int8_nominal = 1978859520000000.0;  // at 1830 MHz

const nominal_peak& fp16_peak() { return *peak_for(h200().nominal, "fp16"); }

/// The best GEMM of `precision` in `r` (the roof), to edit.
compute_result& roof_of(results& r, const std::string& precision) {
  const compute_result* best = best_compute_on(r.measured, precision, "gemm");
  return r.measured.compute[static_cast<std::size_t>(best - r.measured.compute.data())];
}

/// The H100 of 2026-12-05 as far as its fp16 roof goes: 746 TFLOP/s, a median clock of 1335 MHz.
compute_result h100_fp16_roof() {
  compute_result c = *best_compute_on(h200().measured, "fp16", "gemm");
  c.flops_per_s = 746e12;
  c.telemetry->sm_clock_mhz->median = 1335;
  return c;
}

repeat_clocks paired(std::optional<double> fastest_mhz, std::optional<double> resolved_rate, std::optional<double> resolved_mhz) {
  repeat_clocks rc;
  rc.repeats = 68, rc.resolved = resolved_mhz ? 9 : 0, rc.period_s = 0.02;
  rc.fastest_mhz = fastest_mhz;
  rc.fastest_low_mhz = 1335, rc.fastest_high_mhz = 1485, rc.fastest_window_s = 0.0031;
  if (!fastest_mhz) rc.fastest_why = "the samples around the repeat read 1335–1485 MHz, 10.8% apart: the clock moved during it";
  rc.resolved_flops_per_s = resolved_rate;
  rc.resolved_mhz = resolved_mhz;
  return rc;
}

}  // namespace

TEST(ClockMatch, ThePeakAtAClockScalesWithTheClock) {
  // 989.43 TFLOP/s × 1335 ÷ 1830 = 721.79 TFLOP/s; at the peak's own clock, the peak
  EXPECT_NEAR(*peak_at_clock(h200().nominal, fp16_peak(), 1335), fp16_nominal * 1335 / 1830, 1);
  EXPECT_NEAR(*peak_at_clock(h200().nominal, fp16_peak(), 1335), 721.79e12, 0.01e12);
  EXPECT_DOUBLE_EQ(*peak_at_clock(h200().nominal, fp16_peak(), 1830), fp16_nominal);
  EXPECT_FALSE(peak_at_clock(h200().nominal, fp16_peak(), 0));
  nominal_roofs no_clock;
  const nominal_peak bare{"fp16", "fp32", "tensor", 989e12, "", {}, std::nullopt, ""};
  EXPECT_FALSE(peak_at_clock(no_clock, bare, 1335));  // a peak that names no clock cannot be scaled
}

TEST(ClockMatch, AnOlderFileAtItsMedianClockReadsAsBefore) {
  // tests/data/h200-2026-12-03 records no per-repeat clock: fp16 n = 8192, 702.96 TFLOP/s, median 1410 MHz
  // → the peak at 1410 MHz is 762.35 TFLOP/s, of which 92.2 % (the README's opening sentence).
  const compute_result* c = best_compute_on(h200().measured, "fp16", "gemm");
  const clock_matched m = match_clock(h200().nominal, &fp16_peak(), *c);
  ASSERT_TRUE(m.fraction) << m.uncertain;
  EXPECT_EQ(m.interval, clock_interval::timed_runs);
  EXPECT_DOUBLE_EQ(*m.clock_mhz, 1410);
  EXPECT_NEAR(*m.peak, 762.35e12, 0.01e12);
  EXPECT_NEAR(*m.fraction, 0.9221, 5e-4);
  EXPECT_TRUE(m.uncertain.empty());
}

TEST(ClockMatch, TheH100sBestRateOverAMedianClockIsAnUncertainClockNotAbove100Percent) {
  // 746 ÷ 721.79 = 103.4 %: the fastest repeat did not run at the median clock of all the samples. No
  // number above 100 % is printed: the text says the rate is above the peak at that clock.
  const clock_matched m = match_clock(h200().nominal, &fp16_peak(), h100_fp16_roof());
  EXPECT_FALSE(m.fraction);
  EXPECT_FALSE(m.peak);
  EXPECT_NE(m.uncertain.find("1335 MHz"), std::string::npos) << m.uncertain;
  EXPECT_NE(m.uncertain.find("746 TFLOP/s is above the 722 TFLOP/s peak"), std::string::npos) << m.uncertain;
  EXPECT_EQ(m.uncertain.find("103"), std::string::npos) << m.uncertain;
}

TEST(ClockMatch, TheFastestRepeatAtItsOwnClock) {
  // the same 746 TFLOP/s, its own repeat's samples reading 1575 MHz: 989.43 × 1575 ÷ 1830 = 851.56 TFLOP/s,
  // of which 87.6 %
  compute_result c = h100_fp16_roof();
  c.repeat_clock = paired(1575, 700e12, 1470);
  const clock_matched m = match_clock(h200().nominal, &fp16_peak(), c);
  ASSERT_TRUE(m.fraction) << m.uncertain;
  EXPECT_EQ(m.interval, clock_interval::fastest_repeat);
  EXPECT_DOUBLE_EQ(*m.rate, 746e12);
  EXPECT_DOUBLE_EQ(*m.clock_mhz, 1575);
  EXPECT_NEAR(*m.peak, 851.56e12, 0.01e12);
  EXPECT_NEAR(*m.fraction, 0.8761, 5e-4);
  EXPECT_TRUE(m.fastest_uncertain.empty());
}

TEST(ClockMatch, AnUncertainFastestRepeatGivesWayToTheFastestResolvedOne) {
  // the fastest repeat between samples of 1335 and 1485 MHz: uncertain; the fastest resolved repeat ran
  // 700 TFLOP/s at 1470 MHz, where the peak is 989.43 × 1470 ÷ 1830 = 794.79 TFLOP/s: 88.1 %
  compute_result c = h100_fp16_roof();
  c.repeat_clock = paired(std::nullopt, 700e12, 1470);
  const clock_matched m = match_clock(h200().nominal, &fp16_peak(), c);
  ASSERT_TRUE(m.fraction) << m.uncertain;
  EXPECT_EQ(m.interval, clock_interval::resolved_repeat);
  EXPECT_DOUBLE_EQ(*m.rate, 700e12);
  EXPECT_NEAR(*m.peak, 794.79e12, 0.01e12);
  EXPECT_NEAR(*m.fraction, 0.8807, 5e-4);
  EXPECT_NE(m.fastest_uncertain.find("1335–1485 MHz"), std::string::npos) << m.fastest_uncertain;
}

TEST(ClockMatch, ARateAboveThePeakAtTheClockItsSamplesReadIsNeverAFraction) {
  // the fastest repeat's samples agree on 1335 MHz yet its 746 TFLOP/s is 103.4 % of the peak there: the
  // clock rose between them; the fastest resolved one, 740 TFLOP/s at 1350 MHz, is 101.4 % of 729.90:
  // no interval stands, so no fraction is given.
  compute_result c = h100_fp16_roof();
  c.repeat_clock = paired(1335, 740e12, 1350);
  const clock_matched m = match_clock(h200().nominal, &fp16_peak(), c);
  EXPECT_FALSE(m.fraction);
  EXPECT_NE(m.uncertain.find("746 TFLOP/s, above the 722 TFLOP/s peak at the 1335 MHz"), std::string::npos) << m.uncertain;
  EXPECT_NE(m.uncertain.find("740 TFLOP/s, above the 730 TFLOP/s peak at the 1350 MHz"), std::string::npos) << m.uncertain;
  // and with no resolved repeat at all
  c.repeat_clock = paired(std::nullopt, std::nullopt, std::nullopt);
  const clock_matched none = match_clock(h200().nominal, &fp16_peak(), c);
  EXPECT_FALSE(none.fraction);
  EXPECT_NE(none.uncertain.find("none of its 68 repeats"), std::string::npos) << none.uncertain;
}

TEST(ClockMatchedRoof, TheBf16FlashAttentionRoofIsCappedAtTheNominalPeakAtItsClock) {
  // The H100 report: a bf16 flash-attention kernel at 1808 MHz got a compute roof of 1,023 TFLOP/s, above
  // the 989 TFLOP/s nominal at 1830 MHz. A bf16 roof of 755.4 TFLOP/s at a median 1335 MHz scales to
  // 755.4 × 1808 ÷ 1335 = 1,023.0 TFLOP/s; the nominal peak at 1808 MHz is 989.43 × 1808 ÷ 1830 = 977.54.
  results r = h200();
  compute_result& bf16 = roof_of(r, "bf16");
  bf16.flops_per_s = 755.4e12;
  bf16.telemetry->sm_clock_mhz->median = 1335;
  ingest::kernel_record k;
  k.name = "flash_fwd_kernel<Flash_fwd_kernel_traits<128, 128, 64, 4, false, false, cutlass::bfloat16_t>>";
  k.duration_s = 1.5e-3;
  k.flops.push_back({"bf16", "tensor", 1.0e12, ingest::count_source::counter, "sm__ops_path_tensor_src_bf16"});
  k.sm_clock_hz = 1.808e9;
  const kernel_verdict v = judge_kernel(k, r, "bf16", floors_of(r));
  ASSERT_TRUE(v.compute_roof && v.compute_roof_unscaled && v.clock_scale);
  EXPECT_GT(755.4e12 * *v.clock_scale, 1022.9e12);  // what the roof was before the cap
  EXPECT_NEAR(*v.compute_roof, 977.54e12, 0.01e12);
  EXPECT_NEAR(*v.compute_roof, fp16_nominal * 1808 / 1830, 1);
  EXPECT_DOUBLE_EQ(*v.compute_roof_unscaled, 755.4e12);
  EXPECT_NE(v.clock_note.find("capped at the nominal peak at the kernel's clock"), std::string::npos) << v.clock_note;
}

TEST(ClockMatchedRoof, TheInt8GemmRoofIsCappedAtTheNominalPeakAtItsClock) {
  // The H100 report: the int8 GEMM got 1,959 TOP/s at 1764 MHz; nominal at that clock 1978.86 × 1764 ÷ 1830 =
  // 1,907.5 TOP/s. A roof of 1,482.6 TOP/s at a median 1335 MHz scales to 1,959.0.
  results r = h200();
  compute_result& int8 = roof_of(r, "int8");
  int8.flops_per_s = 1482.6e12;
  int8.telemetry->sm_clock_mhz->median = 1335;
  ingest::kernel_record k;
  k.name = "sm90_xmma_gemm_s8s8_s32_i8i8_int8";
  k.duration_s = 1.0e-3;
  k.flops.push_back({"int8", "tensor", 1.5e12, ingest::count_source::counter, "sm__ops_path_tensor_src_int8"});
  k.sm_clock_hz = 1.764e9;
  const kernel_verdict v = judge_kernel(k, r, "int8", floors_of(r));
  ASSERT_TRUE(v.compute_roof && v.clock_scale);
  EXPECT_GT(1482.6e12 * *v.clock_scale, 1958.9e12);
  EXPECT_NEAR(*v.compute_roof, int8_nominal * 1764 / 1830, 1);
  EXPECT_NEAR(*v.compute_roof, 1907.49e12, 0.01e12);
}

TEST(ClockMatchedRoof, APairedRepeatClockScalesItsOwnRate) {
  // A GEMM that recorded its fastest repeat's clock: that rate and that clock are scaled, not the rate over
  // the median. 746 TFLOP/s at its own 1575 MHz → at a kernel's 1290 MHz: 746 × 1290 ÷ 1575 = 611.0 TFLOP/s.
  results r = h200();
  compute_result& fp16 = roof_of(r, "fp16");
  fp16.flops_per_s = 746e12;
  fp16.repeat_clock = paired(1575, 700e12, 1470);
  ingest::kernel_record k;
  k.name = "sm90_xmma_gemm_f16f16_f32";
  k.duration_s = 220e-6;
  k.flops.push_back({"fp16", "tensor", 137438953472.0, ingest::count_source::counter, "test"});
  k.sm_clock_hz = 1.29e9;
  const kernel_verdict v = judge_kernel(k, r, "fp16", floors_of(r));
  ASSERT_TRUE(v.compute_roof && v.clock_scale);
  EXPECT_NEAR(*v.clock_scale, 1290.0 / 1575.0, 1e-12);
  EXPECT_NEAR(*v.compute_roof, 746e12 * 1290 / 1575, 1);
  EXPECT_NE(v.clock_note.find("fastest repeat"), std::string::npos) << v.clock_note;
  EXPECT_EQ(v.clock_note.find("capped"), std::string::npos) << v.clock_note;
}

TEST(ClockMatchedRoof, NoClockScaledRoofOfTheSharedNcuExportsExceedsTheNominalPeakAtItsClock) {
  // Every kernel of every Nsight Compute export of tests/data/h200-2026-12-03, placed against the H200's own
  // roofs and against the H100's fp16 roof (746 TFLOP/s at a median 1335 MHz, which scales past the nominal
  // at any clock: 746 ÷ 1335 > 989.43 ÷ 1830): each clock-scaled compute roof is at most the nominal peak of
  // its precision at the kernel's clock.
  results h100 = h200();
  roof_of(h100, "fp16") = h100_fp16_roof();
  int scaled = 0, capped = 0;
  for (const char* file : {"ncu-prog-recommended-metrics.csv", "ncu-tinyllama-decode-recommended-metrics.csv",
                           "ncu-tinyllama-decode-tensor-counters.csv", "ncu-readme-metrics.csv", "ncu-roofline-sections-raw.csv"}) {
    const auto in = ingest::read_ncu_csv(std::string(ROOFLINE_TEST_DATA) + "/h200-2026-12-03/" + file);
    for (const results* r : {&h200(), static_cast<const results*>(&h100)}) {
      const auto vs = judge_kernels(in.kernels, *r, "fp16");
      ASSERT_EQ(vs.size(), in.kernels.size()) << file;
      for (std::size_t i = 0; i < vs.size(); ++i) {
        const kernel_verdict& v = vs[i];
        if (!v.clock_scale || !v.compute_roof) continue;
        ++scaled;
        const double mhz = *in.kernels[i].sm_clock_hz / 1e6;
        const nominal_peak* p = peak_for(r->nominal, v.precision, v.engine == "vector" ? peak_engine::vector : peak_engine::highest);
        ASSERT_TRUE(p) << file << " " << v.name;
        EXPECT_LE(*v.compute_roof, *peak_at_clock(r->nominal, *p, mhz) * (1 + 1e-12)) << file << " " << v.name << " at " << mhz << " MHz";
        capped += v.clock_note.find("capped") != std::string::npos;
      }
    }
  }
  EXPECT_GE(scaled, 100);  // 60 + 60 + 9 kernels with a clock, against two sets of roofs
  EXPECT_GE(capped, 1);    // the H100's roof is capped wherever it is scaled in fp16
}
