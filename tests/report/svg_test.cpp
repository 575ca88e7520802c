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
  // fp32, bf16, fp16 have a nominal peak and a measured result: nominal (dashed) + measured (solid)
  // each; fp8 has no measured result (not drawn); plus the measured L2 roof.
  EXPECT_EQ(count(svg, "class=\"roof nominal\""), 3u);
  EXPECT_EQ(count(svg, "class=\"roof measured\""), 3u);
  EXPECT_EQ(count(svg, "class=\"roof cache\""), 1u);
  EXPECT_EQ(count(svg, "<path class=\"roof "), 7u);
  EXPECT_EQ(count(svg, "stroke-dasharray=\"9,6\""), 3u);  // only nominal roofs are dashed
  // 16 ops; the embedding has 0 FLOP (not on log axes): 15 predicted points; attention_naive failed: 14 measured.
  EXPECT_EQ(count(svg, "class=\"op-pred\""), 15u);
  EXPECT_EQ(count(svg, "class=\"op-meas\""), 14u);
  EXPECT_EQ(count(svg, "class=\"op-meas\" fill=\"#ffffff\""), 0u);  // measured = filled
  EXPECT_EQ(count(svg, "class=\"op-pred\" fill=\"#ffffff\""), 15u);  // predicted = hollow
  // ridge points: nominal + measured of each drawn precision
  EXPECT_EQ(count(svg, "class=\"ridge\""), 6u);
  // the decode batch sweep: one trace of 9 points
  EXPECT_EQ(count(svg, "<path class=\"sweep\""), 1u);
  EXPECT_EQ(count(svg, "class=\"sweep-point\""), 9u);
  // every point element has a hover title
  EXPECT_EQ(count(svg, "</title></circle>"), count(svg, "<circle class="));
  EXPECT_EQ(count(svg, "</title></rect>"), count(svg, "<rect class=\"sweep-point\""));
  EXPECT_EQ(count(svg, "</title></path>"), count(svg, "<path class="));
  EXPECT_NE(svg.find("<title>#1 q_proj (decode b1): 8.39 MFLOP, 8.01 MiB, 0.999 FLOP/B; measured 4.10 µs"), std::string::npos);
  // plain SVG 1.1: no script, no external reference, no foreignObject
  EXPECT_EQ(svg.find("<script"), std::string::npos);
  EXPECT_EQ(svg.find("http://www.w3.org/2000/svg"), svg.find("http"));
  EXPECT_EQ(svg.find("foreignObject"), std::string::npos);
  EXPECT_NE(svg.find("width=\"1200.0\""), std::string::npos);
  // decade tick labels on both axes
  for (const char* t : {">0.1<", ">1<", ">10<", ">100<", ">1000<", ">1 TFLOP/s<", ">100 TFLOP/s<", ">1 PFLOP/s<"})
    EXPECT_NE(svg.find(t), std::string::npos) << t;
  EXPECT_EQ(svg, render_svg(r));  // deterministic
}

TEST(RooflineSvg, CpuFixtureHasCacheRoofsAndFlatNominalRoofs) {
  const results r = load_results(test::data("results-cpu.json"));
  const std::string svg = render_svg(r);
  EXPECT_EQ(count(svg, "class=\"roof nominal\""), 2u);   // fp32, fp64
  EXPECT_EQ(count(svg, "class=\"roof measured\""), 2u);
  EXPECT_EQ(count(svg, "class=\"roof cache\""), 3u);     // l1, l2, llc
  EXPECT_EQ(count(svg, "class=\"op-pred\""), 10u);       // 11 ops, the embedding has 0 FLOP
  EXPECT_EQ(count(svg, "class=\"op-meas\""), 5u);        // q, k, v, o, rmsnorm
  EXPECT_NE(svg.find("nominal bandwidth unknown: nominal roofs flat"), std::string::npos);
}

TEST(RooflineSvg, LabelsDoNotOverlap) {
  // Every placed text box (labels and numbers inside the plot) is disjoint from every other one.
  for (const char* f : {"results-gpu.json", "results-cpu.json"}) {
    const std::string svg = render_svg(load_results(test::data(f)));
    struct box { double x0, y0, x1, y1; };
    std::vector<box> boxes;
    for (const char* cls : {"class=\"point-label\"", "class=\"point-number\"", "class=\"roof-label\""})
      for (auto p = svg.find(cls); p != std::string::npos; p = svg.find(cls, p + 1)) {
        double x = 0, y = 0, size = 0;
        std::sscanf(svg.c_str() + p, "class=\"%*[^\"]\" x=\"%lf\" y=\"%lf\" font-size=\"%lf\"", &x, &y, &size);
        const auto gt = svg.find('>', p), lt = svg.find('<', gt);
        std::size_t glyphs = 0;
        for (std::size_t i = gt + 1; i < lt; ++i)
          if ((static_cast<unsigned char>(svg[i]) & 0xC0) != 0x80) ++glyphs;
        boxes.push_back({x, y - size * 0.85, x + 0.58 * size * static_cast<double>(glyphs), y + size * 0.2});
      }
    EXPECT_GT(boxes.size(), 4u) << f;
    for (std::size_t i = 0; i < boxes.size(); ++i)
      for (std::size_t j = i + 1; j < boxes.size(); ++j) {
        const box& a = boxes[i];
        const box& b = boxes[j];
        EXPECT_FALSE(a.x0 < b.x1 - 0.5 && b.x0 < a.x1 - 0.5 && a.y0 < b.y1 - 0.5 && b.y0 < a.y1 - 0.5)
            << f << ": label " << i << " overlaps label " << j;
      }
  }
}

}  // namespace
}  // namespace roofline
