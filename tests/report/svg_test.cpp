// roofline.svg: one path per roof, one element per op point, a <title> on every point, plain SVG.
#include <gtest/gtest.h>

#include "roofline/report.hpp"
#include "test_util.hpp"

namespace roofline {
namespace {

using test::count;

TEST(RooflineSvg, GpuFixtureDrawsEveryRoofAndOp) {
  const results r = load_results(test::data("results-gpu.json"));
  const std::string svg = render_svg(r);
  // One panel: the model's precision (fp16) alone: the flat part of its nominal (dashed) and measured
  // (solid) tensor roof; the memory roofs: HBM nominal (dashed), then the measured L2 and HBM roofs.
  EXPECT_EQ(count(svg, "class=\"roof compute nominal "), 1u);
  EXPECT_EQ(count(svg, "class=\"roof compute measured "), 1u);
  EXPECT_EQ(count(svg, "class=\"roof memory nominal "), 1u);
  EXPECT_EQ(count(svg, "class=\"roof memory measured roof-level-l2\""), 1u);
  EXPECT_EQ(count(svg, "class=\"roof memory measured roof-level-dram\""), 1u);
  EXPECT_EQ(count(svg, "<path class=\"roof "), 5u);
  EXPECT_EQ(count(svg, "stroke-dasharray=\"9,6\""), 2u);  // only nominal roofs are dashed
  // 16 ops; the embedding has 0 FLOP (not on log axes): 15 predicted points; attention_naive failed: 14 measured.
  EXPECT_EQ(count(svg, "class=\"op-pred "), 15u);
  EXPECT_EQ(count(svg, "class=\"op-meas "), 14u);
  EXPECT_EQ(count(svg, "fill=\"#ffffff\" stroke=\"#ff7f0e\""), count(svg, "class=\"op-pred scenario-0\""));  // predicted = hollow
  EXPECT_EQ(count(svg, "class=\"op-meas scenario-0\" fill=\"#ff7f0e\""), 10u);  // measured = filled: decode b1, 11 ops less the 0-FLOP embedding
  // ridge points: nominal + measured of the drawn precision
  EXPECT_EQ(count(svg, "class=\"ridge ridge-nominal\""), 1u);
  EXPECT_EQ(count(svg, "class=\"ridge ridge-measured\""), 1u);
  // the decode batch sweep: one trace of 9 points
  EXPECT_EQ(count(svg, "<path class=\"sweep\""), 1u);
  EXPECT_EQ(count(svg, "class=\"sweep-point\""), 9u);
  // every point element has a hover title
  EXPECT_EQ(count(svg, "</title></circle>"), count(svg, "<circle class="));
  EXPECT_EQ(count(svg, "</title></rect>"), count(svg, "<rect class=\"sweep-point\""));
  EXPECT_EQ(count(svg, "</title></path>"), count(svg, "<path class=") - count(svg, "<path class=\"bw-line"));
  EXPECT_NE(svg.find("<title>#1 q_proj (decode b1): 8.39 MFLOP, 8.01 MiB, 0.999 FLOP/B; measured 4.10 µs"), std::string::npos);
  // plain SVG 1.1: no script, no external reference, no foreignObject
  EXPECT_EQ(svg.find("<script"), std::string::npos);
  EXPECT_EQ(svg.find("http://www.w3.org/2000/svg"), svg.find("http"));
  EXPECT_EQ(svg.find("foreignObject"), std::string::npos);
  EXPECT_NE(svg.find("width=\"1200.0\""), std::string::npos);
  // decade tick labels on both axes, the axes fitted to the data: the ops' lowest intensity is 0.5
  // FLOP/B, so no 0.1 (the x axis keeps four decades for the memory roofs' diagonals: 0.5 … 5000)
  for (const char* t : {">1<", ">10<", ">100<", ">1000<", ">10 GFLOP/s<", ">1 TFLOP/s<", ">100 TFLOP/s<", ">1 PFLOP/s<"})
    EXPECT_NE(svg.find(t), std::string::npos) << t;
  EXPECT_EQ(svg.find(">0.1<"), std::string::npos);
  EXPECT_EQ(svg, render_svg(r));  // deterministic
}

TEST(RooflineSvg, CpuFixtureHasLevelRoofsAndFlatNominalRoofs) {
  const results r = load_results(test::data("results-cpu.json"));
  const std::string svg = render_svg(r);
  EXPECT_EQ(count(svg, "class=\"roof compute nominal "), 1u);   // one panel: fp32 (the ops' precision)
  EXPECT_EQ(count(svg, "class=\"roof compute measured "), 1u);
  EXPECT_EQ(count(svg, "class=\"roof memory measured "), 4u);   // l1, l2, llc, dram
  EXPECT_EQ(count(svg, "class=\"roof memory nominal "), 0u);    // nominal DRAM bandwidth unknown
  EXPECT_EQ(count(svg, "class=\"op-pred "), 10u);       // 11 ops, the embedding has 0 FLOP
  EXPECT_EQ(count(svg, "class=\"op-meas "), 5u);        // q, k, v, o, rmsnorm
  EXPECT_NE(svg.find("nominal memory bandwidth unknown: no"), std::string::npos);  // a note, wrapped to the legend
}

}  // namespace
}  // namespace roofline
