// The three opening sentences (roofline/headline.hpp, report/headline.cpp) and the record table rows
// they lean on: each rule tested on both of its sides, on real runs and on fixtures changed the way
// the rule's input changes.
#include "roofline/headline.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <set>
#include <sstream>

#include "report/sections.hpp"
#include "roofline/analysis.hpp"
#include "roofline/interference.hpp"
#include "roofline/json.hpp"
#include "roofline/record_table.hpp"
#include "roofline/report.hpp"
#include "roofline/run_verdict.hpp"
#include "roofline/vocabulary.hpp"
#include "test_util.hpp"

namespace roofline {
namespace {

/// The real H200 run the reviewer read (bench/results/h200/2026-12-03-d7a4aa3).
std::string h200_bench() {
  return std::string(ROOFLINE_SOURCE_DIR) + "/bench/results/h200/2026-12-03-d7a4aa3/results.json";
}

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

// The power cap is named as the binding limit only when the roof GEMM's samples carry a power
// throttle reason AND its median power is near the limit (≥ power_near_limit × the limit).
TEST(Headline, PowerCapBindsOnlyWhenTheRoofGemmsPowerIsNearTheLimit) {
  // The real H200 run: fp16's roof is the n = 4096 GEMM (fp16 accumulate, 755 TFLOP/s) with
  // sw_power_cap in 13 of 13 samples and the clock at 1560 MHz, but a median power of 470 W (max
  // 529 W) = 67.1% of the 700 W enforced limit: the readings do not show the cap binding.
  results r = load_results(h200_bench());
  const headline h = compute_headline(r);
  EXPECT_EQ(h.machine.limit, "power_reason");
  ASSERT_TRUE(h.machine.power_w && h.machine.power_limit_w);
  EXPECT_NEAR(*h.machine.power_w, 469.743, 1e-3);
  EXPECT_DOUBLE_EQ(*h.machine.power_limit_w, 700.0);
  const std::string s1 = report::headline_sentences(r).at(0);
  EXPECT_EQ(s1.find("binding limit is the 700 W power cap"), std::string::npos) << s1;
  EXPECT_NE(
      s1.find("sw_power_cap was reported in 100.0% of the GEMM's samples, but its power, a median 470 W (max 529 W), "
              "is 67.1% of the 700 W limit: the readings do not show the cap binding"),
      std::string::npos)
      << s1;
  EXPECT_NE(s1.find("the clock was 1560 MHz of 1830 MHz during the GEMM"), std::string::npos) << s1;
  // The record table quotes the same GEMM's power: one value.
  const auto table = record_table(r);  // kept: the row pointer points into it
  const record_row* power = row_with_key_prefix(table, "power");
  ASSERT_NE(power, nullptr);
  ASSERT_TRUE(power->measured);
  EXPECT_NEAR(*power->measured, *h.machine.power_w, 1e-9);

  // The other side: the same GEMM drawing 690 W (98.6% of the limit, as this run's n = 16384 GEMMs
  // did) is held by the cap.
  compute_result* g = roof_gemm(r, "fp16");
  ASSERT_NE(g, nullptr);
  g->telemetry->power_w->median = 690.0;
  EXPECT_EQ(compute_headline(r).machine.limit, "power");
  const std::string capped = report::headline_sentences(r).at(0);
  EXPECT_NE(capped.find(
                "the binding limit is the 700 W power cap (sw_power_cap in 100.0% of the GEMM's samples, median 690 W, "
                "98.6% of the limit)"),
            std::string::npos)
      << capped;
  // No power reading: the reason alone does not name the cap.
  g->telemetry->power_w.reset();
  EXPECT_EQ(compute_headline(r).machine.limit, "power_reason");
}

// Sentence 3 refers to its advice by the op table's number; the advice is stated once, there.
TEST(Headline, NextStepRefersToItsAdviceByNumberAndTheAdviceIsStatedOnce) {
  results r = load_results(h200_bench());
  const headline h = compute_headline(r);
  ASSERT_TRUE(h.next);
  const std::string md = render_markdown(r);
  // The run's latency advice is note [1] under the op table.
  EXPECT_NE(md.find("(42.7%): see advice [1] under the op table.**"), std::string::npos);
  EXPECT_NE(md.find("\n[1] " + h.next->advice + "\n"), std::string::npos);
  EXPECT_EQ(test::count(md, h.next->advice), 1u);
  EXPECT_EQ(test::count(render_html(r), report::html_escape(h.next->advice)), 1u);
  // The terminal shows no op table: the sentence states the advice itself.
  const std::string three = report::headline_sentences(r, false).at(2);
  EXPECT_NE(three.find("the advice for them: " + h.next->advice), std::string::npos) << three;
}

// Every heading of report.md is unique, and so are the headings of the nominal derivation in
// report.html: a precision with a peak per accumulate type names the accumulate.
TEST(Html, NoTwoHeadingsInOneSectionAreTheSame) {
  // The generic JSON sections (measured telemetry, analysis blocks) name a nested value by as much
  // of its path as it takes to tell it from its siblings: "gemm (fp16) › telemetry", not "telemetry" twice.
  for (const std::string& file : {h200_bench(), test::data("h200-2026-12-03/results.json"),
                                  test::data("results-gpu.json"), test::data("results-cpu.json")}) {
    results r = load_results(file);
    analyse(r);
    const std::string html = render_html(r);
    // a section: from one <h2> to the next; its <h3> headings are told apart
    int sections = 0, headings = 0;
    for (auto a = html.find("<h2"); a != std::string::npos; ++sections) {
      const auto b = html.find("<h2", a + 1);
      std::set<std::string> seen;
      for (auto h = html.find("<h3>", a); h != std::string::npos && h < b; h = html.find("<h3>", h + 1)) {
        ++headings;
        const std::string text = html.substr(h + 4, html.find("</h3>", h) - h - 4);
        EXPECT_TRUE(seen.insert(text).second) << "duplicate heading in a section of " << file << ": " << text;
      }
      a = b;
    }
    EXPECT_GT(sections, 3) << file;
    EXPECT_GT(headings, 3) << file;
  }
}

// A row's name keeps its dots in the heading of its nested value: a model named "TinyLlama-1.1B" is
// not split into path components ("TinyLlama-1 › 1B") nor rewritten ("TinyLlama-1,1B").
TEST(Html, ARowNameWithDotsStaysWholeInItsHeading) {
  const json rows = json::array({{{"name", "TinyLlama-1.1B"}, {"telemetry", {{"sm_clock_mhz", 1980}, {"power_w", 470}}}},
                                 {{"name", "Llama-3.1-8B"}, {"telemetry", {{"sm_clock_mhz", 1755}, {"power_w", 690}}}}});
  report::section s{"t", "t", {}};
  report::add_json(s, {{"runs", rows}}, "", 0);
  std::vector<std::string> headings;
  for (const auto& b : s.blocks)
    if (b.k == report::block::kind::heading) headings.push_back(b.lines.at(0));
  ASSERT_EQ(headings.size(), 3u);  // runs, then each row's telemetry, named by its row
  EXPECT_NE(headings[1].find("(TinyLlama-1.1B)"), std::string::npos) << headings[1];
  EXPECT_NE(headings[2].find("(Llama-3.1-8B)"), std::string::npos) << headings[2];
  for (const auto& h : headings) EXPECT_EQ(h.find("1 › 1B"), std::string::npos) << h;
}

TEST(Markdown, NoTwoHeadingsAreTheSame) {
  for (const std::string& file : {h200_bench(), test::data("h200-2026-12-03/results.json"),
                                  test::data("results-gpu.json"), test::data("results-cpu.json")}) {
    results r = load_results(file);
    analyse(r);
    std::istringstream md(render_markdown(r));
    std::set<std::string> seen;
    for (std::string line; std::getline(md, line);)
      if (line.rfind("#", 0) == 0)
        EXPECT_TRUE(seen.insert(line).second) << "duplicate heading in " << file << ": " << line;
    std::set<std::string> factors;
    for (const auto& b : report::nominal_section(r).blocks)
      if (b.k == report::block::kind::heading)
        EXPECT_TRUE(factors.insert(b.lines.at(0)).second) << file << ": " << b.lines.at(0);
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
  for (auto a = html.find("<svg"); a != std::string::npos; a = html.find("<svg", a))
    html.erase(a, html.find("</svg>", a) + 6 - a);
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

// A C++ kernel name from the H100 training trace (tests/data/h100-2026-12-05/train-qwen2-2l.json.gz) is
// one 130-character "word" up to its first space: in place.html's kernel table it set the column's
// width and pushed time, class and verdict off the page. In a word longer than 48 characters (wider than
// div.long holds) a line may break after "::", "(", "<" and ","; never inside a run of letters, digits
// and "_", and never in a shorter word. A text cell over 60 characters is held to div.long's width.
TEST(Html, ALongKernelNameMayBreakAtItsPunctuationAndItsCellIsHeldNarrow) {
  const std::string name =
      "void at::native::unrolled_elementwise_kernel<at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}"
      "::operator()() const::{lambda()#7}, std::array<char*, 2ul>, 4>(int)";
  const std::string html = report::html_text(name);
  EXPECT_NE(html.find("at::<wbr>native::<wbr>unrolled_elementwise_kernel&lt;<wbr>at::<wbr>native::<wbr>direct_copy_kernel_cuda(<wbr>"
                      "at::<wbr>TensorIteratorBase&amp;)::<wbr>{lambda()#3}::<wbr>operator()()"),
            std::string::npos)
      << html;
  EXPECT_EQ(html.find("unrolled_<wbr>"), std::string::npos);   // "_" binds: the name's parts stay whole
  EXPECT_EQ(html.find("()<wbr>"), std::string::npos);          // nor between "(" and ")"
  EXPECT_NE(html.find("std::array&lt;char*, 2ul&gt;"), std::string::npos) << html;  // short words as they are
  EXPECT_EQ(report::html_text("aten::scaled_dot_product_attention(q, k, v)"), "aten::scaled_dot_product_attention(q, k, v)");
  EXPECT_EQ(test::count(html, "<wbr>"), 9u) << html;  // the nine above, in the one long word only

  report::document d;
  report::section s{"Kernels", "kernels"};
  s.add(report::table{{"kernel", "time"}, {{name, {"1.67 ms", 1.67e-3}}, {"nvjet_sm90_tst_128x256_64x4_1x2_h_bz_coopA_NTN", {"837 µs", 8.37e-4}}}});
  d.sections.push_back(s);
  const std::string page = report::to_html(d);
  EXPECT_EQ(test::count(page, "<div class=\"long\">"), 1u) << page;  // the 47-character name is not held
  EXPECT_NE(page.find("<td><div class=\"long\">void at::<wbr>native"), std::string::npos) << page;
}

namespace {

/// results-cpu.json measured on a busy machine: every bandwidth and compute result rejected for
/// interference, one op of the decode step still of known bound.
results busy_cpu() {
  results r = load_results(test::data("results-cpu.json"));
  const std::string why =
      "unreliable: machine busy while measured, twice (other processes used 62 % of the CPU time, steal 0 %, over 8.01 "
      "s)";
  for (auto& b : r.measured.bandwidth) b.rejected = true, b.rejected_reason = why;
  for (auto& c : r.measured.compute) c.rejected = true, c.rejected_reason = why;
  interference_report i;
  i.busy = true;
  i.unreliable_results = static_cast<int>(r.measured.bandwidth.size() + r.measured.compute.size());
  i.summary = "the machine was busy: 11 of 11 probe(s) stayed disturbed after a re-run";
  r.interference = i;
  bool first = true;
  for (auto& op : r.ops)
    if (op.phase == "decode") {
      if (first)
        op.bound = "compute", first = false;
      else
        op.bound = "unknown";
    }
  return r;
}

}  // namespace

TEST(Headline, ABusyRunWithEveryRoofRejectedSaysSoAndTheNextStepIsAQuietReRun) {
  const results r = busy_cpu();
  const auto v = report::headline_sentences(r);
  ASSERT_EQ(v.size(), 3u);
  // Sentence 1: the interference, and that no roof stands; no talk of clock telemetry.
  EXPECT_NE(
      v[0].find(
          "the measurement was disturbed (the machine was busy: 11 of 11 probe(s) stayed disturbed after a re-run), "
          "so no roof stands."),
      std::string::npos)
      << v[0];
  EXPECT_EQ(v[0].find("telemetry"), std::string::npos) << v[0];
  // Sentence 2: shares of the ops with a known bound, the unknown ones counted.
  int decode = 0;
  for (const auto& op : r.ops) decode += op.phase == "decode" ? 1 : 0;
  EXPECT_NE(v[1].find(fmt::format(
                "its op time is 100.0% compute-bound of the 1 op(s) with a known bound ({} of {} ops of unknown bound)",
                decode - 1, decode)),
            std::string::npos)
      << v[1];
  EXPECT_EQ(v[1].find("bandwidth-bound"), std::string::npos) << v[1];
  // Sentence 3: re-run on a quiet machine.
  EXPECT_NE(
      v[2].find(
          "The most valuable next step is to re-run on a quiet machine: other processes ran while it measured, so " +
          std::to_string(r.interference->unreliable_results) +
          " result(s) were kept out of the roofs and no roof stands"),
      std::string::npos)
      << v[2];
  EXPECT_EQ(v[2].find("none found"), std::string::npos) << v[2];

  // The quiet side of the rule: the same run not busy keeps its ordinary next step.
  results quiet = load_results(test::data("results-cpu.json"));
  EXPECT_FALSE(compute_headline(quiet).rerun_quiet);
  EXPECT_EQ(report::headline_sentences(quiet).at(0).find("disturbed"), std::string::npos);
}

// Timings taken while the machine was busy are kept out (op_result::disturbed_s) and never headlined:
// the busy run of the issue printed "Decode at batch 1 … takes 3.42 s per step" from op timings 19×
// their quiet value (q_proj 7.96 ms against 0.417 ms) with every roof rejected, and exited 0.
TEST(Headline, ABusyRunsKeptOutTimingsAreNotHeadlinedAndTheRunFailsWithTheReasonFirst) {
  results r = busy_cpu();
  int kept = 0, decode_b1 = 0, decode_b1_kept = 0;  // the fixture measured 6 of its 10 decode ops
  for (auto& op : r.ops) {
    const bool b1 = op.phase == "decode" && op.batch == 1 && op.alternative_to.empty();
    decode_b1 += b1;
    if (keep_out_timing(op.measured_s, op.disturbed_s, op.measured_note, interference_sample{"", 0.21, 0.85}))
      ++kept, decode_b1_kept += b1;
  }
  ASSERT_GT(kept, 0);
  r.interference->ops_kept_out = kept;
  interference_sample busy_probe{"fma/fp32", 8.01, 0.62};
  busy_probe.verdict = "unreliable: machine busy while measured, twice (…)";
  r.interference->probes.assign(11, busy_probe);
  r.interference->summary = summarize_interference(*r.interference, true);
  const headline h = compute_headline(r);
  ASSERT_FALSE(h.time.empty());
  EXPECT_TRUE(h.time[0].disturbed());
  EXPECT_TRUE(h.rerun_quiet);
  const auto v = report::headline_sentences(r);
  ASSERT_EQ(v.size(), 3u);
  const std::string decode = v[1].substr(0, v[1].find(';'));  // the decode scenario
  // prefill, none of whose ops the fixture timed: its "step" would be predictions alone, not headlined
  EXPECT_NE(v[1].find("; prefill of 2048 tokens: not timed (none of its ops was timed on this busy machine)."), std::string::npos)
      << v[1];
  EXPECT_EQ(decode.find(" takes "), std::string::npos) << "no decode headline from busy timings: " << v[1];
  EXPECT_EQ(decode.find("-bound"), std::string::npos) << v[1];
  EXPECT_EQ(v[1].rfind(fmt::format("Decode at batch 1 (context 2048) is not timed here: {} of its {} op timings were taken while "
                                   "the machine was busy and are kept out",
                                   decode_b1_kept, decode_b1),
                       0),
            0u)
      << v[1];
  EXPECT_NE(v[2].find(fmt::format("{} op timing(s) were kept out of the analysis", kept)), std::string::npos) << v[2];
  // The run fails (exit 1) and says why on the summary's first line: the busy reason, before anything else.
  EXPECT_FALSE(judge_run(r).stands);
  const std::string summary = render_summary(r);
  const std::string first = summary.substr(0, summary.find('\n'));
  EXPECT_NE(first.find("run failed: the machine was busy, so"), std::string::npos) << summary;
  EXPECT_EQ(summary.find("Decode at batch 1 (context 2048) takes"), std::string::npos) << summary;
  EXPECT_EQ(run_failure(r), "the machine was busy, so no roof stands and " + std::to_string(kept) +
                                " op timing(s) were kept out (11 of 11 probe(s) stayed disturbed after a re-run)");
  // The quiet run stands: no failure line, the summary's first line as before.
  const results quiet = load_results(test::data("results-cpu.json"));
  EXPECT_TRUE(judge_run(quiet).stands);
  EXPECT_EQ(run_failure(quiet), "");
  EXPECT_EQ(render_summary(quiet).rfind("roofline: Intel(R) Xeon(R) Platinum 8370C CPU @ 2.80GHz (cpu), run complete\n", 0), 0u) << render_summary(quiet);
}

// A row measured and then rejected says "rejected" and why, never "not measured".
TEST(RecordTable, RejectedRowsSayRejectedAndWhy) {
  const results r = busy_cpu();
  const auto rows = record_table(r);
  const record_row* read = row_with_key_prefix(rows, "bandwidth_read");
  ASSERT_NE(read, nullptr);
  EXPECT_TRUE(read->rejected);
  EXPECT_EQ(read->measured_note.rfind("rejected: unreliable: machine busy", 0), 0u) << read->measured_note;
  // every bandwidth and GEMM row was measured and rejected: each says so
  const report::section s = report::record_section(r);
  int rejected = 0;
  for (const auto& b : s.blocks)
    for (const auto& row : b.t.rows)
      if (row[0].text.find("bandwidth") != std::string::npos || row[0].text.find("GEMM, n =") != std::string::npos) {
        EXPECT_EQ(row[2].text.rfind("rejected [", 0), 0u) << row[0].text << ": " << row[2].text;
        ++rejected;
      }
  EXPECT_EQ(rejected, 6);  // read, write, copy; fp32 roof, fp32 n = 512, fp64
}

// A GEMM row names a size that ran: the roof's, else (all rejected) the fastest that ran; never the
// n = 4096 the CPU sweep did not reach.
TEST(RecordTable, GemmRowNamesASizeThatRan) {
  // results-cpu.json ran fp32 GEMMs at 256, 512, 1024 (fastest: 1024 at 150 GFLOP/s) and fp64 at 512.
  const results r = busy_cpu();
  const auto rows = record_table(r);
  const record_row* fp32 = row_with_key_prefix(rows, "gemm_fp32_");
  ASSERT_NE(fp32, nullptr);
  EXPECT_EQ(fp32->key, "gemm_fp32_1024");
  EXPECT_EQ(fp32->label, "fp32 GEMM, n = 1024");
  EXPECT_TRUE(fp32->rejected);
  EXPECT_NE(fp32->measured_note.find("fp32 GEMM sizes run: 256, 512, 1024"), std::string::npos) << fp32->measured_note;
  const record_row* fp64 = row_with_key_prefix(rows, "gemm_fp64_");
  ASSERT_NE(fp64, nullptr);
  EXPECT_EQ(fp64->label, "fp64 GEMM, n = 512");
  for (const auto& x : rows) EXPECT_EQ(x.label.find("4096"), std::string::npos) << x.label;
  // The roof side: a usable GEMM is the row, marked the roof.
  const results quiet = load_results(test::data("results-cpu.json"));
  const auto quiet_rows = record_table(quiet);
  EXPECT_EQ(row_with_key_prefix(quiet_rows, "gemm_fp32_")->label, "fp32 GEMM, n = 1024 (the roof)");
  // No GEMM of the precision ran: the row names no size.
  results none = quiet;
  std::erase_if(none.measured.compute, [](const compute_result& c) { return c.precision == "fp64"; });
  const auto none_rows = record_table(none);
  const record_row* no64 = row_with_key_prefix(none_rows, "gemm_fp64");
  ASSERT_NE(no64, nullptr);
  EXPECT_EQ(no64->label, "fp64 GEMM (no size ran)");
  EXPECT_FALSE(no64->measured);
}

}  // namespace roofline
