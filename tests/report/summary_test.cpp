// The terminal summary (`run`, `measure`, fleet runs): the three opening sentences, the record table
// with each row's reason, and the three ops slowest against their prediction, in under 45 lines, with
// the report's own numbers, every word whole.
#include <gtest/gtest.h>

#include <regex>

#include "roofline/analysis.hpp"
#include "roofline/report.hpp"
#include "test_util.hpp"

namespace roofline {
namespace {

std::size_t lines(const std::string& s) { return test::count(s, "\n"); }

TEST(TerminalSummary, GpuFixtureFitsAndRanksTheOpsFurthestBelowTheirRoofs) {
  const results r = load_results(test::data("results-gpu.json"));
  const std::string s = render_summary(r, "out/report.html");
  EXPECT_LT(lines(s), 45u) << s;
  EXPECT_NE(s.find("full report: out/report.html"), std::string::npos) << s;
  // record-table rows with nominal, measured and the ratio (HBM read 4.05 of 4.80 TB/s = 84.4%)
  EXPECT_NE(s.find("device memory read bandwidth (4.00 GiB)"), std::string::npos) << s;
  EXPECT_NE(s.find("4.80 TB/s"), std::string::npos) << s;
  EXPECT_NE(s.find("4.05 TB/s"), std::string::npos) << s;
  EXPECT_NE(s.find("84.4%"), std::string::npos) << s;
  // the heading says what the ranking is: prediction error, not distance from the roof
  EXPECT_NE(s.find("slowest against their prediction (ranked by measured ÷ predicted time, highest first)"), std::string::npos) << s;
  EXPECT_EQ(test::count(s, "\n  #"), 3u) << s;
  // the largest measured ÷ predicted: decode attention 5.5 ÷ 2.5 µs, then gate_proj b32 12.0 ÷ 7.60 µs
  EXPECT_NE(s.find("  #8 attention (decode b1): 5.50 µs vs 2.50 µs predicted, 2.20×"), std::string::npos) << s;
  EXPECT_LT(s.find("#8 attention"), s.find("#13 gate_proj (decode b32): 12.0 µs vs 7.60 µs predicted, 1.58×")) << s;
  EXPECT_EQ(s.find("[1]"), std::string::npos) << "note markers belong to the report, not the terminal";
}

TEST(TerminalSummary, CpuFixtureSaysNothingAboutGpuThings) {
  const results r = load_results(test::data("results-cpu.json"));
  const std::string s = render_summary(r);
  EXPECT_LT(lines(s), 45u) << s;
  for (const char* gpu : {"SM clock", "ECC", "tensor", "power"}) EXPECT_EQ(s.find(gpu), std::string::npos) << gpu << "\n" << s;
  EXPECT_NE(s.find("sustained core clock"), std::string::npos) << s;
}

TEST(TerminalSummary, OpsBesideTheStepAreNotRanked) {
  results r = load_results(test::data("results-gpu.json"));
  const std::string before = render_summary(r);
  for (auto& op : r.ops) op.alternative_to = "something";
  const std::string after = render_summary(r);
  EXPECT_NE(before.find("slowest against their prediction"), std::string::npos);
  EXPECT_EQ(after.find("slowest against their prediction"), std::string::npos) << after;
}

TEST(TerminalSummary, NeverCutsAWordAndKeepsEachRowsReason) {
  // The real H200 run, analysed as `roofline report` does (its stored record table predates the
  // roof-size rule): the power row's reason (sw_power_cap) stays under it, the advice is whole.
  results r = load_results(test::data("h200-2026-12-03/results.json"));
  analyse(r);
  const std::string s = render_summary(r);
  EXPECT_EQ(s.find("…"), std::string::npos) << "nothing is cut:\n" << s;
  EXPECT_NE(s.find("↳ throttled 100.0% of the samples of fp16 GEMM n = 8192: sw_power_cap"), std::string::npos) << s;
  // every advice of the ranked ops appears with all its words (wrapped, not clipped)
  std::string flat;
  for (char c : s) flat += c == '\n' ? ' ' : c;
  std::string squeezed;
  for (char c : flat)
    if (!(c == ' ' && !squeezed.empty() && squeezed.back() == ' ')) squeezed += c;
  for (const auto& op : r.ops)
    if (op.name == "attention" && op.phase == "decode" && op.batch == 1) {
      std::string advice = op.advice;  // as analyse() left it in the file
      EXPECT_NE(squeezed.find(advice.substr(0, 40)), std::string::npos) << advice << "\n" << s;
    }
  // a number and its unit are never split over two lines
  EXPECT_EQ(std::regex_search(s, std::regex(R"([0-9]\n +(ms|µs|TFLOP/s|TB/s|MHz|W)\b)")), false) << s;
}

TEST(TerminalSummary, WrapWordsKeepsWordsAndNumbersWithUnitsWhole) {
  const std::string w = wrap_words("takes 1.95 ms per step where its bytes alone need 452 µs", 20, "", "  ");
  EXPECT_EQ(w, "takes 1.95 ms per\n  step where its\n  bytes alone need\n  452 µs\n");
  EXPECT_EQ(wrap_words("averyveryverylongword x", 5, "", ""), "averyveryverylongword\nx\n");
}

}  // namespace
}  // namespace roofline
