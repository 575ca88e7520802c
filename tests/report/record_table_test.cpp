// The record table pins the fixture's numbers: every ratio is measured ÷ nominal of published or
// fixture values, computed from the typed fields (r.analysis emptied to prove it).
#include <gtest/gtest.h>

#include <cmath>

#include "report/markdown.hpp"
#include "report/sections.hpp"
#include "roofline/report.hpp"
#include "test_util.hpp"

namespace roofline {
namespace {

std::vector<std::string> row(const report::section& s, const std::string& starts) {
  for (const auto& b : s.blocks)
    for (const auto& r : b.t.rows)
      if (!r.empty() && r[0].text.rfind(starts, 0) == 0) {
        std::vector<std::string> v;
        for (const auto& c : r) v.push_back(c.text);
        return v;
      }
  ADD_FAILURE() << "no row " << starts;
  return std::vector<std::string>(5);
}

TEST(RecordTable, GpuRowsFromTypedFieldsOnly) {
  results r = load_results(test::data("results-gpu.json"));
  r.analysis = json::object();
  const auto s = report::record_section(r);
  // 4.05 / 4.80 TB/s
  EXPECT_EQ(row(s, "contiguous read")[4], "84.4%");
  EXPECT_EQ(row(s, "contiguous read")[2], "3.60–4.32 TB/s (75–90%)");
  EXPECT_EQ(row(s, "contiguous write")[4], "87.7%");
  EXPECT_EQ(row(s, "contiguous copy")[4], "82.9%");
  // 712 / 989.4 TFLOP/s; 310 / 989.4; 51.2 / 66.9
  EXPECT_EQ(row(s, "fp16 tensor GEMM, n = 4096")[4], "72.0%");
  EXPECT_EQ(row(s, "fp16 tensor GEMM, n = 4096")[2], "693–841 TFLOP/s (70–85%)");
  EXPECT_EQ(row(s, "fp16 tensor GEMM, n = 512")[4], "31.3%");
  EXPECT_EQ(row(s, "fp32 GEMM, n = 4096")[4], "76.5%");
  // 1755 of 1830 MHz; 652 of 700 W
  EXPECT_EQ(row(s, "sustained SM clock")[4], "95.9%");
  EXPECT_EQ(row(s, "power during")[3], "652 W (median; throttled 35.0% of samples: sw_power_cap)");
  // ridge: 989.4e12 / 4.8e12 = 206 FLOP/B nominal, 712e12 / 4.21e12 = 169 FLOP/B measured
  EXPECT_EQ(row(s, "measured ridge point")[1], "206 FLOP/B");
  EXPECT_EQ(row(s, "measured ridge point")[3], "169 FLOP/B");
  EXPECT_EQ(row(s, "ECC")[3], "on");
  // TPOT = Σ count × measured over decode batch-1 ops = 1.1118 ms; 2.44 GFLOP/token; MFU 0.22%
  const auto mfu = row(s, "TPOT → MFU");
  EXPECT_NE(mfu[3].find("TPOT 1.11 ms"), std::string::npos) << mfu[3];
  EXPECT_EQ(mfu[4], "0.22%");
}

TEST(RecordTable, CpuSaysWhyWhereNothingWasMeasured) {
  const results r = load_results(test::data("results-cpu.json"));
  const auto s = report::record_section(r);
  EXPECT_EQ(row(s, "contiguous read")[1],
            "unknown (memory channels and transfer rate not visible in this VM (no SMBIOS tables))");
  EXPECT_EQ(row(s, "contiguous read")[3], "9.80 GB/s (256 MiB working set)");
  EXPECT_EQ(row(s, "fp32 GEMM, n = 4096")[3], "not measured (not run: --quick caps GEMM at n = 1024)");
  EXPECT_EQ(row(s, "fp32 GEMM, n = 512")[4], "77.0%");  // 138 / 179.2 GFLOP/s
  EXPECT_EQ(row(s, "fp64 GEMM, n = 4096")[3], "not measured (not run: --quick caps GEMM at n = 512)");
  EXPECT_EQ(row(s, "sustained clock")[3], "not measured (no telemetry recorded for fp32 GEMM n = 1024)");
  EXPECT_EQ(row(s, "sustained clock")[1], "2800 MHz");  // the measured clock factor, 2.8 GHz
  EXPECT_EQ(row(s, "measured ridge point")[3], "17.4 FLOP/B");  // 171 GFLOP/s ÷ 9.80 GB/s
  EXPECT_EQ(row(s, "TPOT → MFU")[3], "not measured (4 of 10 decode ops not run)");
}

TEST(RecordTable, MarkdownOpensWithTheRecordTable) {
  const std::string md = render_markdown(load_results(test::data("results-gpu.json")));
  const auto first_section = md.find("\n## ");
  ASSERT_NE(first_section, std::string::npos);
  EXPECT_EQ(md.substr(first_section + 1, 15), "## Record table");
  EXPECT_LT(md.find("| quantity | nominal | expected | measured | measured ÷ nominal |"), md.find("## Device"));
}

TEST(RecordTable, AnyAnalysisShapeRendersWithoutThrowing) {
  results r = load_results(test::data("results-gpu.json"));
  for (const json& a : {json(nullptr), json::array({1, 2}), json("text"),
                        json{{"compute_waterfall", nullptr}, {"bandwidth_waterfall", json::array({1, "x", nullptr})},
                             {"mfu", json::array({json::object(), 3})}, {"fusion", "text"}, {"ridge", {{"a", {{"b", {{"c", {{"d", {1}}}}}}}}}},
                             {"batch_sweep", {{"points", "bad"}}}, {"accuracy", {{"x", NAN}}}, {"record_table", json::array()}},
                        json{{"batch_sweep", json::array({{{"batch", 1}}, {{"intensity", nullptr}, {"flops_per_s", "x"}}})}}}) {
    r.analysis = a;
    EXPECT_NO_THROW({
      render_markdown(r);
      render_svg(r);
      render_html(r);
    }) << a.dump();
  }
  results empty;
  EXPECT_NO_THROW({
    render_markdown(empty);
    render_svg(empty);
    render_html(empty);
  });
}

}  // namespace
}  // namespace roofline
