// report.md / report.html lead with what people came for (record table, figure, op table with
// predicted, measured, ratio, bound and advice first), put the detail in the appendix (Markdown) or
// collapsed sections (HTML), state each note once, right-align number columns, and write no raw
// values (unscaled numbers, JSON blobs, HTML entities in Markdown).
#include <gtest/gtest.h>

#include <regex>

#include "report/sections.hpp"
#include "roofline/json.hpp"
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

namespace roofline {
namespace {

// The backend gives the kernel choice in numbers (op_result::choice); the report words it, after the
// op's own note, in the op table and ops.csv; results.json keeps the numbers and reads them back.
TEST(ReportLayout, AKernelChoiceIsWordedByTheReportFromItsNumbers) {
  results r = load_results(test::data("results-gpu.json"));
  op_result& op = r.ops.at(0);
  ASSERT_TRUE(op.measured_s);
  op.measured_note = "C = A·Wᵀ; 8 sampled rows, rel err 1e-3";
  op.choice = kernel_choice{"cuBLASLt", "cuBLASLt 13.0 algo 66; verified: 8 sampled rows", 11.2e-6, 12.9e-6, false};
  EXPECT_EQ(report::choice_text(*op.choice),
            "faster than cuBLASLt (11.2 µs vs 12.9 µs; cuBLASLt 13.0 algo 66; verified: 8 sampled rows)");
  EXPECT_EQ(report::measured_note_text(op), op.measured_note + "; " + report::choice_text(*op.choice));
  EXPECT_NE(render_html(r).find("faster than cuBLASLt (11.2&nbsp;µs vs 12.9&nbsp;µs;"), std::string::npos);  // the op detail notes
  EXPECT_NE(render_ops_csv(r).find("faster than cuBLASLt (11.2 µs vs 12.9 µs;"), std::string::npos);
  kernel_choice kept{"our GEMV", "", std::nullopt, std::nullopt, true};
  EXPECT_EQ(report::choice_text(kept), "chosen over our GEMV when this shape first ran in this run");
  kept.chosen_s = 11.2e-6, kept.over_s = 12.9e-6;  // the times that first choice was made with
  EXPECT_EQ(report::choice_text(kept), "chosen over our GEMV when this shape first ran in this run (11.2 µs vs 12.9 µs)");
  // the numbers, not the words, are in results.json; an op without a choice writes no key
  const json j = r;
  EXPECT_DOUBLE_EQ(j["ops"][0]["choice"]["over_s"].get<double>(), 12.9e-6);
  EXPECT_FALSE(j["ops"][1].contains("choice"));
  const results back = parse_results(j.dump(), "choice.json");
  ASSERT_TRUE(back.ops.at(0).choice);
  EXPECT_EQ(json(back), j);
}

}  // namespace
}  // namespace roofline
