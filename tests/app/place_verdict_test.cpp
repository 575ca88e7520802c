// `roofline place` over many kernels: verdict classes in the text, place.csv / place.json / place.svg
// (every kernel numbered in the key, baseline arrows), and bad input (exit 2, nothing written).
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "report/document.hpp"  // html_text: the HTML form of a text (number&nbsp;unit)
#include "common/run_binary.hpp"
#include "roofline/io.hpp"
#include "roofline/json.hpp"

namespace fs = std::filesystem;
using namespace roofline;
using roofline::test::run_roofline;

namespace {

std::string data(const std::string& f) { return std::string(ROOFLINE_TEST_DATA) + "/" + f; }
const std::string h200 = data("h200-2026-12-03/results.json");

std::size_t count(const std::string& s, const std::string& what) {
  std::size_t n = 0;
  for (auto p = s.find(what); p != std::string::npos; p = s.find(what, p + 1)) ++n;
  return n;
}

fs::path temp(const std::string& name) { return fs::temp_directory_path() / ("roofline_pv_" + std::to_string(::getpid()) + "_" + name); }

}  // namespace

TEST(PlaceVerdictCli, ClassesFilesAndBaselineArrows) {
  // new: the GEMM at 210 µs (654 TFLOP/s = 93.1% of 703: at_roof), the norm at 19.5 µs (67.1 MB at 4.687
  // TB/s = 14.3 µs = 73.4%: bandwidth), a 3 µs kernel (launch_bound). Baseline: the GEMM at 300 µs.
  const fs::path now = temp("new.csv"), old = temp("old.csv"), dir = temp("out");
  write_file_atomic(now.string(), "name,flops,bytes,time_s\ngemm,137438953472,201326592,0.000210\nnorm,33554432,67108864,0.0000195\ntiny,1000,1000000,0.000003\n");
  write_file_atomic(old.string(), "name,flops,bytes,time_s\ngemm,137438953472,201326592,0.000300\n");
  fs::remove_all(dir);
  const auto r = run_roofline("place --csv " + now.string() + " --baseline " + old.string() + " --results " + h200 + " --out " + dir.string());
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("93.1%"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("at_roof"), std::string::npos);
  EXPECT_NE(r.out.find("bandwidth"), std::string::npos);
  EXPECT_NE(r.out.find("launch_bound"), std::string::npos);
  EXPECT_EQ(count(r.out, "move fewer bytes"), 1u) << "advice stated once";
  EXPECT_NE(r.out.find("90.0 µs saved"), std::string::npos) << r.out;
  const json j = json::parse(read_file((dir / "place.json").string()));
  ASSERT_EQ(j["kernels"].size(), 3u);
  EXPECT_EQ(j["kernels"][0]["class"], "at_roof");
  EXPECT_EQ(j["kernels"][1]["class"], "bandwidth");
  EXPECT_EQ(j["kernels"][2]["class"], "launch_bound");
  EXPECT_NEAR(j["baseline"]["saved_s"].get<double>(), 90e-6, 1e-12);
  const std::string svg = read_file((dir / "place.svg").string());
  EXPECT_EQ(count(svg, "class=\"kernel\""), 3u);
  EXPECT_EQ(count(svg, "class=\"baseline\""), 1u);
  EXPECT_EQ(count(svg, "class=\"op-link\""), 1u);  // the arrow old → new
  const std::string csv = read_file((dir / "place.csv").string());
  EXPECT_EQ(csv.rfind("number,name,seconds,flops,precision,engine,flops_source,bytes,bytes_source,intensity,class,fraction_of_roof", 0), 0u) << csv;
  // place.html: one page with the figure, the baseline and every kernel
  const std::string html = read_file((dir / "place.html").string());
  EXPECT_NE(html.find("<svg"), std::string::npos);
  EXPECT_NE(html.find("Before and after"), std::string::npos);
  EXPECT_NE(html.find(roofline::report::html_text("all kernels 300 µs → 232 µs (1 → 3 kernels); 1 matched by name: 300 µs → 210 µs")), std::string::npos) << "the whole runs, matched or not";
  for (const char* name : {">gemm<", ">norm<", ">tiny<"}) EXPECT_NE(html.find(name), std::string::npos) << name;
  // place.csv reads back as a baseline: the same kernels, nothing saved
  const auto again = run_roofline("place --csv " + now.string() + " --baseline " + (dir / "place.csv").string() + " --results " + h200 + " --json");
  ASSERT_EQ(again.code, 0) << again.err;
  EXPECT_EQ(json::parse(again.out)["baseline"]["matched"].size(), 3u);
  fs::remove_all(dir);
  fs::remove(now);
  fs::remove(old);
}

TEST(PlaceVerdictCli, BadInputIsOneLineAndWritesNothing) {
  const fs::path dir = temp("bad");
  fs::remove_all(dir);
  // a missing profile, whether the roofs come from a results file or the spec table
  for (const std::string roofs : {"--results " + h200, std::string("--device h100-sxm")}) {
    const auto r = run_roofline("place --csv /nonexistent/k.csv " + roofs + " --out " + dir.string());
    EXPECT_EQ(r.code, 2) << roofs;
    EXPECT_NE(r.err.find("/nonexistent/k.csv"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(dir / "place.svg"));
  }
  // --out is checked before the profile is read
  const auto o = run_roofline("place --csv /nonexistent/k.csv --results " + h200 + " --out /proc/roofline-no");
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.err.find("--out"), std::string::npos) << o.err;
  fs::remove_all(dir);
}

TEST(PlaceVerdictCli, ATraceGetsItsTimeSplitInPlaceHtmlAndAPointOffTheChartIsDrawnOnItsEdge) {
  const fs::path dir = temp("trace-out");
  fs::remove_all(dir);
  const auto r = run_roofline("place --trace " + std::string(ROOFLINE_TEST_DATA) + "/h200-2026-12-03/torch-trace-tinyllama-eager.json.gz --results " + h200 +
                     " --out " + dir.string());
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string html = read_file((dir / "place.html").string());
  EXPECT_NE(html.find("Where the time goes"), std::string::npos);
  EXPECT_NE(html.find("host gap (GPU idle)"), std::string::npos);
  EXPECT_NE(html.find("aten::scaled_dot_product_attention"), std::string::npos);
  // the fusion candidates grouped by their op pattern: HF's RMSNorm unfused in every layer
  EXPECT_NE(html.find("fusion pattern"), std::string::npos);
  EXPECT_NE(html.find("unfused RMSNorm"), std::string::npos);
  fs::remove_all(dir);
  // 1 FLOP in 1 ms (1 kFLOP/s) is 12 decades below the 703 TFLOP/s roof: outside the 8 decades drawn
  const fs::path in = temp("off.csv");
  write_file_atomic(in.string(), "name,flops,bytes,time_s\ngemm,137438953472,201326592,0.000210\nslow,1,1000000,0.001\n");
  const auto o = run_roofline("place --csv " + in.string() + " --results " + h200 + " --out " + dir.string());
  ASSERT_EQ(o.code, 0) << o.err;
  const std::string svg = read_file((dir / "place.svg").string());
  EXPECT_EQ(count(svg, "class=\"kernel\""), 1u);
  // the slow kernel is still drawn: hollow, on the frame's bottom edge, an arrow pointing down
  EXPECT_EQ(count(svg, "class=\"kernel outside-range\""), 1u);
  EXPECT_EQ(count(svg, "class=\"outside-arrow\""), 1u);
  EXPECT_NE(svg.find("1 point(s) outside the plotted range"), std::string::npos);
  fs::remove_all(dir);
  fs::remove(in);
}
