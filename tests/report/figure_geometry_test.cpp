// The figures read in a 1400-px screenshot: every text inside the svg (titles, legend entries, notes,
// key lines), read back geometrically from the drawn file; place.svg's title names the device.
#include <gtest/gtest.h>

#include "roofline/report.hpp"
#include "svg_geometry.hpp"
#include "test_util.hpp"

namespace roofline {
namespace {

const std::string bin = ROOFLINE_BINARY;
const std::string h200 = test::data("h200-2026-12-03/results.json");

/// place.svg of `roofline place <input> --results h200` (the H200 run of 2026-12-03).
std::string place_svg(const std::string& input, const std::string& tag) {
  test::temp_dir d("geometry-" + tag);
  const auto r = test::run_command(bin + " place " + input + " --results " + h200 + " --out " + (d / "out"));
  EXPECT_EQ(r.code, 0) << r.err;
  return read_file(d / "out/place.svg");
}

std::vector<std::pair<std::string, std::string>> every_figure() {
  std::vector<std::pair<std::string, std::string>> out;
  for (const char* f : {"results-gpu.json", "results-cpu.json", "h200-2026-12-03/results.json"}) {
    const results r = load_results(test::data(f));
    out.emplace_back(f, render_svg(r));
    for (const auto& p : other_figure_precisions(r)) out.emplace_back(std::string(f) + " " + p, render_svg(r, p));
  }
  out.emplace_back("place --trace",
                   place_svg("--trace " + test::data("h200-2026-12-03/torch-trace-tinyllama-eager.json.gz"), "trace"));
  out.emplace_back(
      "place --ncu",
      place_svg("--ncu " + test::data("h200-2026-12-03/ncu-tinyllama-decode-recommended-metrics.csv"), "ncu"));
  return out;
}

TEST(FigureGeometry, EveryTextLiesInsideTheViewBox) {
  // The reviewer's screenshots cut "fp16: 755 TFLOP/s (measured fp16 GEMM n =" and the place title at
  // the svg's right edge: every text (legend entries wrap, titles shrink) ends inside the viewBox.
  for (const auto& [name, svg] : every_figure()) {
    const auto [w, h] = test::svg_size(svg);
    ASSERT_GT(w, 0) << name;
    const auto boxes = test::svg_text_boxes(svg);
    EXPECT_GT(boxes.size(), 20u) << name;
    for (const auto& b : boxes) {
      EXPECT_GE(b.x0, 0) << name << ": '" << b.text << "' starts left of the svg";
      EXPECT_LE(b.x1, w) << name << ": '" << b.text << "' runs past the right edge (" << b.x1 << " > " << w << ")";
      EXPECT_GE(b.y0, 0) << name << ": '" << b.text << "' above the svg";
      EXPECT_LE(b.y1, h) << name << ": '" << b.text << "' below the svg";
    }
  }
}

TEST(FigureGeometry, PlaceTitleNamesTheDeviceAndPrecisionsNotTheResultsPath) {
  // The ncu export of TinyLlama decode ran fp16 tensor-core GEMMs and fp32 elementwise kernels on the
  // H200 (tests/data/h200-2026-12-03/README.md).
  const std::string svg =
      place_svg("--ncu " + test::data("h200-2026-12-03/ncu-tinyllama-decode-recommended-metrics.csv"), "title");
  const auto boxes = test::svg_text_boxes(svg);
  const auto title = std::find_if(boxes.begin(), boxes.end(), [](const auto& b) { return b.cls == "figure-title"; });
  ASSERT_NE(title, boxes.end());
  EXPECT_EQ(title->text, "Your kernels on the roofline: NVIDIA H200 · fp16, fp32");
  EXPECT_EQ(title->text.find("results.json"), std::string::npos);
}

}  // namespace
}  // namespace roofline
