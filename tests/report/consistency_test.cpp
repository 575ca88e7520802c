// One results file rendered to every output (results.json, report.md, roofline.svg, report.html, the
// terminal summary, compare.md): each quantity shown in more than one of them has the same value in
// all, and no number carries a unit that does not belong to it.
#include <gtest/gtest.h>

#include <regex>

#include "report/document.hpp"
#include "roofline/analysis.hpp"
#include "roofline/json.hpp"
#include "roofline/record_table.hpp"
#include "roofline/report.hpp"
#include "roofline/units.hpp"
#include "roofline/vocabulary.hpp"
#include "test_util.hpp"

namespace roofline {
namespace {

struct outputs {
  results r;
  json j;  ///< results.json as written
  std::string md, svg, html, summary, compare;
};

outputs render_all(const std::string& fixture) {
  outputs o;
  o.r = load_results(test::data(fixture));
  analyse(o.r);
  o.j = json::parse(render_json(o.r));
  o.md = render_markdown(o.r);
  o.svg = render_svg(o.r);
  o.html = render_html(o.r);
  o.summary = render_summary(o.r);
  const compare_side side = load_compare_side(test::data(fixture));
  o.compare = render_compare_markdown(side, side);
  return o;
}

const json& record_row_json(const json& j, const std::string& key) {
  static const json none;
  for (const auto& row : j["analysis"]["record_table"])
    if (row["key"] == key) return row;
  return none;
}

class Consistency : public ::testing::TestWithParam<const char*> {};

TEST_P(Consistency, EveryQuantityHasOneValueInEveryOutput) {
  const outputs o = render_all(GetParam());
  const results& r = o.r;
  const std::string p = main_precision(r);

  // The record table: results.json rows are the rows report.md, the HTML and the terminal show.
  const std::vector<record_row> rows = record_table(r);
  ASSERT_EQ(o.j["analysis"]["record_table"].size(), rows.size());
  EXPECT_EQ(test::count(o.md, "## Record table"), 1u);  // printed once
  for (const record_row& x : rows) {
    const json& row = record_row_json(o.j, x.key);
    ASSERT_FALSE(row.is_null()) << x.key;
    if (x.measured) EXPECT_DOUBLE_EQ(row["measured"].get<double>(), *x.measured) << x.key;
    if (!x.measured || x.unit.empty()) continue;
    const std::string shown = units::value(*x.measured, x.unit);
    EXPECT_NE(o.md.find("| " + x.label + " |"), std::string::npos) << x.label;
    EXPECT_NE(o.md.find(shown), std::string::npos) << x.key << ": " << shown;
    EXPECT_NE(o.html.find(report::html_text(shown)), std::string::npos) << x.key << ": " << shown;  // number&nbsp;unit
    EXPECT_NE(o.summary.find(shown), std::string::npos) << x.key << ": " << shown;
    if (const auto q = x.ratio()) {
      EXPECT_DOUBLE_EQ(row["ratio"].get<double>(), *q) << x.key;
      EXPECT_NE(o.summary.find(units::percent(*q)), std::string::npos) << x.key;
    }
  }

  // Ridges: the record table, the ridge table of report.md, the figure, results.roofline and
  // analysis.ridge all carry ridge_for's values.
  const ridge_pair rp = ridge_for(r, p);
  ASSERT_TRUE(rp.measured);
  EXPECT_DOUBLE_EQ(o.j["roofline"]["ridge_measured"].get<double>(), *rp.measured);
  EXPECT_DOUBLE_EQ(record_row_json(o.j, "ridge")["measured"].get<double>(), *rp.measured);
  for (const auto& e : o.j["analysis"]["ridge"]["per_precision"])
    if (e["precision"] == p) EXPECT_DOUBLE_EQ(e["ridge_measured"].get<double>(), *rp.measured);
  for (const std::string& prec : measured_precisions(r.measured)) {
    const ridge_pair q = ridge_for(r, prec);
    if (prec != p) continue;  // the figure is one panel: the model's precision
    if (!q.measured || !q.peak_measured) continue;
    const std::string ridge = units::intensity(*q.measured), peak = units::compute_rate(*q.peak_measured, prec);
    EXPECT_NE(o.svg.find(prec + " measured ridge: " + ridge + " = " + peak), std::string::npos) << prec << " " << ridge;
    EXPECT_NE(o.md.find("| " + prec + " |"), std::string::npos) << prec;
    EXPECT_NE(o.md.find(ridge), std::string::npos) << prec << " ridge " << ridge;
    EXPECT_TRUE(o.svg.find(prec + " tensor measured: " + peak) != std::string::npos ||
                o.svg.find(prec + " vector measured: " + peak) != std::string::npos)
        << prec << " roof " << peak;
  }

  // Device-memory roof: the figure's measured memory roof is the record table's best bandwidth.
  if (const bandwidth_result* b = best_device_bandwidth(r.measured))
    EXPECT_NE(o.svg.find(units::rate_bytes(b->bytes_per_s)), std::string::npos);

  // MFU and TPOT at decode batch 1: analysis.mfu, the record table and the MFU section agree.
  const decode_step d = decode_step_at(r, 1);
  for (const auto& e : o.j["analysis"]["mfu"]["scenarios"]) {
    if (e["batch"] != 1) continue;
    if (!d.tpot_s) {
      EXPECT_TRUE(e["tpot_s"].is_null());
      continue;
    }
    EXPECT_DOUBLE_EQ(e["tpot_s"].get<double>(), *d.tpot_s);
    const json& row = record_row_json(o.j, "tpot_mfu");
    EXPECT_DOUBLE_EQ(row["seconds"].get<double>(), *d.tpot_s);
    EXPECT_NEAR(row["ratio"].get<double>(), e["mfu"].get<double>(), 1e-12);
    const std::string mfu = units::percent(e["mfu"].get<double>());
    EXPECT_NE(o.md.find("MFU vs the nominal " + p + " peak"), std::string::npos);
    EXPECT_GE(test::count(o.md, mfu), 2u) << mfu;  // record table and MFU section
    EXPECT_GE(test::count(o.md, units::seconds(*d.tpot_s)), 2u);
  }
  // compare.md of a file against itself: every ratio is 1.
  std::size_t ratios = 0;
  const std::regex last_ratio(R"(\| ([0-9.]+)× \|$)");
  std::smatch m;
  for (std::size_t a = 0, b; a < o.compare.size(); a = b + 1) {
    b = o.compare.find('\n', a);
    if (b == std::string::npos) b = o.compare.size();
    const std::string line = o.compare.substr(a, b - a);
    if (std::regex_search(line, m, last_ratio)) {
      ++ratios;
      EXPECT_EQ(m[1].str(), "1.00") << line;
    }
  }
  EXPECT_GT(ratios, 5u);
}

TEST_P(Consistency, NoNumberCarriesAUnitThatIsNotItsOwn) {
  const outputs o = render_all(GetParam());
  // A ridge or intensity is FLOP/B between ~0.01 and ~10^4; a size or a peak printed as FLOP/B (the
  // key-guessing fault: "735554078225602 FLOP/B", "measured size 4096 FLOP/B") has 5+ digits.
  const std::regex bad_intensity(R"(\b\d{5,}(\.\d+)? (FLOP|OP)/B)");
  // A rate below 1 FLOP/s is a ratio printed as a rate ("720 mFLOP/s").
  const std::regex bad_rate(R"(\d ?[mµnp](FLOP|OP|B)/s)");
  // Sort keys in HTML attributes (data-v="3.99e-06") are for machines, not readers: left out.
  const std::regex attribute(R"(data-[a-z]+="[^"]*")");
  const std::string html = std::regex_replace(o.html, attribute, ""), svg = std::regex_replace(o.svg, attribute, "");
  for (const std::string* text : {&o.md, &svg, &html, &o.summary, &o.compare}) {
    EXPECT_FALSE(std::regex_search(*text, bad_intensity)) << text->substr(0, 80);
    EXPECT_FALSE(std::regex_search(*text, bad_rate)) << text->substr(0, 80);
    EXPECT_FALSE(std::regex_search(*text, std::regex(R"(\d\.?\d*e[-+]\d)"))) << "scientific notation in " << text->substr(0, 80);
  }
}

INSTANTIATE_TEST_SUITE_P(Fixtures, Consistency, ::testing::Values("results-gpu.json", "results-cpu.json"));

}  // namespace
}  // namespace roofline

namespace roofline {
TEST(MeasuredSection, GemmRowsAreListedWithTheRuleThatUsesThem) {
  results r = load_results(test::data("results-cpu.json"));
  gemm_rows_result g;
  g.precision = "fp32", g.m = 32, g.n = g.k = 2048;
  g.flops_per_s = 103.4e9, g.median_flops_per_s = 94.6e9, g.spread = 0.1, g.repeats = 35, g.verified = true;
  g.method = "C(32x2048) = A(32x2048)·W(2048x2048)";
  r.measured.gemm_rows = {g};
  analyse(r);
  const std::string html = render_html(r);  // per-point detail: the HTML's collapsed sections
  EXPECT_NE(html.find("GEMM rate against rows"), std::string::npos);
  EXPECT_NE(html.find(report::html_text("94.6 GFLOP/s")), std::string::npos);  // number&nbsp;unit
  EXPECT_NE(html.find(report::html_text("2048 × 2048")), std::string::npos);
}
}  // namespace roofline

namespace roofline {
TEST(OneValue, TheRoofGemmIsOneNumberInTheFigureTheRecordTableTheHeadlineAndTheSummary) {
  // The real H200 run: fp16's roof is its n = 8192 GEMM at 703 TFLOP/s (n = 4096 reached 675): the
  // figure's measured roof, the record table's roof row, the ridge's numerator, the report's first
  // sentence and the terminal all say 703, and none says 675 for fp16.
  results r = load_results(test::data("h200-2026-12-03/results.json"));
  analyse(r);
  const std::string svg = render_svg(r), md = render_markdown(r), html = render_html(r), summary = render_summary(r);
  // the legend entry names what measured the roof (wrapped onto a second line where it is long)
  const auto roof = svg.find(">fp16 tensor measured 703 TFLOP/s");
  ASSERT_NE(roof, std::string::npos);
  EXPECT_EQ(svg.find("(GEMM n = 8192)<", roof), svg.find("</g>", roof) - std::string("(GEMM n = 8192)</text>").size());
  EXPECT_NE(md.find("| fp16 tensor GEMM, n = 8192 (the roof) | 989 TFLOP/s | 703 TFLOP/s | 71.0% |"), std::string::npos);
  EXPECT_NE(md.find("of its nominal fp16 tensor peak (703 TFLOP/s of 989 TFLOP/s, GEMM n = 8192)"), std::string::npos);
  EXPECT_NE(summary.find("fp16 tensor GEMM, n = 8192 (the roof)      989 TFLOP/s              703 TFLOP/s"), std::string::npos) << summary;
  EXPECT_NE(html.find("703&nbsp;TFLOP/s of 989&nbsp;TFLOP/s"), std::string::npos);  // HTML: number and unit never split
  for (const std::string* out : {&svg, &md, &summary}) EXPECT_EQ(out->find("675 TFLOP/s"), std::string::npos);
  // the clock and power of the same GEMM in the record table and the first sentence
  EXPECT_NE(md.find("| sustained SM clock during the GEMM | 1830 MHz | 1410 MHz |"), std::string::npos);
  // (sw_power_cap in every sample, but 577 W is 82.4% of the 700 W limit: not named the binding limit)
  EXPECT_NE(md.find("the clock was 1410 MHz of 1830 MHz during the GEMM"), std::string::npos);
  EXPECT_NE(md.find("median 577 W"), std::string::npos);
  EXPECT_NE(md.find("| 700 W | 577 W ["), std::string::npos);  // its note after those of the rows above (HBM above the usual range)
  // the report opens with the three sentences, and stays short
  EXPECT_EQ(md.find("**The NVIDIA H200 reached"), md.find("\n\n") + 2);
  EXPECT_NE(md.find("**Decode at batch 1 (context 2048) takes 1.23 ms per step (whole step measured) where its bytes alone need 452 µs"),
            std::string::npos);
  EXPECT_NE(md.find("**The most valuable next step is in decode at batch 1:"), std::string::npos);
  EXPECT_LT(test::count(md, "\n"), 600u);
  // the decode-b32 q_proj (31 FLOP/B, below the 150 FLOP/B ridge) is not told to use the tensor cores
  for (const auto& op : r.ops)
    if (op.phase == "decode" && op.batch == 32 && op.name == "q_proj") {
      EXPECT_EQ(op.bound, "compute");
      EXPECT_EQ(op.advice.find("use the tensor cores"), std::string::npos) << op.advice;
    }
}
}  // namespace roofline
