// The record table pins the fixture's numbers: every ratio is measured ÷ nominal of published or
// fixture values, computed from the typed fields (r.analysis emptied to prove it).
#include <gtest/gtest.h>

#include <cmath>

#include "report/markdown.hpp"
#include "report/sections.hpp"
#include "roofline/error.hpp"
#include "roofline/json.hpp"
#include "roofline/record_table.hpp"
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

/// The text of note `marker` ("[2]") under the section's table.
std::string note(const report::section& s, const std::string& cell) {
  const auto open = cell.rfind('[');
  if (open == std::string::npos) return "";
  const int n = std::stoi(cell.substr(open + 1));
  for (const auto& b : s.blocks)
    if (b.k == report::block::kind::table && n >= 1 && static_cast<std::size_t>(n) <= b.t.notes.size()) return b.t.notes[n - 1];
  return "";
}

// Columns: quantity, nominal, measured, measured ÷ nominal, usually.
TEST(RecordTable, GpuRowsFromTypedFieldsOnly) {
  results r = load_results(test::data("results-gpu.json"));
  r.analysis = analysis_results{};
  const auto s = report::record_section(r);
  // 4.05 / 4.80 TB/s
  EXPECT_EQ(row(s, "device memory read bandwidth")[3], "84.4%");
  EXPECT_EQ(row(s, "device memory read bandwidth")[4], "3.60–4.32 TB/s");
  EXPECT_EQ(row(s, "device memory read bandwidth (4.00 GiB)")[2], "4.05 TB/s");
  EXPECT_EQ(row(s, "device memory write bandwidth")[3], "87.7%");
  EXPECT_EQ(row(s, "device memory copy bandwidth")[3], "82.9%");
  // 712 / 989.4 TFLOP/s; 310 / 989.4; 51.2 / 66.9
  EXPECT_EQ(row(s, "fp16 tensor GEMM, n = 4096")[3], "72.0%");
  EXPECT_EQ(row(s, "fp16 tensor GEMM, n = 4096")[4], "693–841 TFLOP/s");
  EXPECT_EQ(row(s, "fp16 tensor GEMM, n = 512")[3], "31.3%");
  EXPECT_EQ(row(s, "fp32 GEMM, n = 4096")[3], "76.5%");
  // 1755 of 1830 MHz; 652 of 700 W
  EXPECT_EQ(row(s, "sustained SM clock")[3], "95.9%");
  const auto power = row(s, "power during");
  EXPECT_EQ(power[2].substr(0, 6), "652 W ");
  EXPECT_EQ(note(s, power[2]), "throttled 35.0% of the samples of fp16 GEMM n = 4096: sw_power_cap");
  // ridge: 989.4e12 / 4.8e12 = 206 FLOP/B nominal, 712e12 / 4.21e12 = 169 FLOP/B measured
  EXPECT_EQ(row(s, "ridge point")[1], "206 FLOP/B");
  EXPECT_EQ(row(s, "ridge point")[2], "169 FLOP/B");
  EXPECT_EQ(row(s, "ECC")[2].substr(0, 3), "on ");
  EXPECT_EQ(note(s, row(s, "ECC")[2]), "from measured.telemetry.ecc");  // "enabled" in the fixture
  // TPOT = Σ count × measured over decode batch-1 ops = 1.1118 ms; 2.44 GFLOP/token; MFU 0.22%
  const auto mfu = row(s, "TPOT → MFU");
  EXPECT_NE(mfu[2].find(" in 1.11 ms"), std::string::npos) << mfu[2];
  EXPECT_EQ(mfu[3], "0.22%");
}

TEST(RecordTable, CpuSaysWhyWhereNothingWasMeasuredOnce) {
  const results r = load_results(test::data("results-cpu.json"));
  const auto s = report::record_section(r);
  const auto read = row(s, "DRAM read bandwidth");
  EXPECT_EQ(read[1], "unknown [1]");
  EXPECT_EQ(note(s, read[1]), "nominal memory bandwidth: memory channels and transfer rate not visible in this VM (no SMBIOS tables)");
  EXPECT_EQ(row(s, "DRAM write bandwidth")[1], "unknown [1]");  // the same reason, stated once
  EXPECT_EQ(row(s, "DRAM read bandwidth (256 MiB)")[2], "9.80 GB/s");
  // the GEMM rows show each precision's roof (its best GEMM, the figure's and the ridge's value)
  EXPECT_EQ(row(s, "fp32 GEMM, n = 1024 (the roof)")[2], "150 GFLOP/s");
  EXPECT_EQ(row(s, "fp32 GEMM, n = 512")[3], "77.0%");  // 138 / 179.2 GFLOP/s
  EXPECT_EQ(row(s, "fp64 GEMM, n = 512 (the roof)")[2], "70.2 GFLOP/s");
  const auto clock = row(s, "sustained core clock");
  EXPECT_EQ(note(s, clock[2]), "no telemetry recorded for fp32 GEMM n = 1024");
  // the clock the CPU peaks use was itself measured: said so, not passed off as a datasheet value
  EXPECT_EQ(clock[1].substr(0, 9), "2800 MHz ");
  EXPECT_EQ(note(s, clock[1]).rfind("the clock the peaks are computed at: measured", 0), 0u) << note(s, clock[1]);
  EXPECT_EQ(row(s, "ridge point")[2], "15.3 FLOP/B");  // 150 GFLOP/s (the best fp32 GEMM) ÷ 9.80 GB/s
  EXPECT_EQ(note(s, row(s, "TPOT → MFU")[2]), "TPOT: 4 of 10 decode ops not run");
  for (const auto& b : s.blocks)
    for (const auto& rr : b.t.rows) {
      EXPECT_NE(rr[0].text, "ECC") << "no GPU rows on a CPU";
      EXPECT_EQ(rr[0].text.find("power"), std::string::npos) << "no GPU rows on a CPU";
    }
}

