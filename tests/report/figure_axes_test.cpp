// Every figure's axes fit its data (report/plot.hpp, draw_svg): a decade of margin at most unless a
// roof needs more, batch.svg from batch 1, the knees drawn across the charts; and compare's figure and
// opening sentences for the H100 run of 2026-12-05 against the H200 run of 2026-12-03 (both in
// tests/data, each folder's README.md says how it was made).
#include <gtest/gtest.h>

#include <cmath>
#include <regex>

#include "report/plot.hpp"
#include "roofline/device_comparison.hpp"
#include "roofline/report.hpp"
#include "test_util.hpp"

namespace roofline {
namespace {

/// The text of every element of class `cls` ("x-tick", "y-tick", "vline-label"), in order.
std::vector<std::string> texts_of(const std::string& svg, const std::string& cls) {
  std::vector<std::string> v;
  const std::regex re("<text class=\"" + cls + "\"[^>]*>([^<]*)</text>");
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), re); it != std::sregex_iterator(); ++it) v.push_back((*it)[1]);
  return v;
}

/// The nested <svg> panels of a stacked figure.
std::vector<std::string> panels_of(const std::string& svg) {
  std::vector<std::string> v;
  for (auto at = svg.find("<svg x=\"0\""); at != std::string::npos; at = svg.find("<svg x=\"0\"", at + 1))
    v.push_back(svg.substr(at, svg.find("</svg>", at) - at));
  return v;
}

TEST(FigureAxes, DataAloneGetsTheNiceBoundsAroundIt) {
  report::plot p;
  p.y_unit = "s";
  for (double y : {1.41e-3, 2.0e-3, 6.1e-3}) p.points.push_back({10, y, true, "#000000", "circle", 5, "pt", "", "", 0, -1, ""});
  const std::string svg = report::draw_svg(p);
  // 1.41–6.1 ms: from 1 ms to 10 ms (not 100 ns – 100 ms), ticks 1, 2, 5 and 10 ms
  EXPECT_EQ(texts_of(svg, "y-tick"), (std::vector<std::string>{"1 ms", "2 ms", "5 ms", "10 ms"}));
}

TEST(FigureAxes, BatchSvgOfTheH100RunStartsAtBatch1AndFitsEachChart) {
  const results r = load_results(test::data("h100-2026-12-05/results.json"));
  const auto panels = panels_of(render_step_sweep_svg(r));
  ASSERT_EQ(panels.size(), 3u);  // step time, tokens/s, J/token
  const std::vector<std::string> batches{"1", "2", "4", "8", "16", "32", "64", "128", "256"};
  for (const auto& p : panels) EXPECT_EQ(texts_of(p, "x-tick"), batches);
  // step time 1.41–6.12 ms measured and predicted: 1 ms … 10 ms (was 100 ns … 100 ms)
  EXPECT_EQ(texts_of(panels[0], "y-tick"), (std::vector<std::string>{"1 ms", "2 ms", "5 ms", "10 ms"}));
  // tokens/s 670 … 43.7 k: 500 … 50 k (was 1 … 100 k)
  EXPECT_EQ(texts_of(panels[1], "y-tick").front(), "500 tokens/s");
  EXPECT_EQ(texts_of(panels[1], "y-tick").back(), "50 ktokens/s");
  // J/token 12.6 mJ … 0.52 J: 10 mJ … 1 J (was 10 µJ … 1 J)
  EXPECT_EQ(texts_of(panels[2], "y-tick").front(), "10 mJ");
  EXPECT_EQ(texts_of(panels[2], "y-tick").back(), "1 J");
  // the knees (analysis.step_sweep: measured 71.6, predicted 67.5) across every chart, labelled in it
  for (const auto& p : panels) {
    EXPECT_EQ(test::count(p, "class=\"vline batch-knee-meas\""), 1u);
    EXPECT_EQ(test::count(p, "class=\"vline batch-knee-pred\""), 1u);
  }
  EXPECT_EQ(texts_of(panels[0], "vline-label"), (std::vector<std::string>{"measured knee: batch 71.6", "predicted knee: batch 67.5"}));
}

TEST(FigureAxes, RooflineOfTheH100RunKeepsUnderADecadeOfMarginOnY) {
  const std::string svg = render_svg(load_results(test::data("h100-2026-12-05/results.json")));
  // the ops span 1.3 GFLOP/s … the 989 TFLOP/s nominal peak: 1 GFLOP/s … 1 PFLOP/s labelled (the frame
  // at 5 PFLOP/s leaves the roof labels room), not 100 MFLOP/s … 10 PFLOP/s
  const auto y = texts_of(svg, "y-tick");
  ASSERT_FALSE(y.empty());
  EXPECT_EQ(y.front(), "1 GFLOP/s");
  EXPECT_EQ(y.back(), "1 PFLOP/s");
}

