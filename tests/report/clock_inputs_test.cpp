// The roof GEMM's rate beside the clock of the same interval (opening sentence and record table), and the
// input data it was measured on with the sustained runs on random and zero inputs (record table, energy).
// Base: the H200 run of tests/data/h200-2026-12-03 (fp16 roof n = 8192, 702.96 TFLOP/s, median 1410 MHz;
// fp16 989.43 TFLOP/s nominal at 1830 MHz); edited the way a run of this code writes its fields. The H100
// numbers are those of its first run (2026-12-05): 746 TFLOP/s over a median 1335 MHz, printed as 103.3 %;
// torch bf16 8192³ at 700 W: normal(0,1) 671 TFLOP/s at 1388 MHz and 697 W, zeros 809 TFLOP/s at 1635 MHz
// and 450 W.
#include <gtest/gtest.h>

#include <regex>
#include <string>

#include "report/sections.hpp"
#include "roofline/analysis.hpp"
#include "roofline/energy_analysis.hpp"
#include "roofline/headline.hpp"
#include "roofline/json.hpp"
#include "roofline/record_table.hpp"
#include "roofline/report.hpp"
#include "roofline/vocabulary.hpp"

namespace roofline {
namespace {

results h200() { return load_results(std::string(ROOFLINE_TEST_DATA) + "/h200-2026-12-03/results.json"); }

compute_result& roof(results& r) {
  const compute_result* c = best_compute_on(r.measured, "fp16", "gemm");
  return r.measured.compute[static_cast<std::size_t>(c - r.measured.compute.data())];
}

const record_row* row(const std::vector<record_row>& rows, const std::string& key) {
  for (const auto& x : rows)
    if (x.key == key) return &x;
  return nullptr;
}

/// The largest percentage printed anywhere in `s` ("87.6%" → 87.6); 0 when none.
double largest_percent(const std::string& s) {
  static const std::regex re(R"(([0-9]+(\.[0-9]+)?)%)");
  double most = 0;
  for (std::sregex_iterator it(s.begin(), s.end(), re), end; it != end; ++it) most = std::max(most, std::stod((*it)[1].str()));
  return most;
}

sustained_run run_on(const char* inputs, double rate, double mhz, double watts) {
  sustained_run s;
  s.inputs = inputs;
  s.flops_per_s = rate;
  s.duration_s = 1.5;
  telemetry_summary t;
  t.samples = 37;
  t.sm_clock_mhz = stats_summary{37, mhz, mhz, mhz, mhz, 0, 0};
  t.power_w = stats_summary{37, watts, watts, watts, watts, 0, 0};
  if (watts > 650) t.throttle_reasons = {"sw_power_cap"}, t.throttled_fraction = 1.0;
  s.telemetry = t;
  return s;
}

}  // namespace

TEST(ClockOfTheRoof, TheH100sBestRateOverAMedianClockIsUncertainNeverAbove100Percent) {
  results r = h200();
  roof(r).flops_per_s = 746e12;
  roof(r).telemetry->sm_clock_mhz->median = 1335;
  const std::string s1 = report::headline_sentences(r).at(0);
  EXPECT_EQ(s1.find("of which the GEMM reached"), std::string::npos) << s1;
  EXPECT_NE(s1.find("the clock of the fastest repeat is uncertain"), std::string::npos) << s1;
  EXPECT_NE(s1.find("so no peak at its clock is given"), std::string::npos) << s1;
  EXPECT_LE(largest_percent(s1), 100.0) << s1;
}

TEST(ClockOfTheRoof, TheFastestRepeatAtItsOwnClockInTheSentenceAndTheTable) {
  // 746 TFLOP/s in a repeat whose samples read 1575 MHz: the peak there is 989.43 × 1575 ÷ 1830 = 852 TFLOP/s,
  // of which 87.6 %
  results r = h200();
  compute_result& c = roof(r);
  c.flops_per_s = 746e12;
  c.telemetry->sm_clock_mhz->median = 1335;
  repeat_clocks rc;
  rc.repeats = 68, rc.resolved = 9, rc.period_s = 0.02, rc.fastest_mhz = 1575, rc.fastest_low_mhz = 1575, rc.fastest_high_mhz = 1590;
  rc.resolved_flops_per_s = 746e12, rc.resolved_mhz = 1575;
  c.repeat_clock = rc;
  c.inputs = inputs_normal;
  const std::string s1 = report::headline_sentences(r).at(0);
  EXPECT_NE(s1.find("its fastest repeat ran at 1575 MHz, where the peak is 852 TFLOP/s, of which it reached 87.6%"), std::string::npos)
      << s1;
  EXPECT_LE(largest_percent(s1), 100.0) << s1;
  const auto rows = record_table(r);
  const record_row* at = row(rows, "gemm_at_clock");
  ASSERT_NE(at, nullptr);
  EXPECT_EQ(at->label, "fp16 GEMM, n = 8192, at the clock of its fastest repeat (1575 MHz)");
  ASSERT_TRUE(at->ratio());
  EXPECT_NEAR(*at->ratio(), 0.8761, 5e-4);
  EXPECT_NE(at->measured_note.find("9 of 68 repeats resolved"), std::string::npos) << at->measured_note;
  // the roof row names its data
  const record_row* g = row(rows, "gemm_fp16_8192");
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(g->label, "fp16 tensor GEMM, n = 8192 (the roof, normal(0,1) inputs)");
}

TEST(ClockOfTheRoof, AnUncertainClockInTheTableHasNoRatio) {
  results r = h200();
  compute_result& c = roof(r);
  repeat_clocks rc;
  rc.repeats = 70, rc.period_s = 0.02, rc.fastest_why = "the samples around the repeat read 1335–1485 MHz, 10.8% apart";
  c.repeat_clock = rc;
  const auto rows = record_table(r);
  const record_row* at = row(rows, "gemm_at_clock");
  ASSERT_NE(at, nullptr);
  EXPECT_FALSE(at->ratio());
  EXPECT_FALSE(at->nominal);
  EXPECT_DOUBLE_EQ(*at->measured, c.flops_per_s);
  EXPECT_NE(at->measured_note.find("1335–1485 MHz"), std::string::npos) << at->measured_note;
  EXPECT_NE(at->measured_note.find("resolve none of its 70 repeats"), std::string::npos) << at->measured_note;
  // an older file (no per-repeat clocks) has no such row, and its roof row reads as before
  const auto old_rows = record_table(h200());
  EXPECT_EQ(row(old_rows, "gemm_at_clock"), nullptr);
  EXPECT_EQ(row(old_rows, "gemm_fp16_8192")->label, "fp16 tensor GEMM, n = 8192 (the roof)");
}

TEST(InputData, RandomAndZeroInputsWithClockAndPowerInTheTableAndTheEnergyNotes) {
  results r = h200();
  compute_result& c = roof(r);
  c.inputs = inputs_normal;
  c.sustained_by_input = {run_on(inputs_normal, 671e12, 1388, 697), run_on(inputs_zeros, 809e12, 1635, 450)};
  const auto rows = record_table(r);
  const record_row* random = row(rows, "gemm_sustained_random");
  const record_row* zeros = row(rows, "gemm_sustained_zeros");
  ASSERT_NE(random, nullptr);
  ASSERT_NE(zeros, nullptr);
  EXPECT_EQ(random->label, "fp16 GEMM, n = 8192 on normal(0,1) inputs, sustained 1.50 s (1388 MHz, 697 W)");
  EXPECT_EQ(zeros->label, "fp16 GEMM, n = 8192 on all-zero inputs, sustained 1.50 s (1635 MHz, 450 W)");
  EXPECT_NEAR(*random->ratio(), 671e12 / 989429760000000.0, 1e-12);  // 67.8 %
  EXPECT_NEAR(*zeros->ratio(), 809e12 / 989429760000000.0, 1e-12);   // 81.8 %
  EXPECT_NE(random->measured_note.find("throttled 100.0% of its samples: sw_power_cap"), std::string::npos) << random->measured_note;
  // the roof stays the random-data one
  EXPECT_DOUBLE_EQ(best_compute_on(r.measured, "fp16", "gemm")->flops_per_s, c.flops_per_s);
  const energy_roofline e = analyse_energy(r);
  const std::string story =
      "gemm fp16 n = 8192, sustained: normal(0,1) inputs draw 697 W and hold 1388 MHz (671 TFLOP/s); all-zero inputs draw "
      "450 W and hold 1635 MHz (809 TFLOP/s, 1.21× the random-data rate); the roof is the random-data one";
  EXPECT_NE(std::find(e.power_cap.begin(), e.power_cap.end(), story), e.power_cap.end())
      << (e.power_cap.empty() ? std::string("no power-cap notes") : e.power_cap.back());
}

TEST(InputData, TheNewFieldsReadBackFromResultsJson) {
  results r = h200();
  compute_result& c = roof(r);
  c.inputs = inputs_normal;
  repeat_clocks rc;
  rc.repeats = 68, rc.resolved = 9, rc.period_s = 0.02, rc.fastest_why = "why";
  rc.resolved_flops_per_s = 700e12, rc.resolved_mhz = 1470;
  c.repeat_clock = rc;
  c.sustained_by_input = {run_on(inputs_normal, 671e12, 1388, 697), run_on(inputs_zeros, 809e12, 1635, 450)};
  const results back = parse_results(json(r).dump(), "round-trip");
  const compute_result& b = *best_compute_on(back.measured, "fp16", "gemm");
  EXPECT_EQ(b.inputs, std::optional<std::string>(inputs_normal));
  ASSERT_TRUE(b.repeat_clock);
  EXPECT_EQ(b.repeat_clock->resolved, 9);
  EXPECT_FALSE(b.repeat_clock->fastest_mhz);
  EXPECT_DOUBLE_EQ(*b.repeat_clock->resolved_mhz, 1470);
  ASSERT_EQ(b.sustained_by_input.size(), 2u);
  EXPECT_EQ(b.sustained_by_input[1].inputs, "zeros");
  EXPECT_DOUBLE_EQ(b.sustained_by_input[1].telemetry->power_w->median, 450);
  // an older file writes none of them
  const json old = json(h200());
  for (const auto& x : old["measured"]["compute"]) {
    EXPECT_FALSE(x.contains("inputs"));
    EXPECT_FALSE(x.contains("repeat_clock"));
    EXPECT_FALSE(x.contains("sustained_by_input"));
  }
}

}  // namespace roofline