// A measured value above the usual range is said, with its cause where the row's record shows it: the
// H200's HBM read at 4.69 of 4.81 TB/s (97.4%) sat silently above "usually 3.61–4.33 TB/s".
TEST(RecordTable, MeasuredAboveTheUsualRangeIsSaidWithItsCause) {
  results r = load_results(test::data("h200-2026-12-03/results.json"));
  r.analysis = analysis_results{};  // the table as computed today (the file's stored one predates the note)
  const auto s = report::record_section(r);
  const auto read = row(s, "device memory read bandwidth");
  EXPECT_EQ(read[3], "97.4%");
  const std::string why = note(s, read[4]);
  EXPECT_EQ(why, "measured 97.4% of nominal, above the usual 75–90% of nominal: its kernel keeps enough 16-byte or bulk "
                 "accesses in flight to cover the memory latency (a working set 68.27× L2), and Nsight Compute's DRAM "
                 "counters match the bytes it counts (bench/results/h200/2026-12-01-l2-write)");
  EXPECT_EQ(row(s, "device memory write bandwidth")[4], read[4]) << "the same reason, one note";
  // 4.22 of 4.81 TB/s (87.7%) is within the usual range: nothing to say.
  EXPECT_EQ(row(s, "device memory copy bandwidth")[4].find('['), std::string::npos) << row(s, "device memory copy bandwidth")[4];
  // The terminal says it too, under the row.
  EXPECT_NE(render_summary(r).find("↳ measured 97.4% of nominal, above the usual 75–90% of nominal"), std::string::npos);
  EXPECT_EQ(record_table(r).at(2).above_usual, "") << "copy";

  // A CPU GEMM at 90% of its nominal: the BLAS kernel, or, where the clock ran above the nominal's, the clock.
  results c = load_results(test::data("results-cpu.json"));
  c.analysis = analysis_results{};
  compute_result* roof = nullptr;
  for (auto& x : c.measured.compute)
    if (x.precision == "fp32" && x.size == 1024 && x.engine == "gemm") roof = &x;
  ASSERT_NE(roof, nullptr);
  roof->flops_per_s = 0.90 * 179.2e9;  // the fixture's nominal fp32 peak: 179.2 GFLOP/s
  const std::string blas = note(report::record_section(c), row(report::record_section(c), "fp32 GEMM, n = 1024")[4]);
  EXPECT_EQ(blas.rfind("measured 90.0% of nominal, above the usual 70–85% of nominal: a tuned BLAS GEMM (" + roof->method +
                           ") spends all but its packing and edge blocks in an FMA micro-kernel",
                       0),
            0u)
      << blas;
  telemetry_summary t;
  t.sm_clock_mhz = stats_summary{20, 3100, 3300, 3200, 3200, 0, 0};  // above the 2800 MHz the peak is computed at
  roof->telemetry = t;
  const std::string clock = note(report::record_section(c), row(report::record_section(c), "fp32 GEMM, n = 1024")[4]);
  EXPECT_EQ(clock, "measured 90.0% of nominal, above the usual 70–85% of nominal: the clock during the GEMM, a median 3200 MHz, "
                   "was above the 2800 MHz the nominal peak is computed at")
      << clock;
}

TEST(RecordTable, MarkdownOpensWithTheRecordTable) {
  const std::string md = render_markdown(load_results(test::data("results-gpu.json")));
  const auto first_section = md.find("\n## ");
  ASSERT_NE(first_section, std::string::npos);
  EXPECT_EQ(md.substr(first_section + 1, 15), "## Record table");
  EXPECT_LT(md.find("| quantity | nominal | measured | measured ÷ nominal | usually |"), md.find("Device and how"));
}

TEST(RecordTable, AnyAnalysisShapeRendersWithoutThrowing) {
  // Blocks of any shape are read as far as they go (the rest kept in analysis.other, named
  // unreadable) and every view renders; an analysis that is not an object refuses the file, naming it.
  const json file = json::parse(read_file(test::data("results-gpu.json")));
  for (const json& a : {json{{"compute_waterfall", nullptr}, {"bandwidth_waterfall", json::array({1, "x", nullptr})},
                             {"mfu", json::array({json::object(), 3})}, {"fusion", "text"}, {"ridge", {{"a", {{"b", {{"c", {{"d", {1}}}}}}}}}},
                             {"batch_sweep", {{"points", "bad"}}}, {"accuracy", {{"x", NAN}}}, {"record_table", json::array()}},
                        json{{"batch_sweep", json::array({{{"batch", 1}}, {{"intensity", nullptr}, {"flops_per_s", "x"}}})}},
                        json{{"latency_model", {{"floor_s", "x"}}}, {"tpot_input", {{"tpot_s", json::array()}}},
                             {"step_sweep", 3}, {"energy", json::object()}}}) {
    json f = file;
    f["analysis"] = a;
    results r;
    ASSERT_NO_THROW(r = parse_results(f.dump(), "shape.json")) << a.dump();
    EXPECT_NO_THROW({
      render_markdown(r);
      render_svg(r);
      render_html(r);
    }) << a.dump();
  }
  for (const json& a : {json(nullptr), json::array({1, 2}), json("text")}) {
    json f = file;
    f["analysis"] = a;
    try {
      parse_results(f.dump(), "shape.json");
      ADD_FAILURE() << "accepted analysis " << a.dump();
    } catch (const input_error& e) {
      EXPECT_NE(std::string(e.what()).find("analysis"), std::string::npos) << e.what();
    }
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