TEST(FigureAxes, RooflineOfACpuRunStartsUnderADecadeBelowItsLowestOp) {
  // tests/data/results-cpu.json: the ops span 2.14 GFLOP/s (k_proj, decode b1, measured) … the
  // 171 GFLOP/s fp32 roof, the memory roofs enter above them: 1 GFLOP/s … 100 GFLOP/s labelled. The axis
  // used to reach four decades under the top whatever the data (10 MFLOP/s, two empty decades).
  const std::string svg = render_svg(load_results(test::data("results-cpu.json")));
  EXPECT_EQ(texts_of(svg, "y-tick"), (std::vector<std::string>{"1 GFLOP/s", "10 GFLOP/s", "100 GFLOP/s"}));
}

TEST(Compare, H100AgainstH200SaysWhatDiffersAndWhatItDoesToDecode) {
  const compare_side a = load_compare_side(test::data("h100-2026-12-05/results.json"));
  const compare_side b = load_compare_side(test::data("h200-2026-12-03/results.json"));
  const device_comparison c = compare_devices(a.r, b.r);
  EXPECT_EQ(c.precision, "fp16");
  ASSERT_TRUE(c.bandwidth_ratio() && c.compute_ratio());
  EXPECT_NEAR(*c.bandwidth_ratio(), 4.69e12 / 3.30e12, 0.01);  // best measured: H200 read 4.69, H100 write 3.30 TB/s
  EXPECT_NEAR(*c.compute_ratio(), 703.0 / 756.0, 0.002);       // the fp16 roof GEMMs
  ASSERT_GE(c.steps.size(), 2u);
  const compared_step& d1 = c.steps.front();  // decode at batch 1, whole steps measured: 1.49 ms and 1.23 ms
  EXPECT_EQ(d1.phase, "decode");
  EXPECT_NEAR(d1.speedup(), 1.49 / 1.23, 0.01);
  EXPECT_NEAR(d1.latency_share, 0.36, 0.005);  // the H100's decode b1: 64.0% bandwidth-, 36.0% latency-bound
  ASSERT_TRUE(d1.expected_speedup);
  EXPECT_NEAR(*d1.expected_speedup, 1 / (d1.latency_share + d1.bandwidth_share / *c.bandwidth_ratio() + d1.compute_share / *c.compute_ratio()),
              1e-12);
  EXPECT_NEAR(*d1.expected_speedup, 1.23, 0.01);

  const std::string text = render_compare_text(a, b);
  for (const char* s : {"device-memory bandwidth 1.44× (3.35 TB/s →", "fp16 compute the same (989 TFLOP/s)",
                        "Decode at batch 1 (context 2048) takes 1.49 ms on A and 1.23 ms on B: 1.21× faster on B",
                        "1.42× of the bandwidth because 36.0% of the step is latency-bound"})
    EXPECT_NE(text.find(s), std::string::npos) << s << "\n" << text;
  // the terminal keeps the fp16 rows, the bandwidths and the steps; the other precisions' 24 rows are in compare.md
  EXPECT_NE(text.find("(24 rows of the other precisions: compare.md)"), std::string::npos) << text;
  EXPECT_EQ(text.find("tf32 nominal peak"), std::string::npos);
}

TEST(Compare, FigureIsTheOpsPrecisionWithBothDevicesAndTheRatioOfEveryRoof) {
  const compare_side a = load_compare_side(test::data("h100-2026-12-05/results.json"));
  const compare_side b = load_compare_side(test::data("h200-2026-12-03/results.json"));
  const auto panels = panels_of(render_compare_svg(a, b));
  ASSERT_EQ(panels.size(), 2u);
  // fp16 alone: each device's tensor roof (nominal, measured) and device-memory roof (nominal, measured)
  EXPECT_EQ(test::count(panels[0], "<path class=\"roof "), 8u);
  EXPECT_EQ(test::count(panels[0], "roof-level-l1"), 0u);
  // each op of the H100's table on both devices, side by side
  EXPECT_EQ(test::count(panels[0], "class=\"dev0-ops\""), test::count(panels[0], "class=\"dev1-ops\""));
  EXPECT_GT(test::count(panels[0], "class=\"dev0-ops\""), 50u);
  // B ÷ A: 7 precisions' compute roofs, device memory nominal and measured, L1, L2, and 3 steps
  EXPECT_EQ(test::count(panels[1], "class=\"ratio-bar\""), 14u);
  EXPECT_NE(panels[1].find("1.44×  3.35 TB/s → 4.81 TB/s"), std::string::npos);
  // compare.html: the other six precisions as small panels
  const std::string html = render_compare_html(a, b);
  EXPECT_NE(html.find("The other precisions, one panel each"), std::string::npos);
  EXPECT_EQ(test::count(html, "<figure><svg"), 1u + 6u);
}

}  // namespace
}  // namespace roofline
