// report.md / report.html lead with what people came for (record table, figure, op table with
// predicted, measured, ratio, bound and advice first), put the detail in the appendix (Markdown) or
// collapsed sections (HTML), state each note once, right-align number columns, and write no raw
// values (unscaled numbers, JSON blobs, HTML entities in Markdown).
#include <gtest/gtest.h>

#include <regex>

#include "roofline/report.hpp"
#include "test_util.hpp"

namespace roofline {
namespace {

using test::count;

TEST(ReportLayout, MarkdownLeadsWithRecordFigureOpsThenTheAppendix) {
  const std::string md = render_markdown(load_results(test::data("results-gpu.json")));
  const auto record = md.find("## Record table"), figure = md.find("](roofline.svg)"), ops = md.find("## Ops on the roofline"),
             appendix = md.find("## Appendix"), device = md.find("### Device and how it was measured");
  ASSERT_NE(record, std::string::npos);
  EXPECT_LT(record, figure);
  EXPECT_LT(figure, ops);
  EXPECT_LT(ops, appendix);
  EXPECT_LT(appendix, device);
  EXPECT_NE(md.find("| # | op | scenario | intensity | predicted | measured | measured ÷ predicted | bound | advice |"), std::string::npos);
}

TEST(ReportLayout, HtmlPutsTheDetailInCollapsedSections) {
  const std::string html = render_html(load_results(test::data("results-gpu.json")));
  EXPECT_NE(html.find("<section id=\"record\">"), std::string::npos);
  EXPECT_NE(html.find("<section id=\"ops\">"), std::string::npos);
  EXPECT_NE(html.find("<details id=\"measured\">"), std::string::npos);
  EXPECT_NE(html.find("<details id=\"device\">"), std::string::npos);
  EXPECT_LT(html.find("<figure>"), html.find("<section id=\"ops\">"));
  EXPECT_LT(html.find("<section id=\"ops\">"), html.find("<details"));
}

TEST(ReportLayout, NumberColumnsAreRightAligned) {
  const std::string md = render_markdown(load_results(test::data("results-gpu.json")));
  // the op table: #, intensity, predicted, measured and the ratio are numbers; op, scenario, bound, advice are not
  EXPECT_NE(md.find("| ---: | --- | --- | ---: | ---: | ---: | ---: | --- | --- |"), std::string::npos);
  const std::string html = render_html(load_results(test::data("results-gpu.json")));
  EXPECT_NE(html.find("<td class=\"num\" data-v=\"4050000000000\">4.05&nbsp;TB/s</td>"), std::string::npos);
}

TEST(ReportLayout, NotesAreStatedOnce) {
  // The CPU fixture's reason for the unknown nominal bandwidth applies to three record-table rows.
  const results r = load_results(test::data("results-cpu.json"));
  const std::string md = render_markdown(r);
  ASSERT_FALSE(r.nominal.memory_bandwidth_reason.empty());
  const std::string record = md.substr(0, md.find("](roofline.svg)"));  // the record table and its notes
  EXPECT_EQ(count(record, r.nominal.memory_bandwidth_reason), 1u) << record;
  EXPECT_EQ(count(md, "| DRAM read bandwidth"), 1u);
  EXPECT_NE(md.find("| unknown [1] |"), std::string::npos);
}

TEST(ReportLayout, NoRawValuesLeak) {
  for (const char* f : {"results-gpu.json", "results-cpu.json"}) {
    const std::string md = render_markdown(load_results(test::data(f)));
    EXPECT_EQ(md.find("&lt;"), std::string::npos) << f;
    EXPECT_EQ(md.find("{\""), std::string::npos) << f << ": a JSON blob";
    EXPECT_EQ(md.find(" 0 FLOP/s"), std::string::npos) << f << ": an unknown shown as zero";
    static const std::regex long_number("[ (|][0-9]{9,}[ )|.,;]");
    EXPECT_FALSE(std::regex_search(md, long_number)) << f << ": an unscaled number";
  }
}

TEST(ReportLayout, CpuReportHasNoGpuWords) {
  const std::string md = render_markdown(load_results(test::data("results-cpu.json")));
  for (const char* gpu : {"SM clock", "ECC: on for datacenter", "on for datacenter GPUs", "tensor core"})
    EXPECT_EQ(md.find(gpu), std::string::npos) << gpu;
}

TEST(ReportLayout, CompareMarkdownLinksItsFigureEvenWithoutOps) {
  const compare_side a = load_compare_side("t4"), b = load_compare_side("h200");
  const std::string md = render_compare_markdown(a, b);
  EXPECT_NE(md.find("](compare.svg)"), std::string::npos);
  EXPECT_NE(render_compare_html(a, b).find("<figure><svg"), std::string::npos);
}

TEST(ReportLayout, CompareWritesInt8InOps) {
  const std::string md = render_compare_markdown(load_compare_side("t4"), load_compare_side("h200"));
  EXPECT_NE(md.find("| int8 nominal peak | 130 TOP/s |"), std::string::npos) << md;
  EXPECT_EQ(md.find("int8 nominal peak | 130 TFLOP/s"), std::string::npos);
}

// A pattern measured and kept out of the roofs is "rejected" in compare's table, not "not measured"
// (a 2-vCPU guest's DRAM write, 2026-12-04: its repeats disagreed twice).
TEST(ReportLayout, CompareSaysRejectedForABandwidthKeptOutOfTheRoofs) {
  compare_side a = load_compare_side(test::data("results-cpu.json")), b = a;
  for (auto& x : b.r.measured.bandwidth)
    if (x.pattern == "write" && x.level == "dram") x.rejected = true, x.rejected_reason = "unreliable: repeats disagree";
  const std::string text = render_compare_text(a, b);
  const auto row = text.find("memory bandwidth, measured write");
  ASSERT_NE(row, std::string::npos) << text;
  const std::string line = text.substr(row, text.find('\n', row) - row);
  EXPECT_NE(line.find("rejected"), std::string::npos) << line;
  EXPECT_EQ(line.find("not measured"), std::string::npos) << line;
  EXPECT_EQ(render_compare_text(a, a).find("rejected"), std::string::npos);
}

}  // namespace
}  // namespace roofline
