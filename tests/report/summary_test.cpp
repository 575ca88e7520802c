// The terminal summary (`run`, `measure`, fleet runs): the record table and the three ops furthest
// below their roofs, in under 25 lines, with the report's own numbers.
#include <gtest/gtest.h>

#include "roofline/report.hpp"
#include "test_util.hpp"

namespace roofline {
namespace {

std::size_t lines(const std::string& s) { return test::count(s, "\n"); }

TEST(TerminalSummary, GpuFixtureFitsAndRanksTheOpsFurthestBelowTheirRoofs) {
  const results r = load_results(test::data("results-gpu.json"));
  const std::string s = render_summary(r, "out/report.html");
  EXPECT_LT(lines(s), 25u) << s;
  EXPECT_NE(s.find("full report: out/report.html"), std::string::npos) << s;
  // record-table rows with nominal, measured and the ratio (HBM read 4.05 of 4.80 TB/s = 84.4%)
  EXPECT_NE(s.find("device memory read bandwidth (4.00 GiB)"), std::string::npos) << s;
  EXPECT_NE(s.find("4.80 TB/s"), std::string::npos) << s;
  EXPECT_NE(s.find("4.05 TB/s"), std::string::npos) << s;
  EXPECT_NE(s.find("84.4%"), std::string::npos) << s;
  EXPECT_NE(s.find("furthest below their roofs"), std::string::npos) << s;
  EXPECT_EQ(test::count(s, "\n  #"), 3u) << s;
  // the largest measured ÷ predicted: decode attention 5.5 ÷ 2.5 µs, then gate_proj b32 12.0 ÷ 7.60 µs
  EXPECT_NE(s.find("  #8 attention (decode b1): 5.50 µs vs 2.50 µs predicted, 2.20×"), std::string::npos) << s;
  EXPECT_LT(s.find("#8 attention"), s.find("#13 gate_proj (decode b32): 12.0 µs vs 7.60 µs predicted, 1.58×")) << s;
  EXPECT_EQ(s.find("[1]"), std::string::npos) << "note markers belong to the report, not the terminal";
}

TEST(TerminalSummary, CpuFixtureSaysNothingAboutGpuThings) {
  const results r = load_results(test::data("results-cpu.json"));
  const std::string s = render_summary(r);
  EXPECT_LT(lines(s), 25u) << s;
  for (const char* gpu : {"SM clock", "ECC", "tensor", "power"}) EXPECT_EQ(s.find(gpu), std::string::npos) << gpu << "\n" << s;
  EXPECT_NE(s.find("sustained core clock"), std::string::npos) << s;
}

TEST(TerminalSummary, OpsBesideTheStepAreNotRanked) {
  results r = load_results(test::data("results-gpu.json"));
  const std::string before = render_summary(r);
  for (auto& op : r.ops) op.alternative_to = "something";
  const std::string after = render_summary(r);
  EXPECT_NE(before.find("furthest below"), std::string::npos);
  EXPECT_EQ(after.find("furthest below"), std::string::npos) << after;
}

}  // namespace
}  // namespace roofline
