// The three opening sentences (roofline/headline.hpp, report/headline.cpp) and the record table rows
// they lean on: each rule tested on both of its sides, on real runs and on fixtures changed the way
// the rule's input changes.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <set>
#include <sstream>

#include "report/sections.hpp"
#include "roofline/analysis.hpp"
#include "roofline/headline.hpp"
#include "roofline/record_table.hpp"
#include "roofline/report.hpp"
#include "roofline/vocabulary.hpp"
#include "test_util.hpp"

namespace roofline {
namespace {

/// The real H200 run the reviewer read (bench/results/h200/2026-12-03-d7a4aa3).
std::string h200_bench() { return std::string(ROOFLINE_SOURCE_DIR) + "/bench/results/h200/2026-12-03-d7a4aa3/results.json"; }

compute_result* roof_gemm(results& r, const std::string& precision) {
  const compute_result* c = best_compute_on(r.measured, precision, "gemm");
  for (auto& x : r.measured.compute)
    if (&x == c) return &x;
  return nullptr;
}

const record_row* row_with_key_prefix(const std::vector<record_row>& rows, const std::string& prefix) {
  for (const auto& x : rows)
    if (x.key.rfind(prefix, 0) == 0) return &x;
  return nullptr;
}

}  // namespace

// Every heading of report.md is unique, and so are the headings of the nominal derivation in
// report.html: a precision with a peak per accumulate type names the accumulate.
TEST(Markdown, NoTwoHeadingsAreTheSame) {
  for (const std::string& file : {h200_bench(), test::data("h200-2026-12-03/results.json"), test::data("results-gpu.json"),
                                  test::data("results-cpu.json")}) {
    results r = load_results(file);
    analyse(r);
    std::istringstream md(render_markdown(r));
    std::set<std::string> seen;
    for (std::string line; std::getline(md, line);)
      if (line.rfind("#", 0) == 0) EXPECT_TRUE(seen.insert(line).second) << "duplicate heading in " << file << ": " << line;
    std::set<std::string> factors;
    for (const auto& b : report::nominal_section(r).blocks)
      if (b.k == report::block::kind::heading) EXPECT_TRUE(factors.insert(b.lines.at(0)).second) << file << ": " << b.lines.at(0);
    if (file == h200_bench()) {
      // the H200's fp16 and fp8 tensor peaks with fp32 and with fp16 accumulate (nominal.peaks[])
      EXPECT_TRUE(factors.count("Factors of the fp16 tensor peak (fp32 accumulate)"));
      EXPECT_TRUE(factors.count("Factors of the fp16 tensor peak (fp16 accumulate)"));
      EXPECT_TRUE(factors.count("Factors of the fp8 tensor peak (fp16 accumulate)"));
      const std::string html = render_html(r);
      EXPECT_EQ(test::count(html, "<h3>Factors of the fp16 tensor peak (fp32 accumulate)</h3>"), 1u);
      EXPECT_EQ(test::count(html, "<h3>Factors of the fp16 tensor peak (fp16 accumulate)</h3>"), 1u);
    }
  }
}

// In HTML a number and its unit are joined by a non-breaking space (one rule, in the HTML text
// formatter), so "(4.00 GiB)" never wraps between 4.00 and GiB; report.md keeps plain spaces.
TEST(Html, ANumberAndItsUnitAreJoinedByANonBreakingSpace) {
  results r = load_results(test::data("results-gpu.json"));
  std::string html = render_html(r);
  const std::string md = render_markdown(r);
  // the report's text only: the inline figures (SVG) are drawn, not wrapped
  for (auto a = html.find("<svg"); a != std::string::npos; a = html.find("<svg", a)) html.erase(a, html.find("</svg>", a) + 6 - a);
  EXPECT_NE(html.find("device memory read bandwidth (4.00&nbsp;GiB)"), std::string::npos);
  EXPECT_EQ(html.find("(4.00 GiB)"), std::string::npos);
  EXPECT_NE(html.find("4.05&nbsp;TB/s"), std::string::npos);
  EXPECT_EQ(html.find("4.05 TB/s"), std::string::npos);
  EXPECT_NE(md.find("device memory read bandwidth (4.00 GiB)"), std::string::npos);
  // words that are not a number and its unit keep their breaking space
  EXPECT_EQ(html.find("reached&nbsp;"), std::string::npos);
  EXPECT_TRUE(report::number_and_unit("(4.00", "GiB)"));
  EXPECT_FALSE(report::number_and_unit("of", "its"));
  EXPECT_FALSE(report::number_and_unit("fp16", "tensor"));  // a precision, not a number
  EXPECT_EQ(html.find("fp16&nbsp;tensor"), std::string::npos);
}

}  // namespace roofline
